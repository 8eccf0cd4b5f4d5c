/**
 * `undo`: takes back the last push(es) on the remote from their journals. Never touches
 * the local tree.
 *
 * read the remote -> plan every step (undo-plan.ts, pure; each older step planned
 * against the outcome of the newer one) -> find each restore's source (history version
 * or undo copy) -> refuse, touching nothing, if any path changed since its push or cannot
 * be brought back -> per step: delete what was new, rename back, restore, chmod ->
 * verifying read -> save the base (what the remote now holds) -> mark the journals undone
 * -> apply.
 *
 * Interruption: the undo-pending marker (state/undo-pending.ts) is written before the first
 * remote change and cleared after the base is saved. A marker left by a killed undo makes
 * the next `undo` (or `undo --continue`) finish the same journals, and every merging
 * command refuse meanwhile (undo-guard.ts). `--abandon` instead keeps the remote as it is:
 * each path found back at its pre-push content gets its pre-push base entry.
 *
 * Race: like push (execute.ts, withoutRemoteEdits), each step first re-reads its paths; a
 * path the deployment changed since the plan's read is held back, not overwritten, and
 * the undo ends refused (exit 3) with the push left in history.
 */
import { refusal } from '../../errors.js';
import type { ApplyResult } from '../../api/types.js';
import { entriesEqual, resolveRemote, sameContent } from '../../model/snapshot.js';
import type { Entry, Snapshot } from '../../model/types.js';
import type { Journal } from '../../state/journal.js';
import { applyRequestFor, awaitHealth, type HealthReport } from '../apply/apply.js';
import type { StepFailure } from '../push/execute.js';
import { journalStore } from '../push/push-journal.js';
import { modeOf } from '../core/plan.js';
import { readRemote, readRemoteScope, remoteCacheOf, type RemoteRead } from '../remote-read/remote-read.js';
import { recordBaseChange } from '../record/remote-record.js';
import type { Session } from '../session.js';
import { undoPendingStore } from '../undo-guard.js';
import { foldUnverified, settleUnverified } from '../unverified-fold.js';
import { CLOCK_SKEW_IGNORED_MS } from '../tunables.js';
import { afterUndo, pickVersion, planUndo, type UndoPlan } from '../core/undo-plan.js';
import { attempter, chmodAll, clockSkewMs, deleteAll } from './remote-steps.js';

export interface UndoOptions {
  /** How many pushes to take back, newest first (default 1). */
  steps?: number;
  dryRun?: boolean;
  noApply?: boolean;
  /** Finish an interrupted undo (a plain undo does too); refused when none is pending. */
  continue?: boolean;
  /** Stop an interrupted undo where it is: the base takes what it restored; nothing is sent. */
  abandon?: boolean;
}

/** Where a file's earlier content comes from. */
type Source = { kind: 'version'; versionId: string } | { kind: 'copy'; archive: string };

export interface UndoStep {
  journal: Journal;
  plan: UndoPlan;
  sources: Map<string, Source>;
  /** The remote the plan was made against (the read, or the newer step's outcome): the re-check compares with it. */
  from: Snapshot;
}

export interface UndoCounts {
  restored: number;
  deleted: number;
  moved: number;
  chmod: number;
}

export interface UndoReport {
  dryRun: boolean;
  steps: UndoStep[];
  counts: UndoCounts;
  failures: StepFailure[];
  /** Paths the deployment changed while the undo ran: left as they were (exit 3). */
  held: string[];
  /** This run finished an interrupted undo. */
  continued: boolean;
  /** This run abandoned an interrupted undo (`--abandon`): nothing was sent. */
  abandoned: boolean;
  apply: ApplyResult | null;
  health: HealthReport | null;
  healthy: boolean | null;
  durationMs: number;
}

export async function undo(session: Session, opts: UndoOptions = {}): Promise<UndoReport> {
  const lock = opts.dryRun ? null : await session.hold('undo');
  try {
    return await undoUnderLock(session, opts);
  } finally {
    await lock?.release();
  }
}

const plural = (n: number, one: string, many = `${one}s`): string => `${n} ${n === 1 ? one : many}`;

async function undoUnderLock(session: Session, opts: UndoOptions): Promise<UndoReport> {
  const started = Date.now();
  const { client, config, matcher, store } = session;
  const marker = undoPendingStore(session);
  const pending = await marker.load();
  if (pending === null && (opts.continue || opts.abandon)) throw refusal(`no interrupted undo to ${opts.continue ? 'continue' : 'abandon'}: \`hostsync undo\` takes back the last push`);
  const all = (await journalStore(session).list()).filter((j) => j.state !== 'undone');
  // An interrupted undo is finished first, whatever --steps says: its journals, in its order.
  const open = pending === null ? all : all.filter((j) => pending.journals.includes(j.id));
  const want = pending === null ? (opts.steps ?? 1) : open.length;
  if (pending === null && open.length === 0) throw refusal('no push to undo: hostsync history lists the pushes made from this directory');
  if (want > open.length) throw refusal(`only ${plural(open.length, 'push', 'pushes')} can be undone (hostsync history lists them): ask for --steps ${open.length} or fewer`);

  const loaded = await store.load();
  const remote = await readRemote(client, matcher, loaded.remote);
  const folded = await foldUnverified(session, loaded.base, remote.snapshot);
  const state = { ...loaded, base: folded.base };
  const report: UndoReport = {
    dryRun: opts.dryRun ?? false,
    steps: [],
    counts: { restored: 0, deleted: 0, moved: 0, chmod: 0 },
    failures: [],
    held: [],
    continued: pending !== null && !opts.abandon,
    abandoned: false,
    apply: null,
    health: null,
    healthy: null,
    durationMs: 0,
  };
  if (pending !== null && opts.abandon) {
    if (!opts.dryRun) {
      await abandon(session, open, state.base, remote);
      await settleUnverified(session, folded.covered);
    }
    report.abandoned = !opts.dryRun;
    report.durationMs = Date.now() - started;
    return report;
  }
  const steps = report.steps;
  let sim: Snapshot = remote.snapshot;
  for (const journal of open.slice(0, want)) {
    const plan = planUndo(journal.records, sim, session.remoteOwned);
    if (plan.changed.length > 0) {
      const shown = plan.changed.slice(0, 5).map((c) => `${c.path} (${c.now})`).join(', ');
      const more = plan.changed.length > 5 ? ` and ${plan.changed.length - 5} more` : '';
      const way = pending === null ? '' : '; `hostsync undo --abandon` keeps the deployment as it is now and ends the interrupted undo';
      throw refusal(
        `the deployment changed since the push of ${journal.startedAt}: ${shown}${more}; undo would overwrite that, so it changed nothing (hostsync diff shows it)${way}`,
      );
    }
    steps.push({ journal, plan, sources: new Map(), from: sim });
    sim = afterUndo(sim, plan);
  }
  await findSources(session, steps);

  const touched = steps.some((s) => hasWork(s.plan));
  // An interrupted undo whose every change landed still owes the base save below.
  if (opts.dryRun || (!touched && pending === null)) {
    if (!opts.dryRun) await markUndone(session, steps);
    report.durationMs = Date.now() - started;
    return report;
  }

  if (pending === null) await marker.save({ journals: steps.map((s) => s.journal.id), startedAt: new Date(started).toISOString() });
  await store.setApplyPending(true);
  const held = new Set<string>();
  for (const step of steps) {
    await holdRemoteEdits(session, step, held, new Set(report.failures.map((f) => f.path)));
    await runStep(session, step, report);
  }
  report.held = [...held].sort();

  // Verify: every settled path must hold what it held before its push.
  const expected = new Map<string, Entry | null>();
  for (const s of steps) for (const [p, e] of s.plan.expected) expected.set(p, e);
  let verified = await readRemote(client, matcher, null);
  const exec = await fixModes(session, expected, verified.snapshot);
  if (exec > 0) {
    report.counts.chmod += exec;
    verified = await readRemote(client, matcher, null);
  }
  for (const p of held) expected.delete(p);
  const failed = new Set([...report.failures.map((f) => f.path), ...held]);
  for (const [p, want] of expected) {
    if (failed.has(p) || entriesEqual(verified.snapshot.get(p), want)) continue;
    report.failures.push({ path: p, error: 'did not come back as it was before the push' });
    failed.add(p);
  }

  // Each settled path gets back its base entry from before its push: the sync state is as
  // it was then, so the next push sends the local edits again as plain changes, and what
  // --force or --mirror had overridden is a conflict or remote-only again.
  const base: Snapshot = new Map(state.base ?? []);
  for (const s of steps) {
    for (const r of s.journal.records) {
      if (failed.has(r.path) || !s.plan.expected.has(r.path)) continue;
      if (r.base) base.set(r.path, r.base);
      else base.delete(r.path);
    }
  }
  await store.save({ base, remote: remoteCacheOf(verified) });
  await settleUnverified(session, folded.covered);
  // What undo put back is hostsync's again, for every machine (not recorded when the record moved meanwhile: then it reads as edited on the deployment, a conflict, never overwritten).
  await recordBaseChange(session, 'undo', state.base, base);
  if (report.failures.length === 0 && held.size === 0) await markUndone(session, steps);
  // The base now says what the remote holds: nothing left half-known.
  await marker.clear();

  if (!opts.noApply && report.failures.length === 0) {
    const applied = await client.deployments.apply(applyRequestFor(config.restart, session.hotPaths, [...expected.keys()], config.applyWaitSeconds));
    await store.setApplyPending(false);
    report.apply = applied;
    report.health = await awaitHealth(client, applied, config.health, { started: applied.restarted });
    report.healthy = report.health.healthy;
  }
  report.durationMs = Date.now() - started;
  await store.appendLog({
    command: 'undo',
    steps: steps.length,
    ...report.counts,
    failures: report.failures.length,
    held: report.held.length,
    requests: client.stats().total,
    healthy: report.healthy,
    ms: report.durationMs,
  });
  return report;
}

/** Same remote file for the re-check: both absent, or the same content (size alone where a side has no hash). */
function sameRemote(a: Entry | undefined, b: Entry | undefined): boolean {
  if (!a || !b) return !a && !b;
  if (a.hash === null || b.hash === null) return a.size === b.size;
  return a.size === b.size && a.hash === b.hash;
}

/**
 * Right before a step changes the remote, its paths are read again (one scoped index): a
 * path the deployment changed since the step was planned is taken out of the step, with
 * the other end of its rename, and added to `held`. An older step's plan counts on the
 * newer step's outcome, so a path held there is found changed here too; one that failed
 * there (`failed`) is left out as well, but stays a failure, not a remote edit.
 */
async function holdRemoteEdits(session: Session, step: UndoStep, held: Set<string>, failed: ReadonlySet<string>): Promise<void> {
  const { plan } = step;
  const paths = [...new Set([...plan.deletes, ...plan.renames.flatMap((r) => [r.from, r.to]), ...plan.restores.map((r) => r.path), ...plan.chmods.map((c) => c.path)])];
  if (paths.length === 0) return;
  const now = await readRemoteScope(session.client, session.matcher, paths);
  const linked = (p: string): boolean => now.symlinks.some((l) => p === l || p.startsWith(`${l}/`));
  const changed = new Set(paths.filter((p) => held.has(p) || failed.has(p) || linked(p) || !sameRemote(step.from.get(p), now.snapshot.get(p))));
  if (changed.size === 0) return;
  for (const r of plan.renames) {
    if (changed.has(r.from) || changed.has(r.to)) {
      changed.add(r.from);
      changed.add(r.to);
    }
  }
  plan.deletes = plan.deletes.filter((p) => !changed.has(p));
  plan.renames = plan.renames.filter((r) => !changed.has(r.from));
  plan.restores = plan.restores.filter((r) => !changed.has(r.path));
  plan.chmods = plan.chmods.filter((c) => !changed.has(c.path));
  for (const p of changed) if (!failed.has(p)) held.add(p);
}

/**
 * `undo --abandon`: the interrupted undo ends where it stopped. Each journaled path the
 * remote holds at its pre-push content gets its pre-push base entry (what a finished undo
 * gives it); every other path keeps the pushed one. Newest journal first, so an older
 * push's record wins where the remote went back past both. The journals stay undoable.
 */
async function abandon(session: Session, journals: readonly Journal[], oldBase: Snapshot | null, remote: RemoteRead): Promise<void> {
  const base: Snapshot = new Map(oldBase ?? []);
  for (const j of journals) {
    for (const r of j.records) {
      const cur = remote.snapshot.get(r.path);
      if (!entriesEqual(cur && r.before ? resolveRemote(cur, r.before) : cur, r.before)) continue;
      if (r.base) base.set(r.path, r.base);
      else base.delete(r.path);
    }
  }
  await session.store.save({ base, remote: remoteCacheOf(remote) });
  await undoPendingStore(session).clear();
}

const hasWork = (p: UndoPlan): boolean => p.renames.length + p.restores.length + p.deletes.length + p.chmods.length > 0;

async function markUndone(session: Session, steps: readonly UndoStep[]): Promise<void> {
  const store = journalStore(session);
  const at = new Date().toISOString();
  for (const s of steps) await store.write({ ...s.journal, state: 'undone', undoneAt: at });
}

/**
 * The source of every restore: the push's undo or safety copy when it holds the file (one
 * request brings back all of them), else the history version the push saved. A file with
 * neither refuses the undo before anything is touched.
 */
async function findSources(session: Session, steps: readonly UndoStep[]): Promise<void> {
  const skew = clockSkewMs(session.client);
  const lost: string[] = [];
  for (const step of steps) {
    for (const r of step.plan.restores) {
      const copy = step.journal.archives.find((a) => a.paths.includes(r.path));
      if (copy) {
        step.sources.set(r.path, { kind: 'copy', archive: copy.archive });
        continue;
      }
      const { versions } = await session.client.files.history(r.path);
      const v = pickVersion(versions, Date.parse(step.journal.startedAt) + skew, r.before, CLOCK_SKEW_IGNORED_MS);
      if (v) step.sources.set(r.path, { kind: 'version', versionId: v.id });
      else lost.push(r.path);
    }
  }
  if (lost.length > 0) {
    throw refusal(
      `cannot bring back ${lost.slice(0, 5).join(', ')}${lost.length > 5 ? ` and ${lost.length - 5} more` : ''}: the deployment kept no earlier version (an upload replaced it and the push took no copy, or its history was dropped); undo changed nothing`,
    );
  }
}

/** One push taken back: deletes first (they free the names renames go back to), then renames, restores, chmods. */
async function runStep(session: Session, step: UndoStep, report: UndoReport): Promise<void> {
  const { client } = session;
  const { plan } = step;
  const attempt = attempter(report.failures);
  report.counts.deleted += await deleteAll(client, plan.deletes, attempt);
  for (const r of plan.renames) {
    await attempt([r.from, r.to], async () => {
      await client.files.rename(r.from, r.to);
      report.counts.moved++;
    });
  }
  const copies = new Map<string, string[]>();
  for (const r of plan.restores) {
    const src = step.sources.get(r.path)!;
    if (src.kind === 'copy') copies.set(src.archive, [...(copies.get(src.archive) ?? []), r.path]);
    else {
      await attempt([r.path], async () => {
        await client.files.restore(r.path, src.versionId);
        report.counts.restored++;
      });
    }
  }
  for (const [archive, paths] of copies) {
    // The archive holds exactly the files the push replaced, as they were: it extracts over them at the root.
    await attempt(paths, async () => {
      await client.files.decompress(archive, { root: '/' });
      report.counts.restored += paths.length;
    });
  }
  report.counts.chmod += await chmodAll(client, plan.chmods, attempt);
}

/**
 * A restored or renamed-back file with the right bytes but the wrong executable bit (a
 * restore or an extraction need not keep it) is set right. Returns the chmods sent.
 */
export async function fixModes(session: Session, expected: ReadonlyMap<string, Entry | null>, now: Snapshot): Promise<number> {
  let sent = 0;
  for (const [p, want] of expected) {
    const cur = now.get(p);
    if (!want || !cur || !sameContent(cur, want) || cur.executable === want.executable) continue;
    try {
      await session.client.files.chmod(p, modeOf(want.executable));
      sent++;
    } catch {
      // left to the verification, which reports it
    }
  }
  return sent;
}
