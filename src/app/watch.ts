/**
 * `hostsync watch` as a library: `watch(options)` returns a handle at once; the daemon
 * starts on the next tick (so listeners attached right after the call see every event)
 * and reports WatchEvents, the very objects `watch --json` prints one per line. It never
 * prints and never exits the process: a fatal problem (bad configuration, a rejected key,
 * another hostsync holding the lock) is a `fatal` event, and `done` resolves with it.
 */
import type { Config } from '../config/config.js';
import type { ExitCode } from '../errors.js';
import type { StepFailure } from '../sync/push/execute.js';
import { changedPaths } from '../model/change.js';
import { failureTail } from '../sync/console-lines.js';
import type { ChangeCounts } from '../sync/push/push.js';
import type { Session } from '../sync/session.js';
import type { BudgetView } from '../remote/client.js';
import { startWatch, type CycleEvent, type WatchDaemon, type WatchEvent as DaemonEvent } from '../watch/daemon.js';
import type { StopResult } from '../watch/scheduler.js';
import type { WatcherBackend } from '../watch/watcher-backend.js';
import { connect, type ConnectionOptions } from './options.js';
import { statusAnswerer } from './status-for-watch.js';
import { changeItem, conflictItem, driftItem, type ChangeItem, type ConflictItem, type DriftItem } from './push.js';
import { failure, type FailureFields } from './result.js';
import { guardRestarts } from './restart-rules.js';

/** Log lines a cycle event carries when the app is unhealthy after it. */
export const CRASH_LOG_LINES = 20;

export interface WatchOptions extends ConnectionOptions {
  /** Call deployments.apply after each cycle that changed something; default true. */
  apply?: boolean;
  /** File watcher backend; default 'auto' (chokidar below 20k files, @parcel/watcher above). */
  watcher?: WatcherBackend;
  /** The command the lock names to another hostsync it refuses; default 'watch' (`hostsync dev` says 'dev'). */
  lockAs?: string;
}

/** One sync cycle: what `watch --json` prints for it. */
export interface WatchCycleEvent {
  type: 'cycle';
  /** ISO time the cycle ended. */
  time: string;
  trigger: CycleEvent['trigger'];
  changes: ChangeCounts;
  /** Paths the cycle's changes touch (both sides of a rename). */
  paths: string[];
  /** The cycle's changes, as push results list them. */
  planned: ChangeItem[];
  requests: number;
  byOperation: Record<string, number>;
  rateLimited: number;
  /** The deployment's state after apply, or null when nothing was applied. */
  state: string | null;
  /** HTTP status of the app's URL after apply, or null (also for a worker, which serves no HTTP). */
  http: number | null;
  /** What the app was judged as after apply (`health` in hostsync.json, or auto), or null. */
  kind: 'web' | 'worker' | null;
  healthy: boolean | null;
  /** From the first save of the batch to apply answering; null for start-up and polls. */
  ms: number | null;
  cycleMs: number;
  conflicts: ConflictItem[];
  drift: DriftItem[];
  failures: StepFailure[];
  warnings: string[];
  /** Nothing new to tell a human (a poll or rescan that found nothing); the CLI prints it only with --json. */
  quiet: boolean;
  /** When the app is unhealthy after the cycle: its last log lines and the service's hint. */
  logs?: string[];
  hint?: string | undefined;
  /** When the cycle restarted the app: the deployment's restarts in 24 hours and "restartsPerDay". */
  restarts?: { today: number; limit: number | null };
}

type Timed<T> = T extends unknown ? Omit<T, 'time'> & { time: string } : never;

/** Every event of a watch, as `watch --json` prints it and `on()` hands it. */
export type WatchEvent = WatchCycleEvent | Timed<Exclude<DaemonEvent, CycleEvent>>;
export type WatchEventType = WatchEvent['type'];

/** The JSON / library form of a daemon event. */
export function watchEvent(e: DaemonEvent): WatchEvent {
  if (e.type !== 'cycle') return { ...e, time: new Date().toISOString() } as WatchEvent;
  return {
    type: 'cycle',
    time: e.time.toISOString(),
    trigger: e.trigger,
    changes: { ...e.counts },
    paths: changedPaths(e.changes),
    planned: e.changes.map(changeItem),
    requests: e.requests,
    byOperation: e.byOperation,
    rateLimited: e.rateLimited,
    // A failed install ("install": "on-change") is judged without an apply: its verdict is the news.
    state: e.apply?.state ?? (e.healthy === false && e.health ? e.health.state : null),
    http: e.apply?.http?.url && e.health?.kind !== 'worker' ? e.apply.http.status : null,
    kind: e.health?.kind ?? null,
    healthy: e.healthy,
    ms: e.ms,
    cycleMs: e.cycleMs,
    conflicts: e.conflicts.map(conflictItem),
    drift: e.drift.map(driftItem),
    failures: e.failures,
    warnings: e.warnings,
    quiet: e.quiet,
    ...(e.restarts ? { restarts: e.restarts } : {}),
    // As push shows them: this start's tail, led by its first error line when the tail has lost it.
    ...(e.apply && e.healthy === false ? { logs: failureTail(e.apply.logs, CRASH_LOG_LINES), hint: e.apply.hint } : {}),
    ...(!e.apply && e.healthy === false && e.health ? { logs: e.health.logs, hint: e.health.reason } : {}),
  };
}

/** How a watch ended: `ok` unless a fatal problem stopped it (then `error` and `exitCode`). */
export interface WatchEnd extends Partial<FailureFields> {
  ok: boolean;
  /** null when it never started. */
  result: StopResult | null;
}

/** A running watch, for the CLI: the daemon's own events, and ways to stop it. */
export interface WatchRun {
  /** True once the daemon runs (lock taken, watcher started). */
  readonly started: boolean;
  /** Stops watching, lets the cycle in flight finish (bounded), releases the lock. */
  stop(): Promise<WatchEnd>;
  /** Cancels every request now (a second Ctrl-C, or a stop while still starting). */
  abort(): Promise<void>;
  /** Lets the deletions of the last `held` event through; false when none are held. */
  confirmDeletes(): boolean;
  readonly done: Promise<WatchEnd>;
}

export interface WatchHooks {
  onEvent(e: DaemonEvent): void;
  /** Called once the configuration is resolved, before the daemon starts; `budget` reads the key's rate budget as the watch's client sees it. */
  onConfig?(config: Config, budget: () => BudgetView): void;
}

/** Starts a watch on the next tick; every outcome, even a bad configuration, arrives as events and `done`. */
export function startWatching(opts: WatchOptions, hooks: WatchHooks): WatchRun {
  let session: Session | null = null;
  let daemon: WatchDaemon | null = null;
  let stopRequested = false;
  let resolveDone!: (end: WatchEnd) => void;
  const done = new Promise<WatchEnd>((r) => (resolveDone = r));

  const fail = (err: unknown): WatchEnd => {
    const apiKey = session?.config.apiKey ?? opts.apiKey ?? (opts.env ?? process.env).HOSTSYNC_API_KEY;
    const f = failure({ ok: false, result: null as StopResult | null }, err, apiKey);
    hooks.onEvent({ type: 'fatal', message: f.error, exitCode: f.exitCode as ExitCode });
    return f;
  };

  const run = async (): Promise<WatchEnd> => {
    try {
      session = await connect(opts, 'watch and push to', null);
      const client = session.client;
      hooks.onConfig?.(session.config, () => client.budget());
      const restarts = await guardRestarts(session, { onUnavailable: (message) => hooks.onEvent({ type: 'restart', action: 'warning', message }) });
      daemon = await startWatch(session, { noApply: opts.apply === false, backend: opts.watcher ?? 'auto', onEvent: hooks.onEvent, answerStatus: statusAnswerer(opts), restarts, ...(opts.lockAs ? { lockAs: opts.lockAs } : {}) });
    } catch (err) {
      await session?.close().catch(() => undefined);
      return fail(err);
    }
    if (stopRequested) void daemon.stop();
    const end = await daemon.done;
    await session.close().catch(() => undefined);
    return end.fatal ? { ok: false, result: end.result, error: end.fatal.message, exitCode: end.fatal.exitCode } : { ok: true, result: end.result };
  };
  void Promise.resolve().then(run).then(resolveDone);

  return {
    get started() {
      return daemon !== null;
    },
    stop: () => {
      stopRequested = true;
      if (daemon) void daemon.stop();
      return done;
    },
    abort: async () => {
      stopRequested = true;
      await session?.client.destroy().catch(() => undefined);
    },
    confirmDeletes: () => daemon?.confirmDeletes() ?? false,
    done,
  };
}

type Listener = (e: WatchEvent) => void;

/** What `watch()` returns. */
export interface WatchHandle {
  /** Listens to one type of event, or to all with '*'. */
  on<T extends WatchEventType>(type: T, fn: (e: Extract<WatchEvent, { type: T }>) => void): WatchHandle;
  on(type: '*', fn: (e: WatchEvent) => void): WatchHandle;
  off(type: WatchEventType | '*', fn: (e: never) => void): WatchHandle;
  /** Stops watching (the cycle in flight finishes, bounded), releases the lock; resolves with how it ended. */
  stop(): Promise<WatchEnd>;
  /** Lets the deletions of the last `held` event through on the next cycle; false when none are held. */
  confirmDeletes(): boolean;
  /** Resolves when the watch has ended, by stop() or a fatal problem. */
  readonly done: Promise<WatchEnd>;
}

/** Library form of `hostsync watch`. */
export function watch(opts: WatchOptions = {}): WatchHandle {
  const listeners = new Map<string, Set<Listener>>();
  const emit = (e: WatchEvent): void => {
    for (const key of [e.type, '*']) {
      for (const fn of listeners.get(key) ?? []) {
        try {
          fn(e);
        } catch {
          // A listener's own error must not stop the daemon.
        }
      }
    }
  };
  const run = startWatching(opts, { onEvent: (e) => emit(watchEvent(e)) });
  const handle: WatchHandle = {
    on(type: string, fn: Listener) {
      if (!listeners.has(type)) listeners.set(type, new Set());
      listeners.get(type)!.add(fn);
      return handle;
    },
    off(type: string, fn: (e: never) => void) {
      listeners.get(type)?.delete(fn as Listener);
      return handle;
    },
    stop: () => run.stop(),
    confirmDeletes: () => run.confirmDeletes(),
    done: run.done,
  } as WatchHandle;
  return handle;
}
