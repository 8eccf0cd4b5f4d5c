import { spawn, type ChildProcess } from 'node:child_process';
import { EMULATOR_PORT_POLL_FIRST_MS, EMULATOR_PORT_POLL_MS, EMULATOR_PORT_POLL_RUNNING_MS } from './tunables.js';
import { killGroup, trackGroup, untrackGroup } from './child-reaper.js';
import type { ConsoleLog } from './console-log.js';
import { canConnect } from './probe.js';
import { liveGroupMembers } from './proc-stats.js';

/** How the process ended. `requested` is true when a stop or kill from us ended it. */
export interface ExitInfo {
  code: number | null;
  signal: NodeJS.Signals | null;
  requested: boolean;
  /** The stop's grace (ms) when the process outlived it and was SIGKILLed; null otherwise. */
  killedAfterGraceMs?: number | null;
  /** Why it could not be spawned at all (missing working directory, ...); "" otherwise. */
  error: string;
}

/**
 * starting: spawned, neither listening nor past the boot grace; running: its port accepts,
 * or it has stayed alive past the boot grace (a bot or worker never listens); stopping:
 * signalled; exited: gone.
 */
export type ProcessPhase = 'starting' | 'running' | 'stopping' | 'exited';

export interface AppProcessOptions {
  command: string;
  args: string[];
  cwd: string;
  env: Record<string, string>;
  /** The port the app is told to listen on; the process counts as running once it accepts there. */
  port: number;
  /** A process still alive this long after its spawn counts as running, listening or not. */
  bootGraceMs: number;
  log: ConsoleLog;
  /** Called on every phase change, so waiters re-check at once. */
  onChange: () => void;
}

/** After the process exits, how long stdio may stay open (a straggler holding the pipe) before we stop waiting for it. */
const STDIO_CLOSE_GRACE_MS = 500;
/** How long, at most, we wait for SIGKILLed group members to be gone, and how often we look. */
const GROUP_DRAIN_MAX_MS = 2_000;
const GROUP_DRAIN_POLL_MS = 10;
/** A loopback connect either succeeds or is refused at once; this only bounds a wedged listener. */
const CONNECT_TIMEOUT_MS = 500;

/**
 * One spawned app process, in its own process group.
 *
 * Invariants: stdout and stderr are always drained into the console log, so the
 * child never blocks on a full pipe; the group is killed whenever the leader exits
 * (a container stops as a whole); `exited` resolves exactly once, after the last
 * output of the process is in the log (or STDIO_CLOSE_GRACE_MS after exit).
 */
export class AppProcess {
  phase: ProcessPhase = 'starting';
  exit: ExitInfo | null = null;
  readonly pid: number | null;
  /** Resolves when the process has exited and its output is in the log. Never rejects. */
  readonly exited: Promise<void>;

  private readonly child: ChildProcess;
  private stopRequested = false;
  /** Set when a stop's grace ran out and SIGKILL followed. */
  private killedAfterGraceMs: number | null = null;
  private resolveExited!: () => void;
  private portTimer: NodeJS.Timeout | null = null;
  private graceTimer: NodeJS.Timeout | null = null;
  /** True once its port accepted a connection: it serves, as opposed to a worker that runs without listening. */
  listening = false;

  constructor(private readonly opts: AppProcessOptions) {
    this.exited = new Promise((resolve) => (this.resolveExited = resolve));
    this.child = spawn(opts.command, opts.args, {
      cwd: opts.cwd,
      env: opts.env,
      detached: true,
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    this.pid = this.child.pid ?? null;
    if (this.pid !== null) trackGroup(this.pid);

    for (const name of ['stdout', 'stderr'] as const) {
      const stream = this.child[name];
      stream?.setEncoding('utf8');
      stream?.on('data', (chunk: string) => opts.log.write(name, chunk));
      stream?.once('end', () => opts.log.end(name));
      stream?.on('error', () => undefined);
    }
    // A write to a process that just died must not crash the emulator.
    this.child.stdin?.on('error', () => undefined);

    let exitTimer: NodeJS.Timeout | null = null;
    this.child.once('exit', (code, signal) => {
      this.exit = { code, signal, requested: this.stopRequested, killedAfterGraceMs: this.killedAfterGraceMs, error: '' };
      if (this.pid !== null) killGroup(this.pid);
      exitTimer = setTimeout(() => this.finish(), STDIO_CLOSE_GRACE_MS);
    });
    this.child.once('close', () => {
      if (exitTimer) clearTimeout(exitTimer);
      this.finish();
    });
    this.child.once('error', (err) => {
      // Spawn failures (no pid) emit 'error' without 'exit'; errors on a spawned child (a failed kill) change nothing.
      if (this.pid !== null) return;
      this.exit = { code: null, signal: null, requested: false, error: err.message };
      this.finish();
    });

    if (this.pid !== null) {
      this.watchPort();
      this.graceTimer = setTimeout(() => void this.markRunning(), opts.bootGraceMs);
    }
  }

  get alive(): boolean {
    return this.phase !== 'exited';
  }

  /** Writes one line to the process's stdin (deployments.command). False when it is not running. */
  send(line: string): boolean {
    const stdin = this.child.stdin;
    if (!this.alive || !stdin || stdin.destroyed) return false;
    stdin.write(line.endsWith('\n') ? line : `${line}\n`);
    return true;
  }

  /** SIGTERM to the group, SIGKILL after `graceMs`; resolves once exited. */
  async stop(graceMs: number): Promise<void> {
    if (!this.alive || this.pid === null) return this.exited;
    this.stopRequested = true;
    if (this.phase !== 'stopping') {
      this.phase = 'stopping';
      this.opts.onChange();
    }
    killGroup(this.pid, 'SIGTERM');
    let timer: NodeJS.Timeout | undefined;
    const graceOver = new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(true), graceMs)));
    const forced = await Promise.race([this.exited.then(() => false), graceOver]);
    clearTimeout(timer);
    if (forced) {
      this.killedAfterGraceMs = graceMs;
      await this.kill();
    }
  }

  /** SIGKILL to the group; resolves once exited. */
  kill(): Promise<void> {
    if (this.alive && this.pid !== null) {
      this.stopRequested = true;
      if (this.phase !== 'stopping') {
        this.phase = 'stopping';
        this.opts.onChange();
      }
      killGroup(this.pid, 'SIGKILL');
    }
    return this.exited;
  }

  private finishing = false;

  private finish(): void {
    if (this.finishing) return;
    this.finishing = true;
    if (this.portTimer) clearTimeout(this.portTimer);
    if (this.graceTimer) clearTimeout(this.graceTimer);
    // Output from something that escaped the group must not keep arriving in this deployment's log.
    this.child.stdout?.destroy();
    this.child.stderr?.destroy();
    this.child.stdin?.destroy();
    void this.drainGroup().then(() => {
      if (this.pid !== null) untrackGroup(this.pid);
      this.phase = 'exited';
      this.opts.log.note(describeExit(this.exit));
      this.resolveExited();
      this.opts.onChange();
    });
  }

  /**
   * Waits (bounded) until no member of the group still runs, re-sending SIGKILL: a
   * container is stopped only when all of it is, and the port must be free for the
   * next start. SIGKILL takes effect asynchronously, hence the wait.
   */
  private async drainGroup(): Promise<void> {
    if (this.pid === null) return;
    const deadline = performance.now() + GROUP_DRAIN_MAX_MS;
    while (liveGroupMembers(this.pid).length > 0 && performance.now() < deadline) {
      killGroup(this.pid);
      await new Promise((resolve) => setTimeout(resolve, GROUP_DRAIN_POLL_MS));
    }
  }

  /**
   * starting -> running. What the app printed just before is already in the pipe: let
   * this loop turn read it, so an answer saying "running" carries the lines that led there.
   */
  private async markRunning(): Promise<void> {
    if (this.phase !== 'starting' || this.finishing) return;
    await new Promise((resolve) => setImmediate(resolve));
    if (this.phase !== 'starting' || this.finishing) return;
    this.phase = 'running';
    this.opts.onChange();
  }

  /**
   * Tries the port until it accepts, then marks the process running and listening. It
   * keeps trying after the boot grace made a worker running (slower), so an app that
   * binds late is still known to listen.
   */
  private watchPort(): void {
    let delay = EMULATOR_PORT_POLL_FIRST_MS;
    const next = (): void => {
      this.portTimer = setTimeout(() => void attempt(), delay);
      delay = Math.min(delay * 2, this.phase === 'starting' ? EMULATOR_PORT_POLL_MS : EMULATOR_PORT_POLL_RUNNING_MS);
    };
    const attempt = async (): Promise<void> => {
      this.portTimer = null;
      if (!this.watching()) return;
      const accepts = await canConnect(this.opts.port, CONNECT_TIMEOUT_MS);
      if (!this.watching()) return;
      if (accepts) {
        this.listening = true;
        await this.markRunning();
        return;
      }
      next();
    };
    next();
  }

  private watching(): boolean {
    return (this.phase === 'starting' || this.phase === 'running') && !this.finishing;
  }
}

function describeExit(exit: ExitInfo | null): string {
  if (exit === null) return '[emulator] process ended';
  if (exit.error !== '') return `[emulator] process could not be started: ${exit.error}`;
  // Like the panel's own line on a forced stop; the client never reads it (it times the stop: docs/decisions.md).
  if (exit.requested && exit.killedAfterGraceMs != null) return `[emulator] process did not exit within ${exit.killedAfterGraceMs / 1000} s of SIGTERM: killed (SIGKILL)`;
  if (exit.requested) return '[emulator] process stopped';
  if (exit.signal !== null) return `[emulator] process killed by ${exit.signal}`;
  return `[emulator] process exited with code ${exit.code ?? 'unknown'}`;
}
