/**
 * `rollback <id>`: puts the deployment's files back to what they were right after batch
 * `<id>` of the base record, from any machine (rollback-plan.ts decides what). Never touches
 * the local tree.
 *
 * read the remote and the record -> plan (pure) -> refuse on conflicts (exit 3, unless
 * forced) -> find every restore's files.history version (one files.history each), and for
 * one without, the undo copy the batch that replaced it names (one files.list per copy) ->
 * refuse, touching nothing, if any has neither -> [dry run ends here] -> record the
 * rollback's batch (one compare-and-swap, BEFORE acting: its befores make a write that does
 * not land harmless; lost: refused, nothing changed) -> journal it (so `undo` takes it back)
 * -> delete what was added since, restore (copy-restore.ts for the copies), chmod -> verify
 * (one scoped index) -> this machine's
 * base takes the target's entries (its local files are then ahead: a push re-applies them)
 * -> apply and health, as push does.
 */
import { refusal, usageError } from '../../errors.js';
import type { ApplyResult } from '../../api/types.js';
import { entriesEqual, resolveRemote, toBaseEntry } from '../../model/snapshot.js';
import type { Snapshot } from '../../model/types.js';
import { applyRequestFor, awaitHealth, type HealthReport } from '../apply/apply.js';
import type { ProgressFn, StepFailure } from '../push/execute.js';
import { finishPush, journalStore } from '../push/push-journal.js';
import { findBatch } from '../record/record-history.js';
import { readRemote, readRemoteScope } from '../remote-read/remote-read.js';
import { commitBatch, parsedRecord, readRecord } from '../record/remote-record.js';
import { planRollback, restoreSources, rollbackRequests, type LeftAloneWhy, type RollbackPlan } from '../core/rollback-plan.js';
import { copyFolderIn } from '../../state/base-record.js';
import { findArchives, restoreFromCopy } from './copy-restore.js';
import type { Session } from '../session.js';
import { refuseWhileUndoPending } from '../undo-guard.js';
import { pickVersion } from '../core/undo-plan.js';
import { fixModes } from './undo.js';
import { attempter, chmodAll, clockSkewMs, deleteAll } from './remote-steps.js';
import { CLOCK_SKEW_IGNORED_MS, DELETE_BATCH_PATHS } from '../tunables.js';

export interface RollbackOptions {
  id: string;
  force?: boolean;
  dryRun?: boolean;
  noApply?: boolean;
  /** Restores done / total (phase 'transfer', in files). */
  onProgress?: ProgressFn;
}

export interface RollbackReport {
  dryRun: boolean;
  plan: RollbackPlan;
  /** Restores with neither a files.history version nor a copy to come from: the rollback was refused, nothing changed. */
  missing: { path: string; why: string }[];
  /** Restores that come from a push's undo copy (the rest from their files.history version). */
  fromCopies: { path: string; archive: string }[];
  /** The rollback's own batch id in the record (null: a dry run, or refused). */
  batchId: string | null;
  /** Requests the changes cost (planned, for a dry run). */
  plannedRequests: number;
  counts: { restored: number; deleted: number; chmod: number };
  failures: StepFailure[];
  apply: ApplyResult | null;
  health: HealthReport | null;
  healthy: boolean | null;
  durationMs: number;
}

export async function rollback(session: Session, opts: RollbackOptions): Promise<RollbackReport> {
  const lock = opts.dryRun ? null : await session.hold('rollback');
  try {
    return await rollbackUnderLock(session, opts);
  } finally {
    await lock?.release();
  }
}

async function rollbackUnderLock(session: Session, opts: RollbackOptions): Promise<RollbackReport> {
  const started = Date.now();
  const { client, config, matcher, store } = session;
  await refuseWhileUndoPending(session, 'a rollback');
  const state = await store.load();
  const remote = await readRemote(client, matcher, state.remote);
  const read = await readRecord(session, remote, !opts.dryRun);
  const record = parsedRecord(read);
  if (record === null) {
    throw refusal(read.warning ?? 'the deployment has no base record yet (no push has recorded one): nothing to roll back to');
  }
  const found = findBatch(record, opts.id);
  if ('error' in found) throw usageError(found.error);
  const secrets = new Set(config.sendSecrets);
  const leftAlone = (p: string): LeftAloneWhy | null =>
    session.remoteOwned.owns(p) ? 'remoteOwned' : secrets.has(p) ? 'sendSecrets' : matcher.ignores(p, false) ? 'ignored' : null;
  const plan = planRollback({ record, index: found.index, remote: remote.snapshot, leftAlone, force: opts.force ?? false });
  const report: RollbackReport = {
    dryRun: opts.dryRun ?? false,
    plan,
    missing: [],
    fromCopies: [],
    batchId: null,
    plannedRequests: rollbackRequests(plan, DELETE_BATCH_PATHS),
    counts: { restored: 0, deleted: 0, chmod: 0 },
    failures: [],
    apply: null,
    health: null,
    healthy: null,
    durationMs: 0,
  };
  const done = (): RollbackReport => ({ ...report, durationMs: Date.now() - started });
  if (plan.conflicts.length > 0 && !opts.force) return done();

  // Every source is found before anything changes: a file with none refuses the whole rollback.
  const skew = clockSkewMs(client);
  const versions = new Map<string, string>();
  const folders = new Set<string>();
  for (const r of plan.restores) {
    const { versions: listed } = await client.files.history(r.path);
    // Another machine's clock is not known: the slack covers clocks NTP keeps.
    const v = pickVersion(listed, Date.parse(r.replacedAt) + skew, r.want, CLOCK_SKEW_IGNORED_MS);
    if (v) versions.set(r.path, v.id);
    else if (r.copy !== null) {
      const folder = copyFolderIn({ copy: r.copy });
      if (folder !== null) folders.add(folder);
    }
  }
  const sources = restoreSources(plan.restores, versions, await findArchives(client, folders));
  report.missing = sources.missing;
  report.fromCopies = sources.copies.flatMap((c) => c.restores.map((r) => ({ path: r.path, archive: `${c.folder}/${c.archive}` })));
  report.plannedRequests = rollbackRequests(plan, DELETE_BATCH_PATHS, sources);
  if (report.missing.length > 0 || opts.dryRun || plan.batch.length === 0) return done();

  const committed = await commitBatch(session, read, 'rollback', plan.batch, () => [], null, { to: plan.target.id });
  if (!committed.ok) throw refusal('the deployment\'s base record changed while the rollback planned (another push?): nothing was changed; run the rollback again');
  report.batchId = committed.id;
  const { journal } = await journalStore(session).begin(
    [...plan.expected].map(([path, after]) => {
      const now = remote.snapshot.get(path);
      return { path, before: now ? toBaseEntry(now) : null, after, base: state.base?.get(path) ?? null };
    }),
    [],
    new Date(),
  );
  await store.setApplyPending(true);

  const attempt = attempter(report.failures);
  report.counts.deleted += await deleteAll(client, plan.deletes, attempt);
  const total = plan.restores.length;
  let restoredOrFailed = 0;
  opts.onProgress?.({ phase: 'transfer', done: 0, total });
  for (const r of plan.restores) {
    const id = sources.versions.get(r.path);
    if (id === undefined) continue;
    await attempt([r.path], async () => {
      await client.files.restore(r.path, id);
      report.counts.restored++;
    });
    opts.onProgress?.({ phase: 'transfer', done: ++restoredOrFailed, total });
  }
  for (const group of sources.copies) {
    const got = await restoreFromCopy(client, group);
    report.counts.restored += got.restored;
    report.failures.push(...got.failures);
    restoredOrFailed += group.restores.length;
    opts.onProgress?.({ phase: 'transfer', done: restoredOrFailed, total });
  }
  report.counts.chmod += await chmodAll(client, plan.chmods, attempt);

  // Verify: each path must hold the target's entry (a restore need not keep the executable bit: set right, then read again).
  opts.onProgress?.({ phase: 'verify', done: 0, total: 1 });
  const paths = [...plan.expected.keys()];
  let now = (await readRemoteScope(client, matcher, paths)).snapshot;
  if ((await fixModes(session, plan.expected, now)) > 0) now = (await readRemoteScope(client, matcher, paths)).snapshot;
  const failed = new Set(report.failures.map((f) => f.path));
  for (const [p, want] of plan.expected) {
    const cur = now.get(p);
    if (failed.has(p) || entriesEqual(cur && want ? resolveRemote(cur, want) : cur, want)) continue;
    report.failures.push({ path: p, error: 'did not come back as it was after the push rolled back to (its history version held other bytes?)' });
    failed.add(p);
  }
  // This machine's base takes the target's entries: its local files are then ahead of the
  // deployment, and a push re-applies them (other machines read the same from the record).
  if (state.base !== null) {
    const base: Snapshot = new Map(state.base);
    for (const [p, want] of plan.expected) {
      if (failed.has(p)) continue;
      if (want) base.set(p, want);
      else base.delete(p);
    }
    await store.save({ base, remote: null });
  }
  await finishPush(session, journal, now);

  if (!opts.noApply && report.failures.length === 0) {
    opts.onProgress?.({ phase: 'apply', done: 0, total: 1 });
    const applied = await client.deployments.apply(applyRequestFor(config.restart, session.hotPaths, paths, config.applyWaitSeconds));
    await store.setApplyPending(false);
    report.apply = applied;
    opts.onProgress?.({ phase: 'health', done: 0, total: 1 });
    report.health = await awaitHealth(client, applied, config.health, { started: applied.restarted });
    report.healthy = report.health.healthy;
  }
  report.durationMs = Date.now() - started;
  await store.appendLog({ command: 'rollback', batch: report.batchId, to: plan.target.id, ...report.counts, failures: report.failures.length, requests: client.stats().total, healthy: report.healthy, ms: report.durationMs });
  return report;
}
