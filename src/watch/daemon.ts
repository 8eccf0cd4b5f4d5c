/**
 * `hostsync watch` as a library: lock -> initial full sync (a push, conflicts included)
 * -> watcher -> one push per coalesced batch of changes, re-hashing only touched paths,
 * plus a periodic drift poll. The daemon never prints: it reports WatchEvents, and the
 * porcelain (src/cli/commands/watch.ts, render.ts here) turns them into lines.
 *
 * Invariants:
 * - One daemon or push per root and deployment (the lock in .hostsync/<deployment>/).
 * - Every cycle is a push() against the incrementally maintained local snapshot, so it
 *   inherits push's safety: conflicts are reported and left alone, and the base is saved
 *   only after verification, so a cycle killed at any instant (SIGKILL, abandoned on
 *   SIGINT) is repaired by the next one.
 * - A failed cycle loses nothing: its paths go back into the next batch. Only a
 *   configuration error (rejected key, missing scope) stops the daemon, or a project that
 *   vanished (exit 3). (An apply owed by a cycle that failed after its files landed is
 *   push's own apply-pending marker.)
 * - A root deleted, replaced, emptied or stripped of the hostsync.json that names the
 *   deployment is never pushed as deletions (sync/push/vanished.ts): the cycle that finds it
 *   sends nothing, and the daemon stops without writing state into the folder (a state
 *   write would create it again).
 */
import { rm, writeFile } from 'node:fs/promises';
import { setTimeout as delay } from 'node:timers/promises';
import { hostname } from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { WATCH_BULK_PATHS, WATCH_BULK_QUIET_MS, WATCH_CACHE_SAVE_MS, WATCH_DEBOUNCE_MS, WATCH_DELETE_WINDOW_MS, WATCH_VANISHED_RECHECK_MS, WATCH_DIR_REBUILD_MS, WATCH_DIR_REBUILD_POLL_MS, WATCH_MAX_WAIT_MS, WATCH_REMOTE_POLL_MS, WATCH_RETRY_MAX_MS, WATCH_RETRY_MIN_MS, WATCH_SHUTDOWN_GRACE_MS, WATCH_PACE_BURST_SHARE, WATCH_PACE_RATE_SHARE, WATCH_STATUS_SAMPLE_PATHS, WATCH_STORM_PATHS, WATCH_VERIFY_IDLE_MS, WATCH_QUERY_COOKIE_TIMEOUT_MS, WATCH_REWALK_AGAIN_MS, WATCH_REWALK_WHOLE_MAX_FILES } from './tunables.js';
import { watchCookieName } from '../local/temp-names.js';
import type { StatCache } from '../local/statcache.js';
import type { HostingClient } from '../remote/client.js';
import { queryEndpoint, viewKey, WATCH_QUERY_VERSION, type WatchAnswer, type WatchStatusAnswer } from './query-protocol.js';
import { startQueryServer, type QueryServer } from './query-server.js';
import type { ExitCode } from '../errors.js';
import type { Watcher } from '../local/watcher.js';
import type { ClientStats } from '../remote/client.js';
import type { ApplyResult } from '../api/types.js';
import type { Lock } from '../state/lock.js';
import type { HealthReport } from '../sync/apply/apply.js';
import type { StepFailure } from '../sync/push/execute.js';
import { emptyPushReport, push, type ChangeCounts, type PushReport } from '../sync/push/push.js';
import { ScopedSync, type ScopedCycleOptions } from '../sync/watch-cycle/scoped-sync.js';
import { DriftPoll } from '../sync/watch-cycle/drift-poll.js';
import { markProject, ProjectVanishedError, rootHoldsSynced, syncDirNow, vanishedReason, type ProjectMark, type TreeCount } from '../sync/push/vanished.js';
import { assertSyncDirInside } from '../config/sync-dir.js';
import type { RemoteShelf, Session } from '../sync/session.js';
import type { RemoteCache } from '../state/store.js';
import type { Change, Conflict, Drift } from '../model/types.js';
import { Backoff } from './backoff.js';
import { LocalTree } from './local-tree.js';
import { classifyFailure } from './failure.js';
import type { Batch } from './schedule.js';
import { CycleScheduler, type Clock, type CycleOutcome, type StopResult } from './scheduler.js';
import { startWatcherBackend, type WatcherBackend } from './watcher-backend.js';
import { WatchStatusWriter } from './status-writer.js';
import type { WatchCycleSummary, WatchStatusRecord } from '../state/watch-status.js';
import type { RestartGuard } from '../sync/apply/restart-guard.js';
import { RestartPacer, type RestartEvent } from './restart-pacer.js';
import { WATCH_CRASH_LOOP_STARTS } from './tunables.js';

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

function diffOps(before: ClientStats, after: ClientStats): Record<string, number> {
  const out: Record<string, number> = {};
  for (const [op, n] of Object.entries(after.byOperation)) {
    const d = n - (before.byOperation[op] ?? 0);
    if (d > 0) out[op] = d;
  }
  return out;
}

/** A push report that also tells what the cycle's verification step (a scoped cycle before it) sent. */
function withEarlier(report: PushReport, earlier: PushReport): PushReport {
  const counts = { ...report.counts };
  for (const k of Object.keys(counts) as (keyof ChangeCounts)[]) counts[k] += earlier.counts[k];
  const known = new Set(report.conflicts.map((c) => c.path));
  return {
    ...report,
    counts,
    changes: [...earlier.changes, ...report.changes],
    conflicts: [...report.conflicts, ...earlier.conflicts.filter((c) => !known.has(c.path))],
    failures: [...earlier.failures, ...report.failures],
    warnings: [...earlier.warnings, ...report.warnings],
  };
}

/** Identifies the set of conflicts and drift, to tell a human only when it changes. */
function remoteSignature(report: Pick<PushReport, 'conflicts' | 'drift'>): string {
  return JSON.stringify([report.conflicts.map((c) => [c.path, c.reason]), report.drift.map((d) => [d.path, d.kind])]);
}

/**
 * Takes the lock and starts: the initial full sync runs at once, the watcher starts
 * beside it. Throws (exit 3) when another hostsync holds the lock.
 */
export async function startWatch(session: Session, opts: WatchOptions = {}): Promise<WatchDaemon> {
  const lock = await session.hold(opts.lockAs ?? 'watch');
  try {
    const daemon = new Daemon(session, lock, opts);
    await daemon.start();
    return daemon;
  } catch (err) {
    await lock.release();
    throw err;
  }
}

class Daemon implements WatchDaemon {
  backend: 'native' | 'chokidar' = 'chokidar';
  cycles = 0;
  readonly done: Promise<WatchEnd>;

  private readonly t: WatchTunables;
  private readonly emit: (e: WatchEvent) => void;
  private readonly scheduler: CycleScheduler;
  private readonly backoff: Backoff;
  /** Change cycles: scoped reads, verification folded into the next read (scoped-sync.ts). */
  private readonly scoped: ScopedSync;
  /** Drift polls at one request each, whatever the tree size (drift-poll.ts). */
  private readonly drift: DriftPoll;
  private watcher: Watcher | null = null;
  /** The local snapshot, and whether it is as last pushed: an identical rescan needs no request. */
  private readonly tree = new LocalTree();
  private lastSignature = '';
  private lastRefusal = '';
  private scanStarted = false;
  /** A push has completed: cycles after it are changes, rescans and polls, not the start-up sync. */
  private synced = false;
  /** The last whole-remote read a status made (RemoteShelf): the next status asks with its digest. */
  private statusRemote: RemoteCache | null = null;
  private failingSince: number | null = null;
  /** Deletions made within WATCH_DELETE_WINDOW_MS, for the mass-delete guard. */
  private deletions: { at: number; count: number }[] = [];
  /** Deletions the guard holds back, and whether the user let them through. */
  private held: string[] = [];
  private deletesConfirmed = false;
  private cacheSavedAt = 0;
  private stopping: Promise<StopResult> | null = null;
  private fatal: WatchEnd['fatal'];
  /** The project as watch found it at start, and whether it has vanished since (then no state is written). */
  private project: ProjectMark | null = null;
  private vanished = false;
  private resolveDone!: (end: WatchEnd) => void;
  /** What `hostsync status` reads (.hostsync/<deployment>/watch.json). */
  private readonly status: WatchStatusWriter;
  private readonly startedAt = new Date();
  private lastCycle: WatchCycleSummary | null = null;
  /** The batch of the cycle running now: its paths are still pending until it ends. */
  private runningBatch: Batch | null = null;
  /** Answers `status` and `diff` (query-server.ts); null when the platform gives no endpoint. */
  private query: QueryServer | null = null;
  /** Probe files written for a query, each resolved when the watcher reports it. */
  private readonly cookies = new Map<string, () => void>();
  /** Restarts, paced to `restartMinSeconds` (0 for a web app: none); null without a guard. */
  private readonly pacer: RestartPacer | null = null;
  /** The second look at folders a burst removed entries from (WATCH_REWALK_AGAIN_MS), and the folders it touched. */
  private rewalkTimer: NodeJS.Timeout | null = null;
  private readonly rewalkAgain = new Set<string>();
  private rewalkedAgain = new Set<string>();

  constructor(
    private readonly session: Session,
    private readonly lock: Lock,
    private readonly opts: WatchOptions,
  ) {
    this.t = { ...DEFAULT_WATCH_TUNABLES, ...opts.tunables };
    const onEvent = opts.onEvent ?? (() => undefined);
    this.emit = (e) => {
      this.noteForStatus(e);
      onEvent(e);
    };
    this.status = new WatchStatusWriter(session.stateDir, () => this.statusRecord());
    this.backoff = new Backoff(this.t.retryMinMs, this.t.retryMaxMs);
    this.scoped = new ScopedSync(session);
    if (opts.restarts) {
      this.pacer = new RestartPacer({
        client: session.client, guard: opts.restarts, store: session.store, health: session.config.health, applyWaitSeconds: session.config.applyWaitSeconds,
        crashLoop: WATCH_CRASH_LOOP_STARTS, cycling: () => this.scheduler.running, cycleSettled: () => this.scheduler.settled(), emit: (e) => this.emit(e),
      }).install();
    }
    this.drift = new DriftPoll(session, this.scoped);
    this.done = new Promise((resolve) => (this.resolveDone = resolve));
    this.scheduler = new CycleScheduler({
      tunables: { debounceMs: this.t.debounceMs, bulkPaths: this.t.bulkPaths, bulkQuietMs: this.t.bulkQuietMs, maxWaitMs: this.t.maxWaitMs, pollMs: this.t.pollMs },
      stormPaths: this.t.stormPaths,
      run: (batch) => this.cycle(batch),
      crashRetryMs: this.t.retryMaxMs,
      onCrash: (err) => this.emit({ type: 'error', message: classifyFailure(err, this.session.config.apiKey).message, retryInMs: this.t.retryMaxMs }),
      ...(opts.clock ? { clock: opts.clock } : {}),
      budget: () => session.client.budget(),
      cycleCost: changeCycleCost(opts.noApply ?? false),
      pace: { rateShare: this.t.paceRateShare, burstShare: this.t.paceBurstShare },
    });
  }

  async start(): Promise<void> {
    this.project = await markProject(this.session.config);
    this.scheduler.rescanAll();
    this.scheduler.start();
    const t0 = performance.now();
    try {
      const started = await this.startWatcher();
      this.watcher = started.watcher;
      this.backend = started.backend;
      if (this.stopping) {
        // Stopped (a signal, a fatal error) while the watcher was starting: it is ours to close.
        await this.watcher.close().catch(() => undefined);
        return;
      }
    } catch (err) {
      await this.scheduler.stop(this.t.shutdownGraceMs);
      await this.status.remove();
      throw err;
    }
    // The initial scan may have read files before the watcher saw their edits: look again.
    // With the stat cache this is a stat per file, and an unchanged tree costs no request.
    if (this.scanStarted) this.scheduler.rescanAll();
    await this.listen();
    this.emit({ type: 'ready', backend: this.backend, watcherMs: Math.round(performance.now() - t0) });
  }

  /** The file watcher on the synced root, its events feeding the scheduler. */
  private startWatcher(): ReturnType<typeof startWatcherBackend> {
    return (this.opts.startWatcher ?? startWatcherBackend)(
      {
        root: this.session.config.root,
        matcher: this.session.matcher,
        onEvents: (paths) => {
          this.scheduler.touch(paths);
          this.status.update();
        },
        onError: (err) => {
          this.emit({ type: 'rescan', reason: `watcher error: ${err.message}` });
          this.scheduler.rescanAll();
        },
        onRescan: (reason) => {
          this.emit({ type: 'rescan', reason });
          this.scheduler.rescanAll();
        },
        onCookie: (rel) => this.cookies.get(rel)?.(),
      },
      this.opts.backend ?? 'auto',
    );
  }

  /** Serves `status` and `diff` (query-protocol.ts). A socket that cannot be made only means they scan. */
  private async listen(): Promise<void> {
    const endpoint = queryEndpoint(this.session.stateDir);
    if (endpoint === null) return;
    const status = this.opts.answerStatus ? (config: string) => this.answerStatus(config) : undefined;
    this.query = await startQueryServer(endpoint, { changes: () => this.answerQuery(), ...(status ? { status } : {}) }).catch(() => null);
  }

  /**
   * A whole `status` for a command, its preparation (the configuration, the session, the
   * ignore rules, the watch's record) done while the probe file makes its round trip
   * through the watcher (about 50 ms: @parcel/watcher batches its events), not after it.
   * Invariant: what changed is taken only once the probe is reported (every event before
   * the question is then in), and before any request: a status costs its two requests,
   * never a second set for an answer worked out too early.
   */
  private async answerStatus(config: string): Promise<WatchStatusAnswer> {
    const answer = this.opts.answerStatus!;
    const { client: connections, cache } = this.session;
    const remote: RemoteShelf = { get: () => this.statusRemote, set: (c) => void (this.statusRemote = c) };
    // Only the native watcher answers (answerQuery says why): no probe file for the others.
    if (this.watcher === null || this.backend !== 'native') return answer(config, { changed: () => this.answerQuery(), connections, cache, remote });
    const probed = this.probeWatcher();
    const changed = async (): Promise<WatchAnswer> =>
      (await probed) ? this.answerQuery('reported') : { v: WATCH_QUERY_VERSION, ok: false, reason: `its watcher did not report a probe file within ${WATCH_QUERY_COOKIE_TIMEOUT_MS} ms` };
    try {
      return await answer(config, { changed, connections, cache, remote });
    } finally {
      // A status that ended before asking what changed (another configuration) leaves no probe behind.
      await probed;
    }
  }

  /**
   * What differs from the base on disk, for a command that would otherwise walk the tree:
   * after the watcher reported a probe file written now (so every earlier event is in),
   * the paths where the snapshot differs from the base, the events not yet synced, the
   * base entries not yet on disk and the writes not yet verified. No answer while anything
   * could make that incomplete: before the first sync, during a cycle, with a full rescan
   * owed (a watcher error, an event storm, a dropped event) or a watcher repairing itself.
   * `probe`: 'write' (a command asked) writes the probe file and waits for it; 'reported':
   * a status the watch works out itself started the probe and saw it reported.
   */
  private async answerQuery(probe: 'write' | 'reported' = 'write'): Promise<WatchAnswer> {
    const no = (reason: string): WatchAnswer => ({ v: WATCH_QUERY_VERSION, ok: false, reason });
    if (this.stopping !== null || this.vanished || this.watcher === null) return no('the watch is starting or stopping');
    // chokidar reads each folder's change asynchronously, so its events are not in order
    // across folders and no probe file can vouch for the ones before it. It runs below
    // WATCH_NATIVE_MIN_FILES files, where a scan costs a tenth of a second anyway.
    if (this.backend !== 'native') return no('its chokidar watcher cannot vouch for the order of its events');
    // A status typed right after a save meets that save's cycle: wait for it (bounded) rather than scan.
    if (this.runningBatch !== null) await Promise.race([this.scheduler.settled(), delay(WATCH_QUERY_COOKIE_TIMEOUT_MS, undefined, { ref: false })]);
    if (probe === 'write' && !(await this.probeWatcher())) return no(`its watcher did not report a probe file within ${WATCH_QUERY_COOKIE_TIMEOUT_MS} ms`);
    const state = await this.session.store.identity();
    // From here on, nothing awaits: no cycle can change the tree or the base meanwhile.
    const { tree, scoped } = this;
    const sched = this.scheduler.peek();
    if (!this.synced || tree.snapshot === null || !scoped.ready) return no('its first sync has not finished');
    if (this.runningBatch !== null) return no('a sync cycle is running');
    if (sched.pending?.full) return no('a full rescan is owed (a watcher error or an event storm)');
    const unsettled = this.watcher.unsettled();
    if (unsettled === null) return no('its watcher is repairing its watches');
    const skipped = [...tree.skipped];
    const changed = new Set([...scoped.localChanges(tree.snapshot, skipped), ...scoped.notOnDisk(), ...(sched.pending?.paths ?? []), ...unsettled]);
    const { config, matcher } = this.session;
    return { v: WATCH_QUERY_VERSION, ok: true, changed: [...changed], skipped, state, view: viewKey({ root: config.root, matcherKey: matcher.key, fs: config.fs }) };
  }

  /** Writes a probe file into the root and waits for the watcher to report it (git's fsmonitor cookie). */
  private async probeWatcher(): Promise<boolean> {
    const name = watchCookieName();
    const file = path.join(this.session.config.root, name);
    let timer: NodeJS.Timeout | undefined;
    const seen = new Promise<boolean>((resolve) => {
      this.cookies.set(name, () => resolve(true));
      timer = setTimeout(() => resolve(false), WATCH_QUERY_COOKIE_TIMEOUT_MS);
    });
    try {
      await writeFile(file, '', { flag: 'wx' });
      return await seen;
    } catch {
      return false;
    } finally {
      clearTimeout(timer);
      this.cookies.delete(name);
      await rm(file, { force: true }).catch(() => undefined);
    }
  }

  /**
   * Walks `folders` again WATCH_REWALK_AGAIN_MS from now, through the scheduler as if the
   * watcher had reported them: what a build wrote after this cycle's walk, its events lost,
   * is then synced within seconds. A batch made only of such folders does not ask again.
   */
  private rewalkLater(folders: readonly string[]): void {
    for (const f of folders) this.rewalkAgain.add(f);
    if (this.rewalkTimer) clearTimeout(this.rewalkTimer);
    this.rewalkTimer = setTimeout(() => {
      this.rewalkTimer = null;
      const again = [...this.rewalkAgain];
      this.rewalkAgain.clear();
      if (this.stopping) return;
      this.rewalkedAgain = new Set(again);
      if (again.includes('')) this.scheduler.rescanAll();
      else this.scheduler.touch(again);
    }, WATCH_REWALK_AGAIN_MS);
    this.rewalkTimer.unref();
  }

  whenIdle(): Promise<void> {
    return this.scheduler.whenIdle();
  }

  stop(): Promise<StopResult> {
    this.stopping ??= this.shutdown();
    return this.stopping;
  }

  private async shutdown(): Promise<StopResult> {
    // Stop the scheduler first (it refuses new cycles at once), then the watcher.
    const stopped = this.scheduler.stop(this.t.shutdownGraceMs);
    if (this.rewalkTimer) clearTimeout(this.rewalkTimer);
    await this.query?.close().catch(() => undefined);
    await this.watcher?.close().catch(() => undefined);
    const result = await stopped;
    await this.pacer?.close();
    if (result === 'abandoned') {
      // The cycle in flight must not go on pushing once the lock is released: cancel its
      // requests (push then throws before saving anything) and let it unwind.
      await this.session.client.destroy().catch(() => undefined);
      await Promise.race([this.scheduler.settled(), new Promise((r) => setTimeout(r, this.t.shutdownGraceMs).unref())]);
    }
    // Cache entries are self-checking (stat + racy rule), so even an abandoned cycle's are safe to keep.
    if (!this.vanished) await this.session.cache.save().catch(() => undefined);
    // Verified writes into state.bin (the journal folded in); unverified ones stay in the
    // record for the next start. Not after an abandoned cycle: it may still be between its
    // record and its writes. The drift rotation's place is saved after the base it relies on.
    if (result !== 'abandoned' && !this.vanished) await this.scoped.compact().then(() => this.drift.save()).catch(() => undefined);
    await this.status.remove();
    await this.lock.release();
    this.emit({ type: 'stopped', result });
    this.resolveDone({ result, ...(this.fatal ? { fatal: this.fatal } : {}) });
    return result;
  }

  private async cycle(batch: Batch): Promise<CycleOutcome> {
    const { session } = this;
    const { client, config } = session;
    const trigger: CycleTrigger = !this.synced ? 'start' : batch.poll ? 'poll' : batch.verify ? 'verify' : batch.full ? 'rescan' : 'change';
    const before = client.stats();
    const t0 = performance.now();
    const warnings: string[] = [];
    // An owed restart of a worker being made: the cycle's writes wait for it (restart-pacer.ts).
    await this.pacer?.idle();
    this.runningBatch = batch;
    this.status.update();
    try {
      const scanOpts = { root: config.root, matcher: session.matcher, cache: session.cache };
      const { tree } = this;
      // Before the scan (a root that is gone is not scanned) and again before anything is sent.
      await this.checkProject(null, 0);
      const filesBefore = tree.snapshot?.size ?? 0;
      /** The batch's paths, and what a re-walk found besides (a create the watcher did not report). */
      let paths = batch.paths;
      if (batch.full || tree.snapshot === null) {
        this.scanStarted = true;
        warnings.push(...(await tree.scanAll(scanOpts)));
      } else if (batch.paths.length > 0) {
        warnings.push(...(await tree.rescan(scanOpts, batch.paths)));
        // Removals: the folders they left are walked again, now and once the burst has
        // settled, for creates the watcher may not have reported (WATCH_REWALK_AGAIN_MS).
        const gaps = tree.gapFolders(batch.paths, WATCH_REWALK_WHOLE_MAX_FILES);
        if (gaps.length > 0) {
          const rewalked = await tree.rewalk(scanOpts, gaps);
          warnings.push(...rewalked.warnings);
          paths = [...new Set([...batch.paths, ...rewalked.changed])];
          if (!batch.paths.every((p) => this.rewalkedAgain.has(p))) this.rewalkLater(gaps);
        }
      }
      const local = tree.snapshot!;
      const skipped = [...tree.skipped];
      const noApply = this.opts.noApply ?? false;
      const { scoped } = this;
      const settled = tree.settled;
      if ((trigger === 'change' || trigger === 'rescan') && settled) {
        // Saved with the same content (editors' temp-and-rename, chokidar's look-again), or a
        // rescan (the look again once the watcher is ready, a watcher error) that found the
        // tree as last pushed: rescans are about missed local events; remote drift is the
        // poll's to find. Writes still unverified keep their idle check.
        this.cycles++;
        return { kind: 'done', reachedService: false, ...this.verifyDelay(0) };
      }
      await this.checkProject(local.size + skipped.length, filesBefore);
      const scope = batch.full || batch.poll || !scoped.ready ? null : scoped.scopeFor(paths);
      const guarded = this.deleteGuard();
      let report: PushReport;
      let wholeRemote = false;
      const polled = batch.poll || trigger === 'start' ? await this.pollDrift(trigger === 'start', { local, skipped, noApply, ...guarded }) : null;
      if (polled !== null) {
        report = polled.report;
      } else if (scope !== null && !batch.verify) {
        report = await scoped.cycle({ local, skipped, paths, noApply, ...guarded });
      } else if (batch.verify && scoped.ready) {
        // (Not ready: the record moved under the quiet moment's batch: a whole push merges and records it.)
        const verified = await scoped.verifyNow({ local, skipped, noApply, ...guarded });
        if (verified === null) {
          this.cycles++;
          return { kind: 'done', reachedService: false };
        }
        report = verified;
      } else {
        // Start-up, rescan, drift poll: a whole push. Writes a killed daemon left unverified
        // (or this one's) are verified first, so a local edit made since is not taken for a
        // conflict with our own bytes; then the base on disk is current for push().
        if (!this.synced && (await scoped.recover()) > 0) {
          await scoped.reload();
          if (!scoped.ready) await scoped.forget();
        }
        const pre = await scoped.verifyNow({ local, skipped, noApply: true });
        report = await push(session, { local, skipped, noApply, project: this.project!, ...guarded });
        if (pre) report = withEarlier(report, pre);
        // push() read the whole remote after its writes and saved the base from it: every
        // earlier write is settled there (landed: L = R adopted; lost: planned again).
        await scoped.forget();
        await scoped.reload();
        await this.drift.afterWholeRead();
        // state.bin holds this push's read now, newer than any a status made.
        this.statusRemote = null;
        wholeRemote = true;
      }
      if (!wholeRemote && report.plan.steps.length > 0) this.drift.ownWrite();
      this.afterDeleteGuard(report, guarded.allowMassDelete);
      // Permanent refusals are reported every cycle like conflicts; only the rest is retried.
      const failed = report.failures.some((f) => !f.permanent);
      // Something did not land (or did not verify): look at the same paths again soon,
      // backing off if it keeps failing, rather than waiting for the next save or poll.
      const retryInMs = failed ? this.backoff.next() : 0;
      if (!failed) this.recovered();
      if (failed) tree.unsettle();
      else tree.pushed();
      this.lastRefusal = '';
      this.synced = true;
      this.cycles++;

      const after = client.stats();
      const landed = report.counts.written + report.counts.deleted + report.counts.moved + report.counts.chmod;
      // A scoped cycle sees conflicts and drift inside its scope only: news when it has any;
      // the whole-remote signature is kept for the cycles that read the whole remote.
      let news = polled?.news ?? (report.conflicts.length > 0 || report.drift.length > 0);
      if (wholeRemote) {
        const signature = remoteSignature(report);
        news = signature !== this.lastSignature;
        this.lastSignature = signature;
      }
      this.emit({
        type: 'cycle',
        time: new Date(),
        trigger,
        changes: report.changes,
        counts: report.counts,
        requests: after.total - before.total,
        byOperation: diffOps(before, after),
        rateLimited: after.rateLimited - before.rateLimited,
        apply: report.apply,
        health: report.health,
        healthy: report.healthy,
        conflicts: report.conflicts,
        drift: report.drift,
        failures: report.failures,
        warnings: [...warnings, ...report.warnings],
        ms: batch.firstAt === null || trigger === 'start' ? null : Math.round(this.now() - batch.firstAt),
        cycleMs: Math.round(performance.now() - t0),
        quiet: (trigger === 'poll' || trigger === 'rescan' || trigger === 'verify') && landed === 0 && report.apply === null && !news && !failed && warnings.length === 0,
        ...(report.apply?.restarted && this.pacer?.lastCount ? { restarts: this.pacer.lastCount } : {}),
      });
      const verifyInMs = this.verifyDelay(retryInMs);
      return failed ? { kind: 'retry', afterMs: retryInMs, ...verifyInMs } : { kind: 'done', reachedService: wholeRemote || polled !== null, ...verifyInMs };
    } catch (err) {
      this.cycles++;
      this.tree.unsettle();
      // A scan that failed because the root went is the project vanishing, not an I/O error to retry.
      const gone = err instanceof ProjectVanishedError ? err : await this.stillVanished();
      if (gone) this.vanished = true;
      const failure = classifyFailure(gone ?? err, config.apiKey);
      switch (failure.kind) {
        case 'refused':
          if (failure.message !== this.lastRefusal) this.emit({ type: 'refused', message: failure.message });
          this.lastRefusal = failure.message;
          return { kind: 'done', reachedService: true };
        case 'fatal':
          this.fatal = { message: failure.message, exitCode: failure.exitCode };
          this.emit({ type: 'fatal', message: failure.message, exitCode: failure.exitCode });
          void this.stop();
          return { kind: 'done', reachedService: false };
        case 'transient': {
          const retryInMs = this.backoff.next();
          this.failingSince ??= performance.now();
          this.emit({ type: 'waiting', message: failure.message, retryInMs, pending: batch.paths.length });
          return { kind: 'retry', afterMs: retryInMs };
        }
        case 'error': {
          const retryInMs = this.backoff.next();
          this.emit({ type: 'error', message: failure.message, retryInMs });
          return { kind: 'retry', afterMs: retryInMs };
        }
      }
    } finally {
      // After the cycle's event, so the save it carried is not kept waiting by a cache write.
      await this.maybeSaveCache();
      this.runningBatch = null;
      // Written after the scheduler has re-queued a failed batch, so its paths still show as pending.
      setImmediate(() => this.status.update());
    }
  }

  /**
   * A drift poll: one read (drift-poll.ts). At start-up, when an earlier watch of this
   * root left its rotation, the local edits made meanwhile are synced by a scoped cycle
   * (its pre-read is their three-way check) and the rest of the tree is left to the polls.
   * Null: read the whole remote (first sync, new ignore rules, an event storm's worth of edits).
   */
  private async pollDrift(start: boolean, opts: Omit<ScopedCycleOptions, 'paths'>): Promise<{ report: PushReport; news: boolean } | null> {
    const { scoped } = this;
    if (start) {
      if (!(await this.drift.known())) return null;
      await scoped.recover();
      await scoped.reload();
      if (!scoped.ready) return null;
      const changed = scoped.localChanges(opts.local, opts.skipped);
      if (changed.length > this.t.stormPaths) return null;
      if (changed.length > 0 || scoped.pendingVerification > 0) {
        const report = await scoped.cycle({ ...opts, paths: changed });
        return { report, news: report.conflicts.length > 0 || report.drift.length > 0 };
      }
    }
    const polled = await this.drift.poll(opts.local, opts);
    return polled && { report: polled.report ?? emptyPushReport(), news: polled.news };
  }

  /**
   * Throws ProjectVanishedError when the project is gone, replaced, stripped of its
   * hostsync.json, or emptied, and still is WATCH_VANISHED_RECHECK_MS later. `files`: what
   * the snapshot holds now (null: the root alone is checked, before a scan), of
   * `filesBefore` before this cycle's scan.
   */
  private async checkProject(files: number | null, filesBefore: number): Promise<void> {
    const gone = await this.stillVanished(files, filesBefore);
    if (gone !== null) throw gone;
  }

  /** vanishedNow, confirmed by a second look WATCH_VANISHED_RECHECK_MS later; a "dir" rebuilt meanwhile is no vanishing. */
  private async stillVanished(files: number | null = null, filesBefore = 0): Promise<ProjectVanishedError | null> {
    if ((await this.vanishedNow(files, filesBefore)) === null) return null;
    if (await this.followRebuiltDir()) return this.vanishedNow(files, filesBefore);
    await new Promise((resolve) => setTimeout(resolve, WATCH_VANISHED_RECHECK_MS));
    return this.vanishedNow(files, filesBefore);
  }

  /**
   * A "dir" deleted and made again by a build while the project root stayed (issue 44, item
   * 12): waits up to WATCH_DIR_REBUILD_MS for the folder to be back, then takes the new
   * folder as the one watched (its identity in the mark, a new file watcher, a rescan).
   * False when this is no "dir" project, the project root went, the folder stayed away past
   * the window, or the new one leads out of the project (a link): then it vanished.
   */
  private async followRebuiltDir(): Promise<boolean> {
    const mark = this.project;
    if (mark === null) return false;
    const until = performance.now() + WATCH_DIR_REBUILD_MS;
    for (;;) {
      const now = await syncDirNow(mark);
      // 'same': the folder is not what went (hostsync.json may be): the ordinary second look decides.
      if (now === null || now.state === 'same') return false;
      if (now.state === 'back') {
        const ok = await assertSyncDirInside(mark.projectRoot, path.relative(mark.projectRoot, mark.root), mark.root).then(() => true, () => false);
        if (!ok) return false;
        this.project = { ...mark, dev: now.dev, ino: now.ino };
        await this.rewatch();
        return true;
      }
      if (performance.now() >= until || this.stopping !== null) return false;
      await new Promise((resolve) => setTimeout(resolve, WATCH_DIR_REBUILD_POLL_MS));
    }
  }

  /** The watcher of a folder that was deleted sees nothing of the new one: a new watcher, and a rescan of what it missed. */
  private async rewatch(): Promise<void> {
    const old = this.watcher;
    this.watcher = null;
    await old?.close().catch(() => undefined);
    const started = await this.startWatcher();
    if (this.stopping !== null) {
      await started.watcher.close().catch(() => undefined);
      return;
    }
    this.watcher = started.watcher;
    this.emit({ type: 'rescan', reason: `${path.basename(this.session.config.root)} was made again (a rebuild): watching the new folder` });
    this.scheduler.rescanAll();
  }

  /**
   * Why the project counts as vanished now, or null. Emptiness is judged on disk (one
   * readdir) whenever the snapshot lost files or holds none; at start-up the files tracked
   * before are the base's (a root emptied while watch was not running).
   */
  private async vanishedNow(files: number | null, filesBefore: number): Promise<ProjectVanishedError | null> {
    if (this.project === null) return null;
    let tree: TreeCount | undefined;
    if (files !== null && (files === 0 || files < filesBefore)) {
      const tracked = filesBefore > 0 ? filesBefore : ((await this.session.store.load()).base?.size ?? 0);
      tree = { empty: !(await rootHoldsSynced(this.session.config.root, this.session.matcher)), tracked };
    }
    const reason = await vanishedReason(this.project, tree);
    return reason === null ? null : new ProjectVanishedError(reason);
  }

  /**
   * Watch's mass-delete guard, for whichever kind of cycle runs: deletions made within the
   * window count with this cycle's; when they trip it the deletions are held (reported once
   * by afterDeleteGuard) and the rest syncs.
   */
  private deleteGuard(): { holdMassDelete: { recentDeletes: number }; allowMassDelete: boolean } {
    const now = this.now();
    // The window stops sliding while deletions are held: waiting must not release them.
    if (this.held.length === 0) this.deletions = this.deletions.filter((d) => now - d.at < WATCH_DELETE_WINDOW_MS);
    return { holdMassDelete: { recentDeletes: this.deletions.reduce((n, d) => n + d.count, 0) }, allowMassDelete: this.deletesConfirmed };
  }

  private afterDeleteGuard(report: PushReport, confirmed: boolean): void {
    if (confirmed) {
      this.deletesConfirmed = false;
      this.deletions = [];
    } else if (report.counts.deleted > 0) {
      this.deletions.push({ at: this.now(), count: report.counts.deleted });
    }
    const news = report.heldDeletes.join('\0') !== this.held.join('\0');
    this.held = report.heldDeletes;
    if (news && this.held.length > 0) {
      this.emit({ type: 'held', paths: this.held, deletes: report.massDelete.deletes, tracked: report.massDelete.tracked });
    }
  }

  confirmDeletes(): boolean {
    if (this.held.length === 0 || this.stopping) return false;
    this.deletesConfirmed = true;
    this.tree.unsettle();
    this.scheduler.touch(this.held);
    return true;
  }

  /** When writes are still unverified or unrecorded: the quiet moment's check, never before a retry's backoff ends. */
  private verifyDelay(retryInMs: number): { verifyInMs?: number } {
    return this.scoped.pendingVerification > 0 || this.scoped.unrecorded > 0 ? { verifyInMs: Math.max(this.t.verifyIdleMs, retryInMs) } : {};
  }

  /** Remembers how the last cycle ended, for the status file, and refreshes it. */
  private noteForStatus(e: WatchEvent): void {
    const at = e.type === 'cycle' ? e.time.toISOString() : new Date().toISOString();
    const bare = { at, trigger: this.synced ? 'change' as const : 'start' as const, changed: 0, requests: 0, rateLimited: 0, ms: null, cycleMs: null, healthy: null, state: null };
    switch (e.type) {
      case 'cycle': {
        // A quiet poll or idle check found nothing: the cycle worth showing stays the last one that did something.
        if (e.quiet && this.lastCycle !== null) break;
        const changed = e.counts.written + e.counts.deleted + e.counts.moved + e.counts.chmod;
        const outcome = e.failures.some((f) => !f.permanent) ? 'failed' : e.conflicts.length > 0 ? 'conflicts' : 'synced';
        this.lastCycle = {
          at, trigger: e.trigger, outcome, changed, requests: e.requests, rateLimited: e.rateLimited, ms: e.ms, cycleMs: e.cycleMs,
          healthy: e.healthy, state: e.apply?.state ?? null, message: e.failures[0] ? `${e.failures[0].path}: ${e.failures[0].error}` : null,
        };
        break;
      }
      case 'waiting':
      case 'error':
      case 'refused':
      case 'fatal':
        this.lastCycle = { ...bare, outcome: e.type, message: e.message };
        break;
      default:
        break;
    }
    this.status.update();
  }

  private statusRecord(): WatchStatusRecord {
    const sched = this.scheduler.peek();
    const paths = new Set<string>([...(sched.pending?.paths ?? []), ...(this.runningBatch?.paths ?? [])]);
    const retryInMs = sched.notBefore - sched.now;
    return {
      version: 1,
      pid: process.pid,
      host: hostname(),
      startedAt: this.startedAt.toISOString(),
      updatedAt: new Date().toISOString(),
      backend: this.watcher ? this.backend : null,
      apply: !this.opts.noApply,
      pending: {
        paths: paths.size,
        sample: [...paths].sort().slice(0, WATCH_STATUS_SAMPLE_PATHS),
        unverified: this.scoped.pendingVerification,
        rescan: (sched.pending?.full ?? false) || (this.runningBatch?.full ?? false),
        cycling: this.runningBatch !== null,
        retryAt: sched.notBefore > 0 && retryInMs > 0 ? new Date(Date.now() + retryInMs).toISOString() : null,
      },
      budget: (() => {
        const b = this.session.client.budget();
        return { limit: b.limit, windowMs: b.windowMs, remaining: Math.max(0, b.limit - b.used) };
      })(),
      cycles: this.cycles,
      lastCycle: this.lastCycle,
    };
  }

  private recovered(): void {
    this.backoff.reset();
    if (this.failingSince !== null) {
      this.emit({ type: 'recovered', afterMs: Math.round(performance.now() - this.failingSince) });
      this.failingSince = null;
    }
  }

  private async maybeSaveCache(): Promise<void> {
    if (this.vanished) return;
    const now = performance.now();
    if (this.cacheSavedAt !== 0 && now - this.cacheSavedAt < this.t.cacheSaveMs) return;
    this.cacheSavedAt = now;
    await this.session.cache.save().catch(() => undefined);
  }

  private now(): number {
    return (this.opts.clock ?? { now: () => performance.now() }).now();
  }
}
