import { dirname, delimiter } from 'node:path';
import type {
  ApplyRequest,
  ApplyResult,
  DeploymentState,
  DiagnoseResult,
  HttpProbe,
  LogsResult,
  PowerAction,
  PowerResult,
} from '../api/types.js';
import { EMULATOR_BOOT_GRACE_MS, EMULATOR_IDLE_MS, EMULATOR_CONSOLE_LINES, EMULATOR_LOG_MAX_LINES, EMULATOR_LOGS_MAX_SIZE, EMULATOR_LOG_TAIL_LINES, EMULATOR_LOGS_DEFAULT_SIZE, EMULATOR_MAX_WAIT_SECONDS, EMULATOR_PROBE_TIMEOUT_MS, EMULATOR_SETTLE_WAIT_SECONDS, EMULATOR_STOP_GRACE_MS, EMULATOR_WAIT_POLL_MS } from './tunables.js';
import { DEFAULT_RAM_MB } from '../api/memory.js';
import { AppProcess } from './app-process.js';
import { Install, installEnv, nodeInstallStep, outputExists, type InstallOutcome, type InstallStep } from './install.js';
import { ConsoleLog } from './console-log.js';
import { findPython, missingPythonLine, pythonInstallStep, venvPython, type PythonLookup } from './python.js';
import { allocatePort, isPortFree } from './ports.js';
import { failedProbe, probeHttp } from './probe.js';
import { CpuMeter, sampleProcessGroup } from './proc-stats.js';
import { StaticServer } from './static-server.js';
import { FILES_RESTART_SKIPPED, planFor, type LaunchPlan } from './launch-plan.js';
import { hintFor, notEmulated } from './run-hints.js';
import { appEnvOf } from './app-env.js';

/** How every deployment of one emulator runs its app (emulator flags). */
export interface RunSettings {
  /** A process alive this long without listening counts as running; default EMULATOR_BOOT_GRACE_MS (`--boot-grace`). */
  bootGraceMs?: number;
  /** The runtime default installs dependencies before a start (`npm install`); false skips it (`--no-install`, offline tests). Default true. */
  install?: boolean;
  /** Lines of the live console (`--console-lines`); default EMULATOR_CONSOLE_LINES. */
  consoleLines?: number;
}

export interface RunnerOptions extends RunSettings {
  volume: string;
  runtime: string;
  entryFile: string;
  startCommand?: string;
  /** Reported by startup(); the emulator runs node apps on its own Node whatever this says. */
  runtimeVersion?: string;
  /** The deployment's RAM at creation (deployments.resize changes it with setMemoryLimit); default the document's 256 MB. */
  ramMB?: number;
  /** Where a python deployment's virtual environment lives (outside the volume, so a sync never sees it); default `<volume>.venv`. */
  pythonEnv?: string;
  /** The user's variables, read at every (re)start: a change applies on the next one, as the document says. */
  env?: () => Record<string, string>;
  /**
   * A step of every start before the app runs, while the state reads `installing`
   * (the linked repository's autoPull). It answers a line for the console; a step that
   * throws is logged and the start goes on with the files the volume has.
   */
  beforeStart?: () => Promise<string | null>;
}


function clampWait(seconds: number | undefined, fallback: number): number {
  const value = seconds === undefined || !Number.isFinite(seconds) ? fallback : seconds;
  return Math.min(Math.max(0, value), EMULATOR_MAX_WAIT_SECONDS);
}

/** kB to MB, one decimal. */
const toMB = (kb: number): number => Math.round((kb / 1024) * 10) / 10;

type Instance = { kind: 'process'; proc: AppProcess; cpu: CpuMeter } | { kind: 'files'; server: StaticServer };

/**
 * Runs one emulated deployment: starts, stops and restarts its app, keeps its
 * console, and answers power / apply / diagnose / logs as the service does.
 *
 * State is read live on every call (like the service reading the node):
 * installing while a start is being prepared, starting once spawned until the port
 * accepts TCP or the process has stayed alive past the boot grace (a bot or worker
 * never listens, and is up all the same), running from then on until the process ends
 * (the static server: while listening), stopping after a stop signal, offline
 * otherwise (never started, stopped, crashed). Not emulated: see LaunchPlan.
 *
 * Invariants: at most one instance runs at a time (starts, stops and restarts are
 * serialised; only kill and dispose cut in, so they are never stuck behind a slow
 * graceful stop); the app's port is allocated once and kept across restarts unless
 * something else took it; after dispose() nothing we spawned is alive.
 */
export class DeploymentRunner {
  private readonly log: ConsoleLog;
  private plan: LaunchPlan;
  private instance: Instance | null = null;
  private appPort: number | null = null;
  private preparing = false;
  private everStarted = false;
  /** Set by power stop/kill, cleared by a start: an offline deployment the user stopped is not a crash. */
  private stoppedByUser = false;
  private disposed = false;
  private disposing: Promise<void> | null = null;
  /** Tail of the serialised start/stop/restart chain. */
  private transitions: Promise<unknown> = Promise.resolve();
  private readonly wakers = new Set<() => void>();
  /** Transitions queued or running. While one is, the state is about to change: nothing has settled. */
  private pending = 0;
  /** The deployment's RAM (deployments.resize changes it); the app sees it as SERVER_MEMORY. */
  private memoryLimitMB: number;
  /** The dependency install of the start under way, if one runs. */
  private install: Install | null = null;
  /** The manifests' digest of the last install that succeeded: the console says when a start installs an unchanged tree again. */
  private installedDigest: string | null = null;
  /** Why the last start never ran the app: its install failed. Cleared by the next start. */
  private installFailure: { step: InstallStep; outcome: InstallOutcome } | null = null;
  /** Why the last start never got as far as an install: the runtime it asks for is missing. Cleared by the next start. */
  private startFailure: string | null = null;

  constructor(private readonly opts: RunnerOptions) {
    this.plan = planFor(opts);
    this.memoryLimitMB = opts.ramMB ?? DEFAULT_RAM_MB;
    this.log = new ConsoleLog(EMULATOR_LOG_MAX_LINES, opts.consoleLines ?? EMULATOR_CONSOLE_LINES);
    void this.lookUpPython();
  }

  /** The app's port once allocated (at the first start); null before. */
  get port(): number | null {
    return this.appPort;
  }

  get state(): DeploymentState {
    if (this.preparing) return 'installing';
    const instance = this.instance;
    if (instance === null) return 'offline';
    if (instance.kind === 'files') return instance.server.listening ? 'running' : 'offline';
    switch (instance.proc.phase) {
      case 'starting': return 'starting';
      case 'running': return 'running';
      case 'stopping': return 'stopping';
      case 'exited': return 'offline';
    }
  }

  /**
   * updateStartup: the new runtime, entry file or start command take effect at the next
   * (re)start; what runs now keeps running, as on the service.
   */
  reconfigure(change: Partial<Pick<RunnerOptions, 'runtime' | 'entryFile' | 'startCommand' | 'runtimeVersion'>>): void {
    Object.assign(this.opts, change);
    this.plan = planFor(this.opts);
    this.python = null;
    void this.lookUpPython();
  }

  /** When the running instance started (performance.now()), or null when nothing runs. */
  get startedAt(): number | null {
    return this.instance === null || this.state === 'offline' ? null : this.instanceStartedAt;
  }
  private instanceStartedAt = 0;

  startup(): { runtime: string; runtimeVersion: string; entryFile: string; startCommand: string } {
    const plan = this.plan;
    return {
      runtime: this.opts.runtime,
      runtimeVersion: this.reportedVersion(plan),
      entryFile: this.opts.entryFile,
      startCommand: plan.kind === 'process' ? (plan.reported ?? plan.display) : '',
    };
  }

  /**
   * The version the app really runs on: node's own for node runtimes unless one was set;
   * for python, what the interpreter found for runtimeVersion reports ("3.11.7"), or the
   * version asked for while none was found (the start then says it is missing).
   */
  private reportedVersion(plan: LaunchPlan): string {
    if (plan.kind === 'process' && plan.python) return this.python?.ok ? this.python.version : (this.opts.runtimeVersion ?? '');
    return this.opts.runtimeVersion ?? (plan.kind === 'process' && plan.command === process.execPath ? process.versions.node : '');
  }

  /** The interpreter of a python deployment, once looked up (at construction, after a change of startup, at each start). */
  private python: PythonLookup | null = null;

  private lookUpPython(): Promise<PythonLookup> | null {
    if (this.plan.kind !== 'process' || !this.plan.python) return null;
    const wanted = this.opts.runtimeVersion;
    return findPython(wanted).then((found) => {
      if (this.opts.runtimeVersion === wanted) this.python = found;
      return found;
    });
  }

  /** Writes a line to the app's stdin (deployments.command); false when no process is running. */
  command(line: string): boolean {
    const instance = this.instance;
    return instance?.kind === 'process' ? instance.proc.send(line) : false;
  }

  async power(action: PowerAction, waitSeconds?: number): Promise<PowerResult> {
    let ok = true;
    let reason = '';
    let wait: number;
    // start/restart wait for running-or-offline; a stop or kill waits for offline only.
    let settled = (): boolean => this.hasSettled();
    switch (action) {
      case 'start':
      case 'restart': {
        wait = clampWait(waitSeconds, EMULATOR_SETTLE_WAIT_SECONDS);
        const outcome = await this.serialise(() => (action === 'start' ? this.start() : this.restart()));
        ok = outcome.ok;
        reason = outcome.reason;
        if (ok) this.stoppedByUser = false;
        break;
      }
      case 'stop':
      case 'kill': {
        wait = clampWait(waitSeconds, 0);
        settled = () => (this.pending === 0 && this.state === 'offline') || this.disposed;
        if (this.isAlive()) {
          this.stoppedByUser = true;
          // A stop during the install ends the install: the start it belongs to is abandoned.
          this.install?.kill();
          // The call returns once the signal is sent (plus waitSeconds); the stop finishes regardless.
          if (action === 'kill') void this.killNow();
          else {
            let signalled!: () => void;
            const sent = new Promise<void>((resolve) => (signalled = resolve));
            void this.serialise(async () => {
              const stopped = this.stopInstance();
              signalled();
              await stopped;
            });
            await sent;
          }
        } else {
          reason = 'the deployment is not running';
        }
        break;
      }
    }
    await this.waitUntil(settled, wait);
    const state = this.state;
    return { ok, action, reason, state, logs: this.log.tail(EMULATOR_LOG_TAIL_LINES), hint: this.hintFor(state, null) };
  }

  async apply(req: ApplyRequest): Promise<ApplyResult> {
    let restarted = false;
    let skippedRestart = '';
    const plan = this.plan;
    if (plan.kind === 'none') {
      skippedRestart = this.notEmulated();
    } else if (req.restart === false) {
      const servedLive = plan.kind === 'files' && this.isAlive();
      skippedRestart = servedLive ? (FILES_RESTART_SKIPPED[this.opts.runtime] ?? '') : 'restart: false was requested';
    } else if (req.restart === true || !this.isAlive() || plan.kind === 'process') {
      // A node process must reload code; anything not running is started.
      const outcome = await this.serialise(() => this.restart());
      restarted = outcome.ok;
      if (!outcome.ok) skippedRestart = outcome.reason;
      else this.stoppedByUser = false;
    } else {
      skippedRestart = FILES_RESTART_SKIPPED[this.opts.runtime] ?? 'served from the volume; no restart needed';
    }
    const wait = clampWait(req.waitSeconds, restarted ? EMULATOR_SETTLE_WAIT_SECONDS : 0);
    await this.waitUntil(() => this.hasSettled(), wait);
    return { ...(await this.diagnose(0)), restarted, skippedRestart };
  }

  async diagnose(waitSeconds?: number): Promise<DiagnoseResult> {
    await this.waitUntil(() => this.isSettledOrIdle(), clampWait(waitSeconds, 0));
    const port = this.appPort;
    // Probe whenever something may answer; a 'starting' app may have bound its port since the last poll.
    const probe: HttpProbe =
      port !== null && this.isAlive() ? await probeHttp(port, EMULATOR_PROBE_TIMEOUT_MS) : failedProbe(port === null ? '' : `http://127.0.0.1:${port}/`);
    const state = this.state;
    return {
      state,
      installing: state === 'installing',
      resources: this.resources(),
      logs: this.log.tail(EMULATOR_LOG_TAIL_LINES),
      startup: this.startup(),
      http: probe,
      direct: { url: probe.url, status: probe.status, ok: probe.ok },
      hint: this.hintFor(state, probe),
    };
  }

  async logs(size?: number, waitSeconds?: number): Promise<LogsResult> {
    await this.waitUntil(() => this.isDeadOrIdle(), clampWait(waitSeconds, 0));
    const count = size === undefined || !Number.isFinite(size) ? EMULATOR_LOGS_DEFAULT_SIZE : Math.min(Math.max(0, size), EMULATOR_LOGS_MAX_SIZE);
    const state = this.state;
    return { lines: this.log.tail(count), state, settled: this.isSettledOrIdle(), hint: this.hintFor(state, null) };
  }

  /** The last `n` lines of the kept console log, beyond the live buffer (searchLogs reads up to 5000, more than logs may answer). */
  consoleTail(n: number): string[] {
    return this.log.searchable(n);
  }

  resources(): { ramMB: number; ramLimitMB: number; cpuPercent: number } {
    const instance = this.instance;
    // While it installs, the container's figures are the install's.
    const installing = this.install?.groupId ?? null;
    if (installing !== null) {
      return { ramMB: toMB(sampleProcessGroup(installing).rssKB), ramLimitMB: this.memoryLimitMB, cpuPercent: 0 };
    }
    // The static server lives inside the emulator's own process: it has no figures of its own.
    if (instance?.kind !== 'process' || !instance.proc.alive || instance.proc.pid === null) {
      return { ramMB: 0, ramLimitMB: this.memoryLimitMB, cpuPercent: 0 };
    }
    const sample = sampleProcessGroup(instance.proc.pid);
    return {
      ramMB: toMB(sample.rssKB),
      ramLimitMB: this.memoryLimitMB,
      cpuPercent: instance.cpu.percent(sample.cpuTicks),
    };
  }

  /** Kills the app (SIGKILL to its group) or closes the static server. Idempotent. */
  dispose(): Promise<void> {
    this.disposing ??= (async () => {
      this.disposed = true;
      await this.killNow();
      // A start already in the chain checks `disposed` before spawning; this sweeps anything it began anyway.
      await this.serialise(() => this.killNow());
      this.wake();
    })();
    return this.disposing;
  }

  // ---- transitions (run one at a time through serialise) ----

  private serialise<T>(step: () => Promise<T>): Promise<T> {
    this.pending++;
    const run = this.transitions.then(step, step).finally(() => {
      this.pending--;
      this.wake();
    });
    this.transitions = run.catch(() => undefined);
    return run;
  }

  private async start(): Promise<{ ok: boolean; reason: string }> {
    if (this.disposed) return { ok: false, reason: 'the emulator is shutting down' };
    const plan = this.plan;
    if (plan.kind === 'none') return { ok: false, reason: this.notEmulated() };
    if (this.isAlive()) return { ok: false, reason: 'the deployment is already running' };
    this.preparing = true;
    this.installFailure = null;
    this.startFailure = null;
    this.wake();
    try {
      await this.runBeforeStart();
      const port = await this.ensurePort();
      if (this.disposed) return { ok: false, reason: 'the emulator is shutting down' };
      this.log.touch();
      if (plan.kind === 'files') {
        const server = new StaticServer({ root: this.opts.volume, indexFiles: plan.indexFiles });
        try {
          await server.listen(port);
        } catch (err) {
          this.log.note(`[emulator] static file server could not listen on port ${port}: ${(err as Error).message}`);
          return { ok: false, reason: `port ${port} is not available` };
        }
        this.instance = { kind: 'files', server };
        this.log.note(`[emulator] serving ${this.opts.runtime} files from the volume on port ${port}`);
      } else {
        this.log.note(`[emulator] starting: ${plan.display} (SERVER_PORT=${port})`);
        let command = plan.command;
        const env = this.childEnv(port);
        if (plan.python) {
          const python = await this.lookUpPython();
          if (python === null || !python.ok) {
            // Never another version in its place: the start ends here, like a container whose image is missing.
            this.startFailure = python === null ? 'no python interpreter was looked up' : missingPythonLine(python);
            this.everStarted = true;
            this.log.note(`[emulator] ${this.startFailure}`);
            return { ok: true, reason: '' };
          }
          this.log.note(`[emulator] python ${python.version} (${python.path})`);
          if (plan.installs && !(await this.installDependencies(port, () => pythonInstallStep(this.opts.volume, this.venvDir, python)))) return { ok: true, reason: '' };
          const venv = await venvPython(this.venvDir, python.version);
          command = venv ?? python.path;
          // `python` in the app's own subprocesses must be the same interpreter.
          env.PATH = [dirname(command), env.PATH].filter(Boolean).join(delimiter);
          if (venv !== null) env.VIRTUAL_ENV = this.venvDir;
          // The node runs the app on a TTY, where Python flushes every line; over the emulator's pipe it would hold them back.
          env.PYTHONUNBUFFERED = '1';
        } else if (plan.installs && !(await this.installDependencies(port, () => nodeInstallStep(this.opts.volume)))) {
          // A failed install ends this start like a crash of the container: the app never runs, the state is offline.
          return { ok: true, reason: '' };
        }
        if (this.disposed) return { ok: false, reason: 'the emulator is shutting down' };
        const proc = new AppProcess({
          command,
          args: plan.args,
          cwd: this.opts.volume,
          env,
          port,
          bootGraceMs: this.opts.bootGraceMs ?? EMULATOR_BOOT_GRACE_MS,
          log: this.log,
          onChange: () => this.wake(),
        });
        this.instance = { kind: 'process', proc, cpu: new CpuMeter() };
      }
      this.everStarted = true;
      this.instanceStartedAt = performance.now();
      return { ok: true, reason: '' };
    } finally {
      this.preparing = false;
      this.wake();
    }
  }

  private async runBeforeStart(): Promise<void> {
    if (!this.opts.beforeStart) return;
    try {
      const line = await this.opts.beforeStart();
      if (line) this.log.note(`[emulator] ${line}`);
    } catch (err) {
      this.log.note(`[emulator] ${(err as Error).message}; starting with the files the volume has`);
    }
  }

  /**
   * The runtime default's install step, while the state reads `installing`. True when the
   * app may start: nothing to install, already installed for these manifests, or done.
   */
  private async installDependencies(port: number, stepOf: () => Promise<InstallStep | null>): Promise<boolean> {
    const step = await stepOf();
    if (step === null) return true;
    // Every boot, as the runtime's default start command does (`npm install` / `pip install`
    // at each start, hosting-api.md startCommand): an unchanged tree still costs npm's or
    // pip's check, which is the cost `"install": "on-change"` saves. Skipping it here made
    // every emulated restart cheaper than the service's (issue 47, item 4).
    const again = step.digest === this.installedDigest && (await outputExists(step));
    this.everStarted = true;
    this.log.note(`[emulator] installing: ${step.display} (${again ? `${step.manifests} unchanged since the last install; the default start installs at every boot` : step.because})`);
    const install = new Install(step, { cwd: this.opts.volume, env: installEnv(this.childEnv(port)), log: this.log, ramLimitMB: this.memoryLimitMB });
    this.install = install;
    const outcome = await install.done.finally(() => (this.install = null));
    if (outcome.ok) {
      // npm writes package-lock.json: the manifests to compare next time are the ones it left.
      this.installedDigest = (await stepOf())?.digest ?? null;
      this.log.note(`[emulator] ${step.display} done`);
      return true;
    }
    this.installedDigest = null;
    this.installFailure = { step, outcome };
    this.log.note(`[emulator] ${step.display} exited with code ${outcome.exitCode}`);
    if (outcome.outOfMemory) this.log.note(`[emulator] Out of memory: true (the deployment has ${this.memoryLimitMB} MB; ${step.needFor} needs ${step.needMB} MB or more)`);
    return false;
  }

  private async restart(): Promise<{ ok: boolean; reason: string }> {
    await this.stopInstance();
    return this.start();
  }

  /** Graceful stop of whatever runs: SIGTERM, SIGKILL after the grace; the static server closes at once. */
  private async stopInstance(): Promise<void> {
    const instance = this.instance;
    if (instance?.kind === 'process') await instance.proc.stop(EMULATOR_STOP_GRACE_MS);
    else if (instance?.kind === 'files') await this.closeFiles(instance.server);
  }

  private async killNow(): Promise<void> {
    this.install?.kill();
    const instance = this.instance;
    if (instance?.kind === 'process') await instance.proc.kill();
    else if (instance?.kind === 'files') await this.closeFiles(instance.server);
  }

  private async closeFiles(server: StaticServer): Promise<void> {
    if (!server.listening) return;
    await server.close();
    this.log.note('[emulator] static file server stopped');
    this.wake();
  }

  /** The port of the last start if it is still free (our own previous process has exited by now), else a new one. */
  private async ensurePort(): Promise<number> {
    if (this.appPort !== null && (await isPortFree(this.appPort))) return this.appPort;
    const previous = this.appPort;
    this.appPort = await allocatePort();
    if (previous !== null) this.log.note(`[emulator] port ${previous} is taken; the app now gets port ${this.appPort}`);
    return this.appPort;
  }

  private get venvDir(): string {
    return this.opts.pythonEnv ?? `${this.opts.volume}.venv`;
  }

  setMemoryLimit(mb: number): void {
    this.memoryLimitMB = mb;
  }

  /** The environment the app runs with (deployments.shell runs beside it with the same). */
  appEnv(): Record<string, string> {
    return this.childEnv(this.appPort ?? 0);
  }

  private childEnv(port: number): Record<string, string> {
    return appEnvOf(this.opts.volume, this.opts.env?.() ?? {}, this.systemEnv(port));
  }

  /** The variables the node sets for every server (env.list shows them as `system`). */
  systemEnv(port = this.appPort ?? 0): Record<string, string> {
    return { SERVER_PORT: String(port), PORT: String(port), SERVER_IP: '0.0.0.0', SERVER_MEMORY: String(this.memoryLimitMB) };
  }

  // ---- reading state ----

  /** The app's port has accepted a connection since its start (the static server always listens). */
  private listens(): boolean {
    const instance = this.instance;
    return instance?.kind === 'files' || (instance?.kind === 'process' && instance.proc.listening);
  }

  /** Something of ours runs (or is being started / stopped). */
  private isAlive(): boolean {
    const state = this.state;
    return state !== 'offline';
  }

  /** power/apply's notion of settled: no transition under way, and accepting connections or not running at all. */
  private hasSettled(): boolean {
    if (this.disposed) return true;
    const state = this.state;
    return this.pending === 0 && (state === 'running' || state === 'offline');
  }

  /** logs/diagnose's: settled, or still starting but quiet for EMULATOR_IDLE_MS (a worker with no port). */
  private isSettledOrIdle(): boolean {
    if (this.hasSettled()) return true;
    return this.state === 'starting' && performance.now() - this.log.lastActivity >= EMULATOR_IDLE_MS;
  }

  /**
   * logs' notion: the document's "returning early once the process has died or gone
   * idle". A running app that keeps printing is neither, so a reader waiting for a line
   * (a bot's "Logged in as") is answered when output pauses or the process dies, not at once.
   */
  private isDeadOrIdle(): boolean {
    if (this.disposed) return true;
    if (this.pending > 0) return false;
    const state = this.state;
    if (state === 'offline' || this.plan.kind !== 'process') return true;
    return state !== 'installing' && performance.now() - this.log.lastActivity >= EMULATOR_IDLE_MS;
  }

  private notEmulated(): string {
    return notEmulated(this.opts.runtime);
  }

  /** The service's one-line advice for the state at hand; "" when the app is up and answering. */
  private hintFor(state: DeploymentState, probe: HttpProbe | null): string {
    const instance = this.instance;
    return hintFor(state, probe, {
      runtime: this.opts.runtime,
      emulated: this.plan.kind !== 'none',
      port: this.appPort,
      installing: this.install === null ? null : this.install.display,
      bootGraceMs: this.opts.bootGraceMs ?? EMULATOR_BOOT_GRACE_MS,
      everStarted: this.everStarted,
      stoppedByUser: this.stoppedByUser,
      startFailure: this.startFailure,
      installFailure: this.installFailure,
      exit: instance?.kind === 'process' ? instance.proc.exit : null,
      listens: () => this.listens(),
      memoryLimitMB: this.memoryLimitMB,
    });
  }

  // ---- waiting ----

  private wake(): void {
    for (const waker of [...this.wakers]) waker();
  }

  /** Resolves when `done()` holds or `seconds` have passed; re-checks on every state change and every poll tick (for idleness). */
  private async waitUntil(done: () => boolean, seconds: number): Promise<void> {
    const deadline = performance.now() + seconds * 1000;
    while (!done()) {
      const left = deadline - performance.now();
      if (left <= 0) return;
      await new Promise<void>((resolve) => {
        const finish = (): void => {
          clearTimeout(timer);
          this.wakers.delete(finish);
          resolve();
        };
        const timer = setTimeout(finish, Math.min(left, EMULATOR_WAIT_POLL_MS));
        this.wakers.add(finish);
      });
    }
  }
}
