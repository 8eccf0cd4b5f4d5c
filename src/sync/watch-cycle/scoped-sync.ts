/**
 * Watch mode's cycle: a push whose cost follows the work, not the tree.
 *
 * One cycle = ONE scoped files.index (cycle-scope.ts: the batch's paths plus the writes still
 * unverified) -> verify those earlier writes against it -> the three-way merge inside the
 * scope only (decide.ts; the base outside it is untouched) -> transfer -> apply.
 * A one-file edit costs the read and the write (plus apply). Its batch for the deployment's
 * base record waits (state/record-pending.ts) for the quiet moment, which records every
 * cycle's since in one compare-and-swap (recordPending).
 *
 * Verification is folded into reads already being made: a write is verified by the next
 * read that covers it (the next cycle's pre-read, which always covers every unverified
 * write, or one idle-time check the daemon asks for when the tree goes quiet).
 *
 * Invariants:
 * - The base gains a written entry only once a read showed the remote holding exactly the
 *   bytes we sent. Until the base ON DISK holds it, the write's expectation is in the
 *   unverified record (state/unverified.ts), written before the write is sent: a kill at
 *   any instant is repaired by the next start (Daemon: verify the record, then push()).
 * - Three-way safety is push's: a path whose remote changed since the base is a conflict
 *   or drift, never overwritten. A remote edit arriving between this cycle's read and its
 *   write is overwritten like in push (the same window, a round trip wide); files.history
 *   keeps what it replaced (docs/decisions.md).
 * - The base on disk follows each cycle by a journal append of the entries the cycle
 *   changed (state/base-journal.ts), after the cycle's requests: O(its paths), never a
 *   rewrite of state.bin, which happens only past the journal's bound and when watch stops
 *   (compact()). A kill before the append loses nothing: the record still names the writes.
 */
import { refusal } from '../../errors.js';
import { pathsOf, changedPaths, targetOf } from '../../model/change.js';
import type { Change, Entry, Snapshot } from '../../model/types.js';
import { entriesEqual } from '../../model/snapshot.js';
import { UnverifiedStore, type Expectation } from '../../state/unverified.js';
import { applyRequestFor, awaitHealth } from '../apply/apply.js';
import { installBeforeApply, installFailureHealth } from '../apply/install-on-change.js';
import { decide, guardMassDelete } from '../core/decide.js';
import { executePlan } from '../push/execute.js';
import { emptyPushReport, logLineOf, type PushReport } from '../push/push-report.js';
import { recordPush } from '../push/push-journal.js';
import { inScope, restrict, scopeOf, type Scope } from './cycle-scope.js';
import { ScopedReader, type ScopedRead } from './scoped-read.js';
import type { Session } from '../session.js';
import { settleBase } from '../core/settle.js';
import { landed, takeLanded } from '../unverified-fold.js';
import { STATE_JOURNAL_COMPACT_BYTES } from '../../state/tunables.js';
import { TreeSnapshot } from '../../model/tree-snapshot.js';
import { diffBases, type BatchPath } from '../../state/base-record.js';
import { foldBatch, loadPendingRecord, savePendingRecord } from '../../state/record-pending.js';
import { WATCH_GIT_HEAD_TTL_MS } from '../tunables.js';
import { commitBatch, copyRead, parsedRecord, rereadRecord } from '../record/remote-record.js';
import { batchStamp } from '../record/copy-stamp.js';
import { gitHead, type GitHead } from '../../local/git.js';

/**
 * Another machine recorded a batch in the base record since this watch last read it (found
 * at the quiet moment's compare-and-swap; the watch's own batch was recorded on top of it).
 * The working base is dropped, so the next cycle is a whole push, which reads the record and
 * tells what the other push changed (never overwritten).
 */
export class RecordMovedError extends Error {
  constructor() {
    super('another hostsync recorded a change on the deployment since this watch last read the record: the next cycle reads the whole deployment and merges');
    this.name = 'RecordMovedError';
  }
}

export interface ScopedCycleOptions {
  /** The whole local snapshot (watch keeps it up to date incrementally). */
  local: Snapshot;
  skipped: readonly string[];
  /** What the batch touched (files or folders). */
  paths: readonly string[];
  noApply: boolean;
  /** Watch's mass-delete guard (PushOptions.holdMassDelete): deletions it holds are left on the deployment. */
  holdMassDelete?: { recentDeletes: number };
  allowMassDelete?: boolean;
}

/** The paths one read covers: a cycle's scope, or a drift poll's region. */
export interface ReadRegion {
  has(path: string): boolean;
  restrict(snapshot: Snapshot | null): Snapshot;
}

export class ScopedSync {
  private readonly reader: ScopedReader;
  private readonly record: UnverifiedStore;
  /** Sent, not yet seen on the remote. */
  private readonly unverified = new Map<string, Expectation>();
  /** Verified into `base` in memory, not yet saved (journaled) to disk. */
  private readonly unsaved = new Map<string, Expectation>();
  /**
   * The working base; null until loaded (a daemon loads it after its first full push). A
   * TreeSnapshot, so the part of it inside a cycle's scope is found in O(depth).
   */
  private base: TreeSnapshot | null = null;
  private lastChanges: { local: TreeSnapshot; localVersion: number; base: TreeSnapshot | null; baseVersion: number; skipped: string; out: string[] } | null = null;
  /** Paths whose base entry changed in memory since the base on disk last took them. */
  private readonly changedBase = new Set<string>();
  /** The record on disk still names writes that are verified and in the base on disk: flush() trims it. */
  private recordStale = false;

  constructor(private readonly session: Session) {
    this.reader = new ScopedReader(session.client, session.matcher);
    this.record = new UnverifiedStore(session.stateDir, session.config.deploymentId);
  }

  /** Writes not yet verified (the daemon schedules an idle check while this is > 0). */
  get pendingVerification(): number {
    return this.unverified.size;
  }

  /** Loads the record a previous daemon left (killed before it could verify or save). */
  async recover(): Promise<number> {
    const left = await this.record.load();
    for (const [p, e] of left) this.unverified.set(p, e);
    return left.size;
  }

  /** Drops the record: there is no base to verify against (a first sync compares everything anyway). */
  async forget(): Promise<void> {
    this.unverified.clear();
    this.unsaved.clear();
    await this.record.save(this.unverified);
  }

  /** Takes the base from state.bin (after a full push saved one). */
  async reload(): Promise<void> {
    // A whole push folds what the cycles left unrecorded into its own batch (push.ts): read again.
    this.pending = null;
    const { base } = await this.session.store.load();
    this.base = base === null ? null : base instanceof TreeSnapshot ? base : new TreeSnapshot(base);
    this.changedBase.clear();
  }

  /** Paths whose base on disk may not be the working base's: changed in memory since, or written and not yet verified. */
  notOnDisk(): string[] {
    return [...this.changedBase, ...this.unverified.keys()];
  }

  /** True when a scoped cycle can run (a base exists to merge against). */
  get ready(): boolean {
    return this.base !== null;
  }

  /** The working base's paths (planning a drift poll's regions). */
  basePaths(): Iterable<string> {
    return this.base?.keys() ?? [];
  }

  /**
   * Paths where `local` differs from the base (a restart after edits syncs just these);
   * unreadable (`skipped`) paths are not taken for deletions.
   */
  localChanges(local: Snapshot, skipped: readonly string[]): string[] {
    // A pass over every path (about 85 ms at 100k files): `status` asks this of a running
    // watch, again and again while nothing changes, so the last answer is kept while
    // neither snapshot has changed (TreeSnapshot.version) and the same paths are unreadable.
    const key = local instanceof TreeSnapshot ? { local, localVersion: local.version, base: this.base, baseVersion: this.base?.version ?? 0, skipped: skipped.join('\0') } : null;
    const m = this.lastChanges;
    if (key && m && m.local === key.local && m.localVersion === key.localVersion && m.base === key.base && m.baseVersion === key.baseVersion && m.skipped === key.skipped) return [...m.out];
    const out: string[] = [];
    const base = this.base ?? new Map<string, Entry>();
    for (const [p, e] of local) if (!entriesEqual(e, base.get(p))) out.push(p);
    const unreadable = new Set(skipped);
    for (const p of base.keys()) if (!local.has(p) && !unreadable.has(p)) out.push(p);
    this.lastChanges = key ? { ...key, out } : null;
    return [...out];
  }

  /** The scope a cycle over `paths` would read; null when it spans the root. */
  scopeFor(paths: readonly string[]): Scope | null {
    return scopeOf([...paths, ...this.unverified.keys()]);
  }

  /**
   * The idle-time check: one read covering every unverified write, a cycle over those
   * paths (one that did not land is sent again), then the base is saved.
   */
  async verifyNow(opts: Omit<ScopedCycleOptions, 'paths'>): Promise<PushReport | null> {
    if (this.unverified.size === 0) {
      await this.flush();
      await this.recordPending();
      return null;
    }
    const report = await this.cycle({ ...opts, paths: [] });
    await this.flush();
    await this.recordPending();
    return report;
  }

  /** Saves the working base's changes (persist()) and trims the record to what is still unverified. */
  async flush(): Promise<void> {
    await this.persist();
    if (this.recordStale || this.unverified.size === 0) {
      await this.record.save(this.unverified);
      this.recordStale = false;
    }
  }

  /** flush(), then state.bin rewritten whole with the journal folded in (watch stops). */
  async compact(): Promise<void> {
    await this.flush();
    const { store } = this.session;
    if (this.base !== null && (await store.journal.size()) > 0) await store.save({ base: this.base, remote: (await store.load()).remote });
    // A watch that stops records what it wrote; lost to another machine's batch, it is kept
    // on disk for the next whole push (record-pending.ts).
    await this.recordPending().catch((err: unknown) => {
      if (!(err instanceof RecordMovedError)) throw err;
    });
  }

  /**
   * The base entries changed since the last call go to disk: appended to the journal
   * (O(paths)); past its bound, state.bin is rewritten whole (compaction).
   */
  private async persist(): Promise<void> {
    if (this.base === null || this.changedBase.size === 0) return;
    const { store } = this.session;
    const paths = [...this.changedBase];
    this.changedBase.clear();
    let bytes: number;
    try {
      bytes = await store.saveBaseEntries(this.base, paths);
    } catch (err) {
      for (const p of paths) this.changedBase.add(p);
      throw err;
    }
    // Verified writes are on disk now; the record may forget them at its next save.
    if (this.unsaved.size > 0) this.recordStale = true;
    this.unsaved.clear();
    if (bytes > STATE_JOURNAL_COMPACT_BYTES) await store.save({ base: this.base, remote: (await store.load()).remote });
  }

  /** One scoped cycle over the batch's paths and every unverified write. */
  async cycle(opts: ScopedCycleOptions): Promise<PushReport> {
    const started = Date.now();
    if (this.base === null) await this.reload();
    const scope = this.scopeFor(opts.paths);
    if (scope === null) throw new Error('scoped cycle: the batch spans the root (a full push is needed)');
    const remote = await this.reader.read(scope);
    return this.merge({ has: (p) => inScope(scope, p), restrict: (s) => restrict(s, scope) }, remote, opts, started);
  }

  /**
   * The same merge over a read the caller made (a drift poll's region, drift-poll.ts):
   * `region` says which paths the read covers; what it holds is checked exactly as a
   * cycle's pre-read is (unverified writes verified, drift and conflicts reported, local
   * changes inside it written).
   */
  async mergeRead(region: ReadRegion, remote: ScopedRead, opts: Omit<ScopedCycleOptions, 'paths'>): Promise<PushReport> {
    const started = Date.now();
    if (this.base === null) await this.reload();
    return this.merge(region, remote, { ...opts, paths: [] }, started);
  }

  private async merge(region: ReadRegion, remote: ScopedRead, opts: ScopedCycleOptions, started: number): Promise<PushReport> {
    const { session } = this;
    const { client, config, store } = session;

    // Earlier writes inside this read are now verified (or found replaced: the base keeps
    // its entry, and the merge below calls a foreign change a conflict, never overwrites it).
    this.base ??= new TreeSnapshot();
    const base = this.base;
    for (const [p, exp] of this.unverified) {
      if (!region.has(p)) continue;
      const r = remote.snapshot.get(p);
      if (landed(exp, r)) {
        takeLanded(base, p, exp, r);
        this.unsaved.set(p, exp);
        this.changedBase.add(p);
      }
      this.unverified.delete(p);
    }

    const baseIn = region.restrict(base);
    const decideWith = (protect: readonly string[]) =>
      decide({ base: baseIn, scanned: region.restrict(opts.local), skipped: [...opts.skipped, ...protect], remote, options: { force: false, mirror: false }, owned: session.remoteOwned });
    const { decision, guard, held } = guardMassDelete(decideWith([]), decideWith, { base, remote: remote.snapshot }, {
      recentDeletes: opts.holdMassDelete?.recentDeletes ?? 0,
      allow: opts.allowMassDelete ?? false,
      hold: opts.holdMassDelete !== undefined,
    });
    const { rec, plan } = decision;
    if (guard.refuse && !opts.allowMassDelete && held.length === 0) {
      throw refusal(
        `refusing to delete ${guard.deletes} of ${guard.tracked} tracked files on the deployment (wrong --dir, or an emptied checkout?): check the directory, or run hostsync push --allow-mass-delete`,
      );
    }
    const report: PushReport = { ...emptyPushReport(), changes: rec.changes, plan, conflicts: rec.conflicts, drift: rec.drift, remoteOnly: rec.remoteOnly, massDelete: guard, heldDeletes: held };

    // Inside the scope the base becomes what the merge settled (L = R adopted; a change
    // keeps its old entry until a later read verifies it).
    const settled = settleBase(baseIn, rec);
    for (const p of baseIn.keys()) {
      if (settled.has(p)) continue;
      base.delete(p);
      this.changedBase.add(p);
    }
    for (const [p, e] of settled) {
      if (baseIn.get(p) === e) continue;
      base.set(p, e);
      this.changedBase.add(p);
    }

    let applyPending = await store.applyPending();
    const vanished: string[] = [];
    if (plan.steps.length > 0) {
      for (const c of rec.changes) this.expect(c);
      // The cycle's batch waits for the quiet moment (recordPending): a save costs its read
      // and its write, not a third request for the record.
      const pending = await this.pendingRecord();
      foldBatch(pending, diffBases(baseIn, rec.nextBase));
      // Four independent files, each needed before the first byte is sent: written side by
      // side, so the cycle waits for the slowest, not their sum.
      await Promise.all([
        savePendingRecord(session.stateDir, pending),
        this.record.save(new Map([...this.unsaved, ...this.unverified])),
        // Journaled like a push (left pending: a later read verifies it), so undo can take the cycle back.
        recordPush(session, rec.changes, plan, remote.snapshot, baseIn, { destructive: false, copies: 'safety', durable: false }),
        applyPending ? undefined : store.setApplyPending(true),
      ]);
      applyPending = true;
      // No re-check or files.history check here (push makes them): the read is the last
      // request before the write, and a save-to-live cycle stays a read and a write.
      const result = await executePlan(plan, { client, root: config.root, remote: remote.snapshot });
      report.counts = { written: result.written, deleted: result.deleted, moved: result.moved, chmod: result.chmod };
      report.failures.push(...result.failures);
      // A file edited between the scan and the send went with its newer bytes: expect those.
      for (const [p, h] of result.sent) {
        const exp = this.unverified.get(p);
        if (exp && exp.hash !== h) this.unverified.set(p, { hash: h, size: null, executable: exp.executable });
      }
      for (const p of result.vanished) {
        vanished.push(p);
        this.unverified.delete(p);
        report.warnings.push(`${p} disappeared locally during the cycle: not sent (the next cycle handles its deletion)`);
      }
      if (result.outcomeUnknown) report.failures.push({ path: '*', error: 'the deployment answered with an unknown outcome; the next cycle re-reads and re-plans' });
    }

    // "install": "on-change" (install-on-change.ts): before the restart; a failed install is not restarted into.
    const install = applyPending && !opts.noApply && report.failures.every((f) => f.permanent) ? await installBeforeApply(session, changedPaths(rec.changes)) : null;
    if (install) report.install = install;
    if (install && !install.ok) {
      report.health = installFailureHealth(install);
      report.healthy = false;
    } else if (applyPending && !opts.noApply && report.failures.every((f) => f.permanent)) {
      const changed = changedPaths(rec.changes);
      const applied = await client.deployments.apply(applyRequestFor(config.restart, session.hotPaths, changed, config.applyWaitSeconds));
      await store.setApplyPending(false);
      report.apply = applied;
      report.health = await awaitHealth(client, applied, config.health, { started: applied.restarted });
      report.healthy = report.health.healthy;
      report.leftOut = [...new Set([...report.failures.map((f) => f.path), ...vanished])].sort();
    }
    report.applyPending = applyPending && report.apply === null;
    if (report.health !== null) this.lastHealthy = report.healthy;
    // After the cycle's requests: the base on disk catches up in O(paths), off the save-to-live path.
    await this.persist();
    report.durationMs = Date.now() - started;
    if (plan.steps.length > 0 || report.apply) {
      await store.appendLog(logLineOf('watch', report, client.stats().total));
    }
    return report;
  }

  /**
   * The health verdict after the last cycle that judged one (null: none since the last
   * recorded batch). Logged with the batch the quiet moment records, so `history` says
   * whether the app was up after a watch burst, as it does after a push.
   */
  private lastHealthy: boolean | null = null;

  /** The cycles' batches not yet in the base record (state/record-pending.ts), loaded once. */
  private pending: Map<string, BatchPath> | null = null;

  private async pendingRecord(): Promise<Map<string, BatchPath>> {
    this.pending ??= await loadPendingRecord(this.session.stateDir);
    return this.pending;
  }

  /** Paths written by cycles and not yet recorded on the deployment (the daemon's quiet moment records them). */
  get unrecorded(): number {
    return this.pending?.size ?? 0;
  }

  /**
   * The cycles' batches go to the base record as one batch: one compare-and-swap on the record
   * as this machine last knew it (the scoped reads do not list it). Lost (another machine
   * recorded since): RecordMovedError, the batch kept for the whole push that follows, which
   * reads the record, merges, and records it with its own. No copy of the record (none made
   * yet): nothing to append to; the next whole push writes it.
   */
  async recordPending(): Promise<void> {
    const pending = await this.pendingRecord();
    if (pending.size === 0) return;
    const read = await copyRead(this.session);
    if (read === null || read.path === null) return;
    // A copy that does not parse is no copy (never rewrite the deployment's record from it).
    if (parsedRecord(read) === null) return;
    const paths = [...pending.values()];
    const stamp = await batchStamp(this.session.config, await this.gitHead(), { watch: true, paths: paths.map((p) => p.path) });
    let committed = await commitBatch(this.session, read, 'watch', paths, () => [], stamp);
    let moved = false;
    if (!committed.ok) {
      // Another machine recorded since: the batch goes on top of the record as it is now (a
      // late batch is safe by the before/after rule), and the next cycle is a whole push that
      // learns what the other machine changed.
      moved = true;
      const fresh = await rereadRecord(this.session, read.path, [...read.own, committed.id]);
      if (fresh !== null) committed = await commitBatch(this.session, fresh, 'watch', paths, () => [], stamp);
    }
    if (committed.ok) {
      // Only what was recorded: a cycle running meanwhile may have folded in more.
      for (const p of paths) if (pending.get(p.path) === p) pending.delete(p.path);
      await savePendingRecord(this.session.stateDir, pending);
      if (this.lastHealthy !== null) {
        await this.session.store.appendLog({ command: 'watch-recorded', batch: committed.id, paths: paths.length, healthy: this.lastHealthy });
        this.lastHealthy = null;
      }
    }
    if (!moved) return;
    await this.persist();
    this.base = null;
    throw new RecordMovedError();
  }

  /** HEAD as git last said, asked again past WATCH_GIT_HEAD_TTL_MS (a burst of cycles asks once). */
  private head: { at: number; answer: Promise<GitHead | null> } | null = null;

  private gitHead(): Promise<GitHead | null> {
    const now = Date.now();
    if (this.head === null || now - this.head.at > WATCH_GIT_HEAD_TTL_MS) this.head = { at: now, answer: gitHead(this.session.config.root) };
    return this.head.answer;
  }

  /** Records what the remote must hold once change `c` lands. */
  private expect(c: Change): void {
    for (const p of pathsOf(c)) {
      if (p !== targetOf(c) || c.kind === 'delete') {
        this.unverified.set(p, null);
        continue;
      }
      const entry = c.kind === 'write' || c.kind === 'chmod' || c.kind === 'rename' ? c.entry : null;
      if (entry && entry.hash !== null) this.unverified.set(p, { hash: entry.hash, size: entry.size, executable: entry.executable });
    }
  }
}
