/**
 * One emulated deployment: its volume on disk, its file history, its hash cache
 * and the runner that executes it. Records are rendered from live state on every
 * call, as the service reads state live from the node.
 */
import { randomBytes } from 'node:crypto';
import { rm } from 'node:fs/promises';
import path from 'node:path';
import type { Deployment, StartupConfig } from '../api/types.js';
import { DEFAULT_RAM_MB } from '../api/memory.js';
import { HashCache } from './hash-cache.js';
import { pullInto } from './git-pull.js';
import { HistoryStore } from './history.js';
import { DeploymentRunner, type RunSettings } from './runner.js';
import { Volume } from './volume.js';
import { VolumeWatch } from './volume-watch.js';

/** One user variable of the deployment (env.ts serves them; the runner reads them at every start). */
export interface EnvValue {
  value: string;
  secret: boolean;
}

/** Owner of every emulated deployment: the one user all keys belong to. */
export const EMULATED_USER = { id: 'usr_emulator', username: 'emulator' } as const;
export const EMULATED_PROJECT_ID = 'prj_default';
/**
 * Size of a new deployment when create names none and the pool's equal share is not
 * smaller (deployments.ts, sizeOf): RAM is the document's 256 MB default, at which npm
 * install is killed; resize changes it, drawing on the account's pool.
 */
const RESOURCES = { ramMB: DEFAULT_RAM_MB, cpuPercent: 100, storageMB: 5120 } as const;

export interface DeploymentResources {
  ramMB: number;
  cpuPercent: number;
  storageMB: number;
}

/** Domains of one deployment: the subdomain is assigned by enableDomains; slug and custom domain are optional. */
export interface DomainState {
  subdomainEnabled: boolean;
  slug: string | null;
  custom: { domain: string; token: string; verified: boolean } | null;
}

/** The git source linked to a deployment (getGit / setAutoPull / sync). */
export interface GitLink {
  repo: string;
  branch: string;
  autoPull: boolean;
}

export interface DeploymentSpec {
  name: string;
  runtime: string;
  entryFile: string;
  /** Its size; default RESOURCES. */
  resources?: DeploymentResources;
}

export class EmulatedDeployment {
  readonly id: string;
  readonly createdAt = new Date().toISOString();
  readonly volume: Volume;
  readonly history: HistoryStore;
  readonly hashes = new HashCache();
  /** Lets files.index answer an unchanged volume without walking it. */
  readonly volumeWatch = new VolumeWatch();
  readonly runner: DeploymentRunner;
  projectId = EMULATED_PROJECT_ID;
  private size: DeploymentResources;
  readonly domains: DomainState = { subdomainEnabled: false, slug: null, custom: null };
  git: GitLink | null = null;
  /** The user's environment variables (env.*); the app reads them at its next (re)start. */
  readonly env = new Map<string, EnvValue>();
  /** Startup kind: runtime, database or service (updateStartup may change it). */
  kind = 'runtime';

  /** `id` is given only when restoring a deployment a --data folder kept (persist.ts). */
  constructor(dataDir: string, readonly spec: DeploymentSpec, run: RunSettings = {}, id?: string) {
    this.id = id ?? `dep_${randomBytes(6).toString('hex')}`;
    this.volume = Volume.open(path.join(dataDir, 'volumes', this.id));
    this.history = new HistoryStore(path.join(dataDir, 'history', this.id));
    this.size = { ...(spec.resources ?? RESOURCES) };
    this.runner = new DeploymentRunner({
      ...run,
      ramMB: this.size.ramMB,
      pythonEnv: path.join(dataDir, 'venvs', this.id),
      volume: this.volume.root,
      runtime: spec.runtime,
      entryFile: spec.entryFile,
      env: () => Object.fromEntries([...this.env].map(([k, v]) => [k, v.value])),
      beforeStart: () => this.autoPull(),
    });
  }

  get resources(): DeploymentResources {
    return { ...this.size };
  }

  /** The new size; the app's memory limit (install OOM, SERVER_MEMORY) follows it from the next start. */
  resize(size: DeploymentResources): void {
    this.size = { ...size };
    this.runner.setMemoryLimit(size.ramMB);
  }

  /** hosting-api.md, setAutoPull: "re-pull the linked repository on every restart". */
  private async autoPull(): Promise<string | null> {
    const link = this.git;
    if (!link?.autoPull) return null;
    try {
      const { commit } = await pullInto(this.volume.root, link.repo, link.branch);
      return `autoPull: ${link.repo} ${link.branch} at ${commit.slice(0, 12)}`;
    } catch (err) {
      throw new Error(`autoPull of ${link.repo} failed: ${(err as Error).message}`);
    }
  }

  startupConfig(): StartupConfig {
    return { kind: this.kind, ...this.runner.startup(), engine: '' };
  }

  /** The full record (deployments.get): every field of the document's table. */
  record(): Deployment {
    const port = this.runner.port;
    const slug = this.spec.name.toLowerCase().replace(/[^a-z0-9-]+/g, '-');
    return {
      id: this.id,
      name: this.spec.name,
      state: this.runner.state,
      status: 'active',
      createdAt: this.createdAt,
      projectId: this.projectId,
      owned: true,
      owner: { ...EMULATED_USER },
      shared: [],
      resources: { ...this.resources },
      runtime: this.spec.runtime,
      entryFile: this.spec.entryFile,
      domains: {
        subdomain: `${slug}.apps`,
        slug: this.domains.slug,
        custom: this.domains.custom?.domain ?? null,
        url: port === null ? null : `http://127.0.0.1:${port}`,
      },
      node: { name: 'emulator-node', fqdn: '127.0.0.1', region: 'local' },
      port,
      ports: port === null ? [] : [port],
      startup: this.startupConfig(),
      connection: null,
    };
  }

  /** deployments.list with brief=true: the fields the document names for a brief row. */
  brief(): { id: string; name: string; state: string; url: string | null; runtime: string; entryFile: string } {
    const r = this.record();
    return { id: r.id, name: r.name, state: r.state, url: r.domains.url, runtime: r.runtime, entryFile: r.entryFile };
  }

  static readonly resources = RESOURCES;

  /** Removes the volume and the history from disk (after dispose, for deployments.delete). */
  async destroyFiles(): Promise<void> {
    await rm(this.volume.root, { recursive: true, force: true });
    await rm(this.history.dir, { recursive: true, force: true });
    await rm(path.join(path.dirname(path.dirname(this.volume.root)), 'venvs', this.id), { recursive: true, force: true });
  }

  dispose(): Promise<void> {
    this.volumeWatch.close();
    return this.runner.dispose();
  }
}
