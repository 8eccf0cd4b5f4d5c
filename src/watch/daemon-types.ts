/**
 * What the watch daemon takes (WatchOptions, WatchTunables) and tells (WatchEvent, one
 * CycleEvent per cycle), and the handle it gives back (WatchDaemon): the vocabulary the
 * porcelain, the app layer and the tests share with daemon.ts.
 */
import {
  WATCH_BULK_PATHS,
  WATCH_BULK_QUIET_MS,
  WATCH_CACHE_SAVE_MS,
  WATCH_DEBOUNCE_MS,
  WATCH_MAX_WAIT_MS,
  WATCH_REMOTE_POLL_MS,
  WATCH_RETRY_MAX_MS,
  WATCH_RETRY_MIN_MS,
  WATCH_SHUTDOWN_GRACE_MS,
  WATCH_PACE_BURST_SHARE,
  WATCH_PACE_RATE_SHARE,
  WATCH_STORM_PATHS,
  WATCH_VERIFY_IDLE_MS,
} from './tunables.js';
import type { StatCache } from '../local/statcache.js';
import type { HostingClient } from '../remote/client.js';
import type { WatchAnswer, WatchStatusAnswer } from './query-protocol.js';
import type { ExitCode } from '../errors.js';
import type { ApplyResult } from '../api/types.js';
import type { HealthReport } from '../sync/apply/apply.js';
import type { StepFailure } from '../sync/push/execute.js';
import type { ChangeCounts } from '../sync/push/push-report.js';
import type { RemoteShelf } from '../sync/session.js';
import type { Change, Conflict, Drift } from '../model/types.js';
import { type Clock, type StopResult } from './scheduler.js';
import { startWatcherBackend, type WatcherBackend } from './watcher-backend.js';
import type { RestartGuard } from '../sync/apply/restart-guard.js';
import { type RestartEvent } from './restart-pacer.js';

export interface WatchTunables {
  debounceMs: number;
  bulkPaths: number;
  bulkQuietMs: number;
  maxWaitMs: number;
  pollMs: number;
  retryMinMs: number;
  retryMaxMs: number;
  shutdownGraceMs: number;
  stormPaths: number;
  cacheSaveMs: number;
  /** Quiet time after a cycle before its writes are verified by a read of their own. */
  verifyIdleMs: number;
  /** Budget pacing (pacer.ts). */
  paceRateShare: number;
  paceBurstShare: number;
}

export const DEFAULT_WATCH_TUNABLES: WatchTunables = {
  debounceMs: WATCH_DEBOUNCE_MS,
  bulkPaths: WATCH_BULK_PATHS,
  bulkQuietMs: WATCH_BULK_QUIET_MS,
  maxWaitMs: WATCH_MAX_WAIT_MS,
  pollMs: WATCH_REMOTE_POLL_MS,
  retryMinMs: WATCH_RETRY_MIN_MS,
  retryMaxMs: WATCH_RETRY_MAX_MS,
  shutdownGraceMs: WATCH_SHUTDOWN_GRACE_MS,
  stormPaths: WATCH_STORM_PATHS,
  cacheSaveMs: WATCH_CACHE_SAVE_MS,
  verifyIdleMs: WATCH_VERIFY_IDLE_MS,
  paceRateShare: WATCH_PACE_RATE_SHARE,
  paceBurstShare: WATCH_PACE_BURST_SHARE,
};

/**
 * Requests a one-file change cycle sends (scoped-sync.ts): its scoped read, its write, and
 * the apply unless --no-apply (the base record's batch waits for the quiet moment, with the
 * verifying read: WATCH_VERIFY_IDLE_MS). The pacer starts a cycle only when its bucket and the key's window hold this
 * many (pacer.ts); an estimate short of the real count overdraws the bucket and lets a
 * cycle start without room in the window for its last request, which then waits in the
 * client's queue mid-cycle. test/watch/scoped.test.ts holds it to what a cycle sends.
 */
export function changeCycleCost(noApply: boolean): number {
  return noApply ? 2 : 3;
}

/** 'verify': the idle-time check of writes earlier cycles sent (scoped-sync.ts). */
export type CycleTrigger = 'start' | 'change' | 'rescan' | 'poll' | 'verify';

export interface CycleEvent {
  type: 'cycle';
  time: Date;
  trigger: CycleTrigger;
  changes: Change[];
  counts: ChangeCounts;
  /** Requests this cycle sent (API and node uploads), and how many met a 429. */
  requests: number;
  byOperation: Record<string, number>;
  rateLimited: number;
  apply: ApplyResult | null;
  /** The verdict after apply (among others, what kind of app it was judged), or null. */
  health?: HealthReport | null;
  healthy: boolean | null;
  conflicts: Conflict[];
  drift: Drift[];
  failures: StepFailure[];
  warnings: string[];
  /** From the batch's first watcher event to apply answering (or to the verified push, without apply); null for start-up and polls. */
  ms: number | null;
  /** The cycle alone: rescan + push + apply. */
  cycleMs: number;
  /** Nothing new to tell a human (a poll or rescan that found nothing); --json still prints it. */
  quiet: boolean;
  /** After a cycle that restarted the app: the day's restarts (restart-pacer.ts) and the limit. */
  restarts?: { today: number; limit: number | null };
}

export type WatchEvent =
  | CycleEvent
  /** Restarts of a worker: put off, made, held in a crash loop, refused at the day's limit (restart-pacer.ts). */
  | RestartEvent
  /** The watcher is watching (the initial sync may still be running: its cycle event follows). */
  | { type: 'ready'; backend: 'native' | 'chokidar'; watcherMs: number }
  | { type: 'waiting'; message: string; retryInMs: number; pending: number }
  | { type: 'recovered'; afterMs: number }
  | { type: 'error'; message: string; retryInMs: number }
  | { type: 'refused'; message: string }
  /**
   * The mass-delete guard tripped on deletions accumulated within the window: `paths` are
   * held (left on the deployment) until confirmDeletes(); everything else keeps syncing.
   * `deletes` of `tracked` is the guard's count, the window's earlier deletions included.
   */
  | { type: 'held'; paths: string[]; deletes: number; tracked: number }
  | { type: 'rescan'; reason: string }
  | { type: 'fatal'; message: string; exitCode: ExitCode }
  | { type: 'stopped'; result: StopResult };

export interface WatchOptions {
  noApply?: boolean;
  backend?: WatcherBackend;
  tunables?: Partial<WatchTunables>;
  onEvent?: (event: WatchEvent) => void;
  clock?: Clock;
  /** Starts the file watcher; default startWatcherBackend (a test double drops events here). */
  startWatcher?: typeof startWatcherBackend;
  /** The command the lock names to another hostsync it refuses ('dev' when `hostsync dev` runs the watch). */
  lockAs?: string;
  /**
   * Works out a whole `status` for a command that asks over the query socket (the app layer
   * provides it: it is a command's work, not the daemon's); without it the daemon answers
   * only which paths changed. `own.changed` is the daemon's own answer of what changed, for
   * the status's local side (asked in-process: no socket, no second probe); `own.connections`
   * the client whose warm connections the status's requests take.
   */
  answerStatus?: (config: string, own: OwnAnswers) => Promise<WatchStatusAnswer>;
  /** The restart guard installed on the session's client: restarts are then paced (restart-pacer.ts) and reported. */
  restarts?: RestartGuard;
}

/** What the daemon lends a status it works out for a command (sync/session.ts, Lent). */
export interface OwnAnswers {
  changed: () => Promise<WatchAnswer>;
  connections: HostingClient;
  /** The daemon's stat cache, current with its scans: the status reads no cache file. */
  cache: StatCache;
  /** Where a status keeps its whole-remote read for the next one (sync/session.ts RemoteShelf). */
  remote?: RemoteShelf;
}

export interface WatchEnd {
  result: StopResult;
  /** Set when a configuration error stopped the daemon. */
  fatal?: { message: string; exitCode: ExitCode };
}

export interface WatchDaemon {
  /** Which watcher runs. */
  readonly backend: 'native' | 'chokidar';
  /** Stops watching, lets the cycle in flight finish (bounded), saves state, releases the lock. Idempotent. */
  stop(): Promise<StopResult>;
  /** Settles when the daemon has stopped, by stop() or a fatal error. */
  readonly done: Promise<WatchEnd>;
  /** Resolves once no cycle runs and no change is pending (tests, benchmarks). */
  whenIdle(): Promise<void>;
  /** Cycles completed (any outcome). */
  readonly cycles: number;
  /** Lets the held deletions (the last `held` event) through on the next cycle; false when none are held. */
  confirmDeletes(): boolean;
}

