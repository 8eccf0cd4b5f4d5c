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
 */
import { refusal } from '../errors.js';
import type { ApplyResult } from '../api/types.js';
import { entriesEqual, sameContent } from '../model/snapshot.js';
import type { Entry, Snapshot } from '../model/types.js';
import type { Journal } from '../state/journal.js';
import { applyRequestFor, awaitHealth, type HealthReport } from './apply.js';
import type { StepFailure } from './execute.js';
import { journalStore } from './push-journal.js';
import { modeOf } from './plan.js';
import { readRemote } from './remote-read.js';
import { recordBaseChange } from './remote-record.js';
import type { Session } from './session.js';
import { CLOCK_SKEW_IGNORED_MS, DELETE_BATCH_PATHS } from './tunables.js';
import { afterUndo, pickVersion, planUndo, type UndoPlan } from './undo-plan.js';

export interface UndoOptions {
  /** How many pushes to take back, newest first (default 1). */
  steps?: number;
  dryRun?: boolean;
  noApply?: boolean;
}

/** Where a file's earlier content comes from. */
type Source = { kind: 'version'; versionId: string } | { kind: 'copy'; archive: string };

export interface UndoStep {
  journal: Journal;
  plan: UndoPlan;
  sources: Map<string, Source>;
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
  const want = opts.steps ?? 1;
  const open = (await journalStore(session).list()).filter((j) => j.state !== 'undone');
  if (open.length === 0) throw refusal('no push to undo: hostsync history lists the pushes made from this directory');
  if (want > open.length) throw refusal(`only ${plural(open.length, 'push', 'pushes')} can be undone (hostsync history lists them): ask for --steps ${open.length} or fewer`);

  const state = await store.load();
  const remote = await readRemote(client, matcher, state.remote);
  const steps: UndoStep[] = [];
  let sim: Snapshot = remote.snapshot;
  for (const journal of open.slice(0, want)) {
    const plan = planUndo(journal.records, sim);
    if (plan.changed.length > 0) {
      const shown = plan.changed.slice(0, 5).map((c) => `${c.path} (${c.now})`).join(', ');
      const more = plan.changed.length > 5 ? ` and ${plan.changed.length - 5} more` : '';
      throw refusal(
        `the deployment changed since the push of ${journal.startedAt}: ${shown}${more}; undo would overwrite that, so it changed nothing (hostsync diff shows it)`,
      );
    }
    steps.push({ journal, plan, sources: new Map() });
    sim = afterUndo(sim, plan);
  }
  await findSources(session, steps);

  const report: UndoReport = {
    dryRun: opts.dryRun ?? false,
    steps,
    counts: { restored: 0, deleted: 0, moved: 0, chmod: 0 },
    failures: [],
    apply: null,
    health: null,
    healthy: null,
    durationMs: 0,
  };
  const touched = steps.some((s) => hasWork(s.plan));
  if (opts.dryRun || !touched) {
    if (!opts.dryRun) await markUndone(session, steps);
    report.durationMs = Date.now() - started;
    return report;
  }

  await store.setApplyPending(true);
  for (const step of steps) await runStep(session, step, report);

  // Verify: every settled path must hold what it held before its push.
  const expected = new Map<string, Entry | null>();
  for (const s of steps) for (const [p, e] of s.plan.expected) expected.set(p, e);
  let verified = await readRemote(client, matcher, null);
  const exec = await fixModes(session, expected, verified.snapshot);
  if (exec > 0) {
    report.counts.chmod += exec;
    verified = await readRemote(client, matcher, null);
  }
  const failed = new Set(report.failures.map((f) => f.path));
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
  await store.save({
    base,
    remote: verified.leftovers.length === 0
      ? { digest: verified.digest, requestKey: verified.requestKey, snapshot: verified.snapshot, symlinks: verified.symlinks, leftovers: [], record: verified.record }
      : null,
  });
  // What undo put back is hostsync's again, for every machine (not recorded when the record moved meanwhile: then it reads as edited on the deployment, a conflict, never overwritten).
  await recordBaseChange(session, 'undo', state.base, base);
  if (report.failures.length === 0) await markUndone(session, steps);

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
    requests: client.stats().total,
    healthy: report.healthy,
    ms: report.durationMs,
  });
  return report;
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
  const offset = session.client.clockOffsetMs();
  const skew = offset !== null && Math.abs(offset) > CLOCK_SKEW_IGNORED_MS ? offset : 0;
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

const message = (err: unknown): string => (err instanceof Error ? err.message : String(err));

/** One push taken back: deletes first (they free the names renames go back to), then renames, restores, chmods. */
async function runStep(session: Session, step: UndoStep, report: UndoReport): Promise<void> {
  const { client } = session;
  const { plan } = step;
  const attempt = async (paths: string[], fn: () => Promise<void>): Promise<void> => {
    try {
      await fn();
    } catch (err) {
      for (const p of paths) report.failures.push({ path: p, error: message(err) });
    }
  };
  for (let i = 0; i < plan.deletes.length; i += DELETE_BATCH_PATHS) {
    const batch = plan.deletes.slice(i, i + DELETE_BATCH_PATHS);
    await attempt(batch, async () => {
      report.counts.deleted += (await client.files.delete(batch)).deleted;
    });
  }
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
  for (const c of plan.chmods) {
    await attempt([c.path], async () => {
      await client.files.chmod(c.path, modeOf(c.executable));
      report.counts.chmod++;
    });
  }
}

/**
 * A restored or renamed-back file with the right bytes but the wrong executable bit (a
 * restore or an extraction need not keep it) is set right. Returns the chmods sent.
 */
async function fixModes(session: Session, expected: Map<string, Entry | null>, now: Snapshot): Promise<number> {
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
