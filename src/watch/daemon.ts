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
 *
 * Beside it: daemon-types.ts (what it takes and tells), watch-queries.ts (answering `status`
 * and `diff` over the query socket), delete-window.ts (the mass-delete guard across cycles),
 * status-notes.ts (the status file's record), cycle-report.ts (a cycle's figures).
 */
import { refusal } from '../errors.js';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { WATCH_VANISHED_RECHECK_MS, WATCH_DIR_REBUILD_MS, WATCH_DIR_REBUILD_POLL_MS, WATCH_REWALK_AGAIN_MS, WATCH_REWALK_WHOLE_MAX_FILES } from './tunables.js';
import type { Watcher } from '../local/watcher.js';
import type { Lock } from '../state/lock.js';
import { emptyPushReport, push, type PushReport } from '../sync/push/push.js';
import { ScopedSync, type ScopedCycleOptions } from '../sync/watch-cycle/scoped-sync.js';
import { DriftPoll } from '../sync/watch-cycle/drift-poll.js';
import { markProject, ProjectVanishedError, rootHoldsSynced, syncDirNow, vanishedReason, type ProjectMark, type TreeCount } from '../sync/push/vanished.js';
import { assertSyncDirInside } from '../config/sync-dir.js';
import type { Session } from '../sync/session.js';
import { Backoff } from './backoff.js';
import { LocalTree } from './local-tree.js';
import { classifyFailure } from './failure.js';
import type { Batch } from './schedule.js';
import { CycleScheduler, type CycleOutcome, type StopResult } from './scheduler.js';
import { startWatcherBackend } from './watcher-backend.js';
import { WatchStatusWriter } from './status-writer.js';
import type { WatchCycleSummary, WatchStatusRecord } from '../state/watch-status.js';
import { RestartPacer } from './restart-pacer.js';
import { WATCH_CRASH_LOOP_STARTS } from './tunables.js';
import { DEFAULT_WATCH_TUNABLES, changeCycleCost, type CycleTrigger, type WatchDaemon, type WatchEnd, type WatchEvent, type WatchOptions, type WatchTunables } from './daemon-types.js';
import { diffOps, remoteSignature, withEarlier } from './cycle-report.js';
import { WatchQueries } from './watch-queries.js';
import { DeleteWindow } from './delete-window.js';
import { lastCycleAfter, statusRecordOf } from './status-notes.js';

export { DEFAULT_WATCH_TUNABLES, changeCycleCost, type CycleEvent, type CycleTrigger, type OwnAnswers, type WatchDaemon, type WatchEnd, type WatchEvent, type WatchOptions, type WatchTunables } from './daemon-types.js';

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
  private failingSince: number | null = null;
  /** Watch's mass-delete guard: deletions within the window, those held back (delete-window.ts). */
  private readonly deletes = new DeleteWindow();
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
  /** Answers `status` and `diff` for other commands (watch-queries.ts). */
  private readonly queries: WatchQueries;
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
    this.queries = new WatchQueries({
      session,
      scheduler: () => this.scheduler,
      tree: this.tree,
      scoped: this.scoped,
      watcher: () => (this.watcher === null ? null : { watcher: this.watcher, backend: this.backend }),
      closing: () => this.stopping !== null || this.vanished,
      synced: () => this.synced,
      runningBatch: () => this.runningBatch,
    }, opts.answerStatus);
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
    await this.queries.listen();
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
        onCookie: (rel) => this.queries.onCookie(rel),
      },
      this.opts.backend ?? 'auto',
    );
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
    await this.queries.close();
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
      const guarded = this.deletes.guard(this.now());
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
        if (report.positionRefused !== null) throw refusal(report.positionRefused);
        if (pre) report = withEarlier(report, pre);
        // push() read the whole remote after its writes and saved the base from it: every
        // earlier write is settled there (landed: L = R adopted; lost: planned again).
        await scoped.forget();
        await scoped.reload();
        await this.drift.afterWholeRead();
        // state.bin holds this push's read now, newer than any a status made.
        this.queries.forgetRemote();
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

  /** Reports held deletions when the set held changes (the guard's verdict on this cycle's report). */
  private afterDeleteGuard(report: PushReport, confirmed: boolean): void {
    const held = this.deletes.after(report, confirmed, this.now());
    if (held !== null) this.emit({ type: 'held', paths: held, deletes: report.massDelete.deletes, tracked: report.massDelete.tracked });
  }

  confirmDeletes(): boolean {
    if (this.stopping) return false;
    const held = this.deletes.confirm();
    if (held === null) return false;
    this.tree.unsettle();
    this.scheduler.touch(held);
    return true;
  }

  /** When writes are still unverified or unrecorded: the quiet moment's check, never before a retry's backoff ends. */
  private verifyDelay(retryInMs: number): { verifyInMs?: number } {
    return this.scoped.pendingVerification > 0 || this.scoped.unrecorded > 0 ? { verifyInMs: Math.max(this.t.verifyIdleMs, retryInMs) } : {};
  }

  /** Remembers how the last cycle ended, for the status file, and refreshes it. */
  private noteForStatus(e: WatchEvent): void {
    this.lastCycle = lastCycleAfter(e, this.lastCycle, this.synced);
    this.status.update();
  }

  private statusRecord(): WatchStatusRecord {
    return statusRecordOf({
      startedAt: this.startedAt,
      backend: this.watcher ? this.backend : null,
      apply: !this.opts.noApply,
      sched: this.scheduler.peek(),
      running: this.runningBatch,
      unverified: this.scoped.pendingVerification,
      budget: this.session.client.budget(),
      cycles: this.cycles,
      lastCycle: this.lastCycle,
    });
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
