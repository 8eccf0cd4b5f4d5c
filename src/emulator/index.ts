/**
 * A faithful local stand-in for the Deployment Hosting Control API, the way
 * LocalStack or Azurite stand in for their clouds. `startEmulator()` is what the
 * CLI (`hostsync emulator`), tests and benchmarks call.
 */
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { EMULATOR_BACKUP_INTERVAL_MS, EMULATOR_INDEX_MAX_ENTRIES, EMULATOR_ORPHAN_DRAIN_MS, EMULATOR_UPLOAD_MAX_BYTES } from './tunables.js';
import { drainGroups, reapOrphans, recordGroupsIn } from './child-reaper.js';
import { RATE_LIMIT_REQUESTS, RATE_LIMIT_USER_REQUESTS, RATE_LIMIT_WINDOW_MS, SEARCH_LOGS_MAX_LINES } from '../api/limits.js';
import { archiveRoutes } from './archive.js';
import { ALL_SCOPES, KeyRing, newApiKey, parseKeySpec } from './auth.js';
import type { EmulatorCore, ProjectRecord } from './context.js';
import { EMULATED_PROJECT_ID, EMULATED_USER, EmulatedDeployment, type DeploymentSpec } from './deployment.js';
import { deploymentRoutes, notEmulatedRoutes } from './deployments.js';
import { envRoutes } from './env.js';
import { resourceRoutes } from './resources.js';
import { startupRoutes } from './startup.js';
import { FaultInjector } from './faults.js';
import { fileManageRoutes } from './files-manage.js';
import { fileReadRoutes } from './files-read.js';
import { fileWriteRoutes } from './files-write.js';
import { nodeFileRoutes } from './node-files.js';
import { projectRoutes } from './projects.js';
import { BackupStore } from './backups.js';
import { backupRoutes } from './backup-routes.js';
import { catalogRoutes } from './catalog.js';
import { docsRoutes } from './docs.js';
import { domainRoutes } from './domains.js';
import { gitRoutes } from './git.js';
import { outlineRoutes } from './outline.js';
import { packageRoutes } from './packages.js';
import { shellRoutes } from './shell.js';
import { RateLimiter } from './ratelimit.js';
import { EMULATED_POOL } from './quota.js';
import type { RunSettings } from './runner.js';
import { createEmulatorServer } from './server.js';
import { SignedUrls } from './signed-urls.js';
import { Stats, type StatsSnapshot } from './stats.js';
import { loadPersisted, savePersisted } from './persist.js';

/** Temporary data folders (no --data) are named so a later start can find a killed emulator's. */
const TEMP_DATA_PREFIX = 'hostsync-emulator-';

export { parseFaultSpec } from './faults.js';
export { parseKeySpec } from './auth.js';

export interface EmulatorOptions {
  /** 0 / undefined = any free port; always binds 127.0.0.1. */
  port?: number;
  /** Where volumes and history live; default: a fresh mkdtemp dir (removed on close only if we created it). */
  dataDir?: string;
  /** Per key per window, default 120. */
  rateLimit?: number;
  /** Per user across keys, default 300. */
  userRateLimit?: number;
  /** Default 60. */
  rateWindowSeconds?: number;
  /** Added to every /api/v1 (and node) response. */
  latencyMs?: number;
  /** DESIGN.md SPEC, e.g. "5xx=0.1,reset=0.05,429=0.02,partial=0.1". */
  faults?: string;
  /** Extra keys, each "TOKEN:scope,scope". */
  keys?: string[];
  /** files.index truncation cap, default EMULATOR_INDEX_MAX_ENTRIES (20 000). */
  indexMaxEntries?: number;
  /** Per-file node upload limit, default 100 MB (Wings). */
  uploadMaxBytes?: number;
  /** Runtime of the default deployment, default 'nodejs'. */
  runtime?: string;
  /** Default 'index.js'. */
  entryFile?: string;
  /** How many deployments to start with (`--deployments`); default 1. More are created by deployments.create. */
  deployments?: number;
  /** PRNG seed for faults, for reproducible tests. */
  seed?: number;
  /** Seconds a process must stay alive to count as running without listening (`--boot-grace`); default 1.5. */
  bootGraceSeconds?: number;
  /** The node runtimes' default start runs `npm install` first when package.json lists dependencies; false skips it (`--no-install`). Default true. */
  install?: boolean;
  /** verifyCustomDomain answers verified: true (the DNS "is right"); default false. */
  dnsVerified?: boolean;
  /** Restore points on a schedule and before destructive calls; default true. */
  autoBackups?: boolean;
  /** Period of the automatic restore points in seconds, default 6 h; 0 keeps only the safety points. */
  backupIntervalSeconds?: number;
  /**
   * RAM of the deployments the emulator starts with (`--ram-mb`); default the document's
   * 256 MB, at which npm install is killed. Drawn from the pool like a create's ramMB.
   */
  ramMB?: number;
  /** Lines the live console keeps (`--console-lines`); default EMULATOR_CONSOLE_LINES. searchLogs still reads up to 5000. */
  consoleLines?: number;
}

export interface RunningEmulator {
  /** "http://127.0.0.1:PORT"; the API is under baseUrl + "/api/v1". */
  baseUrl: string;
  /** Default key, every scope. */
  apiKey: string;
  deploymentId: string;
  /** Absolute path of the default deployment's files. */
  volume: string;
  /** The exact JSON ready line of DESIGN.md. */
  readyLine(): string;
  /** A deployment as deployments.create makes one; `ramMB` defaults to the document's 256 MB. */
  createDeployment(opts: { name?: string; runtime?: string; entryFile?: string; ramMB?: number }): Promise<{ id: string; volume: string }>;
  setFaults(spec: string): void;
  setLatency(ms: number): void;
  stats(): StatsSnapshot;
  resetStats(): void;
  /** Stops the server AND every child process the runners started. */
  close(): Promise<void>;
}

/** The default project, and one shared with the user by someone else (so "owner only" has something to refuse). */
function seedProjects(): ProjectRecord[] {
  const createdAt = new Date().toISOString();
  return [
    { id: EMULATED_PROJECT_ID, name: 'Default', ownerId: EMULATED_USER.id, createdAt },
    { id: 'prj_shared', name: 'Shared with you', ownerId: 'usr_teammate', createdAt },
  ];
}

function checkInt(name: string, flag: string, v: number | undefined, min: number, max = Number.MAX_SAFE_INTEGER): void {
  if (v === undefined) return;
  if (!Number.isInteger(v) || v < min || v > max) {
    throw new Error(`bad ${name} ${v}: use a whole number from ${min} to ${max} (${flag})`);
  }
}

function validate(opts: EmulatorOptions): void {
  checkInt('port', '--port', opts.port, 0, 65535);
  checkInt('rate limit', '--rate-limit', opts.rateLimit, 1);
  checkInt('user rate limit', 'userRateLimit', opts.userRateLimit, 1);
  checkInt('rate window', '--rate-window', opts.rateWindowSeconds, 1);
  checkInt('latency', '--latency', opts.latencyMs, 0);
  checkInt('index entry cap', 'indexMaxEntries', opts.indexMaxEntries, 1);
  checkInt('upload limit', 'uploadMaxBytes', opts.uploadMaxBytes, 1);
  checkInt('backup interval', '--backup-interval', opts.backupIntervalSeconds, 0);
  checkInt('deployment count', '--deployments', opts.deployments, 1, EMULATED_POOL.slots);
  checkInt('RAM', '--ram-mb', opts.ramMB, 64, Math.floor(EMULATED_POOL.ramMB / (opts.deployments ?? 1)));
  checkInt('console size', '--console-lines', opts.consoleLines, 1, SEARCH_LOGS_MAX_LINES);
  const grace = opts.bootGraceSeconds;
  if (grace !== undefined && (!Number.isFinite(grace) || grace < 0 || grace > 600)) {
    throw new Error(`bad boot grace ${grace}: use a number of seconds from 0 to 600 (--boot-grace)`);
  }
}

function listen(server: ReturnType<typeof createEmulatorServer>, port: number): Promise<number> {
  return new Promise((resolve, reject) => {
    const onError = (err: NodeJS.ErrnoException): void => {
      if (err.code === 'EADDRINUSE') {
        reject(new Error(`port ${port} is already in use on 127.0.0.1: pick another with --port, or --port 0 for any free port`));
      } else if (err.code === 'EACCES') {
        reject(new Error(`port ${port} needs privileges on 127.0.0.1: pick a port above 1023 with --port`));
      } else reject(new Error(`cannot listen on 127.0.0.1:${port}: ${err.message}`));
    };
    server.once('error', onError);
    server.listen({ port, host: '127.0.0.1' }, () => {
      server.off('error', onError);
      resolve((server.address() as AddressInfo).port);
    });
  });
}

export async function startEmulator(opts: EmulatorOptions = {}): Promise<RunningEmulator> {
  validate(opts);
  const faults = new FaultInjector(opts.faults ?? '', opts.seed); // throws a one-line error naming the bad part
  const keys = new KeyRing();
  const extraKeys = (opts.keys ?? []).map(parseKeySpec);

  const ownDataDir = opts.dataDir === undefined;
  const dataDir = ownDataDir ? mkdtempSync(path.join(os.tmpdir(), TEMP_DATA_PREFIX)) : path.resolve(opts.dataDir!);
  mkdirSync(dataDir, { recursive: true });
  // App processes a SIGKILLed emulator left running would hold their ports and keep
  // writing to the volumes: killed before anything starts.
  await drainGroups(reapOrphans(dataDir, { root: os.tmpdir(), prefix: TEMP_DATA_PREFIX }), EMULATOR_ORPHAN_DRAIN_MS);
  const stopRecording = recordGroupsIn(dataDir);
  // A --data folder keeps the key and the deployments across restarts, as the service does.
  const persisted = ownDataDir ? null : loadPersisted(dataDir);

  const apiKey = persisted?.apiKey ?? newApiKey();
  keys.add(apiKey, ALL_SCOPES);
  for (const k of extraKeys) keys.add(k.token, k.scopes);

  const deployments = new Map<string, EmulatedDeployment>();
  const run: RunSettings = {
    ...(opts.bootGraceSeconds === undefined ? {} : { bootGraceMs: opts.bootGraceSeconds * 1000 }),
    ...(opts.install === false ? { install: false } : {}),
    ...(opts.consoleLines === undefined ? {} : { consoleLines: opts.consoleLines }),
  };
  const startSize = opts.ramMB === undefined ? undefined : { ...EmulatedDeployment.resources, ramMB: opts.ramMB };
  const projects = new Map<string, ProjectRecord>(seedProjects().map((p) => [p.id, p]));
  const teardowns = new Set<Promise<void>>();
  const backups = new BackupStore(path.join(dataDir, 'backups'), () => deployments.values(), {
    enabled: opts.autoBackups ?? true,
    intervalMs: opts.backupIntervalSeconds === undefined ? EMULATOR_BACKUP_INTERVAL_MS : opts.backupIntervalSeconds * 1000,
  });
  const core: EmulatorCore = {
    dataDir,
    backups,
    projects,
    outside: { dnsVerified: opts.dnsVerified ?? false },
    removeDeployment(id: string): void {
      const dep = deployments.get(id);
      if (!dep) return;
      deployments.delete(id);
      persist();
      // The document: delete answers at once, teardown continues in the background.
      const t = dep.dispose().then(() => dep.destroyFiles()).catch(() => undefined).finally(() => teardowns.delete(t));
      teardowns.add(t);
    },
    baseUrl: '',
    indexMaxEntries: opts.indexMaxEntries ?? EMULATOR_INDEX_MAX_ENTRIES,
    uploadMaxBytes: opts.uploadMaxBytes ?? EMULATOR_UPLOAD_MAX_BYTES,
    faults,
    signed: new SignedUrls(),
    deployments,
    createDeployment(spec: DeploymentSpec): EmulatedDeployment {
      const dep = new EmulatedDeployment(dataDir, spec, run);
      deployments.set(dep.id, dep);
      persist();
      return dep;
    },
    persist: () => persist(),
  };
  function persist(): void {
    if (ownDataDir) return;
    savePersisted(dataDir, {
      apiKey,
      deployments: [...deployments.values()].map((d) => ({
        id: d.id, name: d.spec.name, runtime: d.spec.runtime, entryFile: d.spec.entryFile,
        git: d.git, env: [...d.env].map(([key, v]) => ({ key, ...v })), resources: d.resources,
      })),
    });
  }
  for (const d of persisted?.deployments ?? []) {
    const dep = new EmulatedDeployment(dataDir, { name: d.name, runtime: d.runtime, entryFile: d.entryFile, ...(d.resources ? { resources: d.resources } : {}) }, run, d.id);
    dep.git = d.git ?? null;
    for (const v of d.env ?? []) dep.env.set(v.key, { value: v.value, secret: v.secret });
    deployments.set(d.id, dep);
  }
  const first =
    deployments.values().next().value ??
    core.createDeployment({ name: 'app', runtime: opts.runtime ?? 'nodejs', entryFile: opts.entryFile ?? 'index.js', ...(startSize ? { resources: startSize } : {}) });
  for (let n = deployments.size + 1; n <= (opts.deployments ?? 1); n++) {
    core.createDeployment({ name: `app-${n}`, runtime: opts.runtime ?? 'nodejs', entryFile: opts.entryFile ?? 'index.js', ...(startSize ? { resources: startSize } : {}) });
  }

  const stats = new Stats();
  const latency = { ms: opts.latencyMs ?? 0 };
  const limiter = new RateLimiter(
    opts.rateLimit ?? RATE_LIMIT_REQUESTS,
    opts.userRateLimit ?? RATE_LIMIT_USER_REQUESTS,
    (opts.rateWindowSeconds ?? RATE_LIMIT_WINDOW_MS / 1000) * 1000,
  );
  const server = createEmulatorServer({ core, keys, limiter, stats, latency }, [
    ...fileReadRoutes,
    ...fileWriteRoutes,
    ...fileManageRoutes,
    ...archiveRoutes,
    ...nodeFileRoutes,
    ...deploymentRoutes,
    ...startupRoutes,
    ...envRoutes,
    ...resourceRoutes,
    ...projectRoutes,
    ...shellRoutes,
    ...catalogRoutes,
    ...docsRoutes,
    ...packageRoutes,
    ...outlineRoutes,
    ...domainRoutes,
    ...gitRoutes,
    ...backupRoutes,
    ...notEmulatedRoutes,
  ]);

  const disposeAll = async (): Promise<void> => {
    await Promise.all([...deployments.values()].map((d) => d.dispose()));
    await Promise.all([...teardowns]);
  };
  let port: number;
  try {
    port = await listen(server, opts.port ?? 0);
  } catch (err) {
    await disposeAll();
    stopRecording();
    if (ownDataDir) rmSync(dataDir, { recursive: true, force: true });
    throw err;
  }
  core.baseUrl = `http://127.0.0.1:${port}`;
  backups.start();

  let closing: Promise<void> | null = null;
  return {
    baseUrl: core.baseUrl,
    apiKey,
    deploymentId: first.id,
    volume: first.volume.root,
    readyLine: () =>
      JSON.stringify({ baseUrl: core.baseUrl, apiKey, deploymentId: first.id, volume: first.volume.root }),
    async createDeployment(o) {
      checkInt('RAM', 'createDeployment ramMB', o.ramMB, 64, EMULATED_POOL.ramMB);
      const dep = core.createDeployment({
        name: o.name ?? `app-${deployments.size + 1}`,
        runtime: o.runtime ?? 'nodejs',
        entryFile: o.entryFile ?? 'index.js',
        ...(o.ramMB === undefined ? {} : { resources: { ...EmulatedDeployment.resources, ramMB: o.ramMB } }),
      });
      return { id: dep.id, volume: dep.volume.root };
    },
    setFaults: (spec) => faults.set(spec),
    setLatency(ms) {
      checkInt('latency', 'setLatency', ms, 0);
      latency.ms = ms;
    },
    stats: () => stats.snapshot(),
    resetStats: () => stats.reset(),
    close() {
      closing ??= (async () => {
        backups.stop();
        await new Promise<void>((resolve) => {
          server.close(() => resolve());
          server.closeAllConnections();
        });
        await disposeAll();
        stopRecording();
        if (ownDataDir) rmSync(dataDir, { recursive: true, force: true });
        else persist(); // renames and startup changes since the last create or delete
      })();
      return closing;
    },
  };
}
