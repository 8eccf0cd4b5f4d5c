/**
 * Shared by the watch integration tests: a session against the emulator, an event
 * recorder, and "wait until the volume equals the local tree" (bounded only by the
 * test timeout: no timing assertions).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { setTimeout as sleep } from 'node:timers/promises';
import { expect } from 'vitest';
import { loadConfig } from '../../src/config/config.js';
import type { RunningEmulator } from '../../src/emulator/index.js';
import { HostingClient, type ClientOptions } from '../../src/remote/client.js';
import { openSession, type Session } from '../../src/sync/session.js';
import type { CycleEvent, WatchDaemon, WatchEvent } from '../../src/watch/daemon.js';
import { CLI } from '../helpers/cli.js';
import { fileDigests } from '../helpers/tree.js';

/** Paths the default ignore rules keep local: they must never reach the volume. */
export const ignoredLocally = (rel: string): boolean =>
  rel === '.hostsync' || rel === 'node_modules' || rel.endsWith('/node_modules') || rel === '.git';

export function cliEnv(emu: RunningEmulator, deploymentId: string): Record<string, string> {
  return { HOSTSYNC_API_KEY: emu.apiKey, HOSTSYNC_BASE_URL: emu.baseUrl, HOSTSYNC_DEPLOYMENT: deploymentId };
}

/** A session for `dir`; `client` overrides build the client with other limits (a shortened rate window, quick retries). */
export async function watchSession(emu: RunningEmulator, dir: string, deploymentId: string, client?: Partial<ClientOptions>): Promise<Session> {
  const config = await loadConfig({ flags: { dir }, env: cliEnv(emu, deploymentId) });
  const session = await openSession(config);
  if (!client) return session;
  await session.client.close();
  const custom = new HostingClient({ baseUrl: config.baseUrl, apiKey: config.apiKey, deploymentId, ...client });
  return { ...session, client: custom, close: () => custom.close() };
}

export class Recorder {
  readonly events: WatchEvent[] = [];
  onEvent = (e: WatchEvent): void => {
    this.events.push(e);
  };
  cycles(): CycleEvent[] {
    return this.events.filter((e): e is CycleEvent => e.type === 'cycle');
  }
  /** Cycles recorded after `mark` (an earlier events.length). */
  cyclesSince(mark: number): CycleEvent[] {
    return this.events.slice(mark).filter((e): e is CycleEvent => e.type === 'cycle');
  }
  /** Resolves once an event matching `pred` has been recorded (the test timeout bounds it). */
  async waitFor(pred: (e: WatchEvent) => boolean, from = 0): Promise<WatchEvent> {
    for (;;) {
      const hit = this.events.slice(from).find(pred);
      if (hit) return hit;
      await sleep(20);
    }
  }
}

/**
 * Longest wait for the daemon's next cycle before the trees are compared again anyway. Only
 * a cycle changes the volume, so comparing sooner would only hash both trees again for
 * nothing; the bound covers a change that comes some other way.
 */
const RECOMPARE_MS = 1_000;

/** Waits until the daemon is idle and the volume holds exactly the local tree (minus ignored paths), then asserts it. */
export async function converged(daemon: WatchDaemon, root: string, volume: string): Promise<Map<string, string>> {
  for (;;) {
    await daemon.whenIdle();
    // Read before the trees: a cycle that ends while they are hashed counts as the next one.
    const cycles = daemon.cycles;
    let local: Map<string, string>;
    let remote: Map<string, string>;
    try {
      [local, remote] = await Promise.all([fileDigests(root, ignoredLocally), fileDigests(volume, (rel) => rel === '.hostsync')]);
    } catch (err) {
      // A file vanished while it was read (the daemon or the test is still changing things).
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
      await sleep(30);
      continue;
    }
    if (sameMap(local, remote)) {
      expect(remote).toEqual(local);
      return local;
    }
    // Not there yet (a watcher event not delivered, a cycle to come): wait for the next cycle
    // to end. Hashing both trees every 30 ms instead spent 18 s of CPU in a test that never
    // converged (60 s timeout) on a loaded machine, and the same hashing on every slow save.
    const until = Date.now() + RECOMPARE_MS;
    while (daemon.cycles === cycles && Date.now() < until) await sleep(20);
  }
}

function sameMap(a: Map<string, string>, b: Map<string, string>): boolean {
  if (a.size !== b.size) return false;
  for (const [k, v] of a) if (b.get(k) !== v) return false;
  return true;
}

export function requestsOf(cycles: readonly CycleEvent[]): number {
  return cycles.reduce((n, c) => n + c.requests, 0);
}

/** The built CLI's `watch --json`, with its stdout parsed line by line. */
export class WatchProcess {
  readonly child: ChildProcess;
  readonly events: Record<string, unknown>[] = [];
  stderr = '';
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;

  constructor(emu: RunningEmulator, root: string, deploymentId: string, extra: string[] = [], extraEnv: Record<string, string> = {}) {
    const env = { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', NO_COLOR: '1', ...cliEnv(emu, deploymentId), ...extraEnv };
    this.child = spawn(process.execPath, [CLI, 'watch', '--json', '--dir', root, ...extra], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let buf = '';
    this.child.stdout!.on('data', (d: Buffer) => {
      buf += d.toString();
      let nl: number;
      while ((nl = buf.indexOf('\n')) !== -1) {
        const line = buf.slice(0, nl);
        buf = buf.slice(nl + 1);
        if (line.trim()) this.events.push(JSON.parse(line) as Record<string, unknown>);
      }
    });
    this.child.stderr!.on('data', (d: Buffer) => (this.stderr += d.toString()));
    this.exited = new Promise((resolve) => this.child.on('exit', (code, signal) => resolve({ code, signal })));
  }

  /**
   * Resolves once an event matching `pred` has come. Bounded below the test timeout, and
   * ended by the child's exit: a test that times out in a wait never reaches the `finally`
   * that kills the child, which then outlives the run.
   */
  async waitFor(pred: (e: Record<string, unknown>) => boolean, boundMs = 45_000): Promise<Record<string, unknown>> {
    const until = Date.now() + boundMs;
    for (;;) {
      const hit = this.events.find(pred);
      if (hit) return hit;
      if (this.child.exitCode !== null || this.child.signalCode !== null) throw new Error(`hostsync watch exited (${this.child.exitCode ?? this.child.signalCode}) before the event: ${this.stderr.slice(-500)}`);
      if (Date.now() > until) {
        this.child.kill('SIGKILL');
        throw new Error(`no such event from hostsync watch within ${boundMs} ms: ${this.stderr.slice(-500)}`);
      }
      await sleep(20);
    }
  }
}

