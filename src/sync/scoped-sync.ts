/**
 * Watch mode's cycle: a push whose cost follows the work, not the tree.
 *
 * One cycle = ONE scoped files.index (cycle-scope.ts: the batch's paths plus the writes still
 * unverified) -> verify those earlier writes against it -> the three-way merge inside the
 * scope only (decide.ts; the base outside it is untouched) -> transfer -> apply.
 * A one-file edit costs the read and the write (plus apply).
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
 *   keeps what it replaced (README, "Decisions").
 * - The base on disk is saved at flush() (idle, before a full push, on stop), not every
 *   cycle: at 100k files it is megabytes of JSON, and the record makes it safe to lag.
 */
import { refusal } from '../errors.js';
import { pathsOf, changedPaths, targetOf } from '../model/change.js';
import type { Change, Entry, Snapshot } from '../model/types.js';
import { UnverifiedStore, type Expectation } from '../state/unverified.js';
import { applyRequestFor, awaitHealth } from './apply.js';
import { decide, guardMassDelete } from './decide.js';
import { executePlan } from './execute.js';
import { logLineOf, type PushReport } from './push.js';
import { recordPush } from './push-journal.js';
import { inScope, restrict, scopeOf, type Scope } from './cycle-scope.js';
import { ScopedReader } from './scoped-read.js';
import type { Session } from './session.js';
import { settleBase } from './settle.js';
import { UNSAVED_BASE_MAX_ENTRIES } from './tunables.js';

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

/** Does the remote entry hold what we sent? */
function holds(exp: Expectation, r: Entry | undefined): boolean {
  if (exp === null) return r === undefined;
  if (!r || r.executable !== exp.executable) return false;
  // A file above hashMaxBytes comes without a hash: same size is taken as ours (resolveRemote's presumption).
  if (r.hash === null) return exp.size !== null && r.size === exp.size;
  return r.hash === exp.hash && (exp.size === null || r.size === exp.size);
}

export class ScopedSync {
  private readonly reader: ScopedReader;
  private readonly record: UnverifiedStore;
  /** Sent, not yet seen on the remote. */
  private readonly unverified = new Map<string, Expectation>();
  /** Verified into `base` in memory, not yet saved to state.bin. */
  private readonly unsaved = new Map<string, Expectation>();
  /** The working base; null until loaded (a daemon loads it after its first full push). */
  private base: Snapshot | null = null;
  private dirty = false;

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
    this.base = (await this.session.store.load()).base;
    this.dirty = false;
  }

  /** True when a scoped cycle can run (a base exists to merge against). */
  get ready(): boolean {
    return this.base !== null;
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
      return null;
    }
    const report = await this.cycle({ ...opts, paths: [] });
    await this.flush();
    return report;
  }

  /** Saves the working base to state.bin and trims the record to what is still unverified. */
  async flush(): Promise<void> {
    if (this.dirty && this.base) {
      const state = await this.session.store.load();
      await this.session.store.save({ base: this.base, remote: state.remote });
      this.dirty = false;
    }
    if (this.unsaved.size > 0 || this.unverified.size === 0) {
      this.unsaved.clear();
      await this.record.save(this.unverified);
    }
  }

  /** One scoped cycle over the batch's paths and every unverified write. */
  async cycle(opts: ScopedCycleOptions): Promise<PushReport> {
    const started = Date.now();
    const { session } = this;
    const { client, config, store } = session;
    if (this.base === null) await this.reload();
    const scope = this.scopeFor(opts.paths);
    if (scope === null) throw new Error('scoped cycle: the batch spans the root (a full push is needed)');
    const remote = await this.reader.read(scope);

    // Earlier writes inside this read are now verified (or found replaced: the base keeps
    // its entry, and the merge below calls a foreign change a conflict, never overwrites it).
    const base: Snapshot = this.base ?? new Map();
    for (const [p, exp] of this.unverified) {
      if (!inScope(scope, p)) continue;
      const r = remote.snapshot.get(p);
      if (holds(exp, r)) {
        if (exp === null) base.delete(p);
        else base.set(p, { path: p, hash: r!.hash ?? exp.hash, size: r!.size, executable: exp.executable });
        this.unsaved.set(p, exp);
        this.dirty = true;
      }
      this.unverified.delete(p);
    }

    const baseIn = restrict(base, scope);
    const decideWith = (protect: readonly string[]) =>
      decide({ base: baseIn, scanned: restrict(opts.local, scope), skipped: [...opts.skipped, ...protect], remote, options: { force: false, mirror: false } });
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
    const report: PushReport = {
      dryRun: false,
      changes: rec.changes,
      plan,
      counts: { written: 0, deleted: 0, moved: 0, chmod: 0 },
      conflicts: rec.conflicts,
      drift: rec.drift,
      remoteOnly: rec.remoteOnly,
      failures: [],
      warnings: [],
      overwrites: [],
      applyPending: false,
      checkRequests: 0,
      massDelete: guard,
      heldDeletes: held,
      apply: null,
      applyRefused: null,
      health: null,
      healthy: null,
      leftOut: [],
      overwritten: [],
      durationMs: 0,
      backup: null,
    };

    // Inside the scope the base becomes what the merge settled (L = R adopted; a change
    // keeps its old entry until a later read verifies it).
    const settled = settleBase(baseIn, rec);
    for (const p of baseIn.keys()) if (!settled.has(p)) base.delete(p);
    for (const [p, e] of settled) base.set(p, e);
    if (settled.size !== baseIn.size || [...settled].some(([p, e]) => baseIn.get(p) !== e)) this.dirty = true;
    this.base = base;

    let applyPending = await store.applyPending();
    const vanished: string[] = [];
    if (plan.steps.length > 0) {
      for (const c of rec.changes) this.expect(c);
      // Three independent files, each needed before the first byte is sent: written side by
      // side, so the cycle waits for the slowest, not their sum.
      await Promise.all([
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

    if (applyPending && !opts.noApply && report.failures.every((f) => f.permanent)) {
      const changed = changedPaths(rec.changes);
      const applied = await client.deployments.apply(applyRequestFor(config.restart, session.hotPaths, changed, config.applyWaitSeconds));
      await store.setApplyPending(false);
      report.apply = applied;
      report.health = await awaitHealth(client, applied, config.health, { started: applied.restarted });
      report.healthy = report.health.healthy;
      report.leftOut = [...new Set([...report.failures.map((f) => f.path), ...vanished])].sort();
    }
    report.applyPending = applyPending && report.apply === null;
    if (this.unsaved.size > UNSAVED_BASE_MAX_ENTRIES) await this.flush();
    report.durationMs = Date.now() - started;
    if (plan.steps.length > 0 || report.apply) {
      await store.appendLog(logLineOf('watch', report, client.stats().total));
    }
    return report;
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
