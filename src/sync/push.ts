import { MAX_PLAN_ROUNDS } from '../config/tunables.js';
import { refusal } from '../cli/exit-codes.js';
import { scanTree } from '../local/scan.js';
import type { ApplyResult } from '../remote/api-types.js';
import { applyRequestFor, isHealthy } from './apply.js';
import { executePlan, type ExecResult, type ProgressFn, type StepFailure } from './execute.js';
import { massDeleteGuard, planChanges } from './plan.js';
import { reconcile } from './reconcile.js';
import { readRemote, type RemoteRead } from './remote-read.js';
import type { Session } from './session.js';
import { settleBase } from './settle.js';
import type { Change, Conflict, Drift, Plan, Reconciliation, Snapshot } from './types.js';

export interface PushOptions {
  dryRun?: boolean;
  force?: boolean;
  mirror?: boolean;
  noApply?: boolean;
  allowMassDelete?: boolean;
  onProgress?: ProgressFn;
  /** Watch mode hands in its incrementally maintained local snapshot instead of a full scan. */
  local?: Snapshot;
}

export interface ChangeCounts {
  written: number;
  deleted: number;
  moved: number;
  chmod: number;
}

/** Everything a push did or would do; the porcelain renders it, `--json` prints it. */
export interface PushReport {
  dryRun: boolean;
  /** The changes planned in the first round (what `status` would list). */
  changes: Change[];
  plan: Plan;
  counts: ChangeCounts;
  conflicts: Conflict[];
  drift: Drift[];
  remoteOnly: string[];
  failures: StepFailure[];
  warnings: string[];
  /** The mass-delete guard's verdict on the first plan (status shows it; push refuses on it). */
  massDelete: { refuse: boolean; deletes: number; tracked: number };
  apply: ApplyResult | null;
  healthy: boolean | null;
  durationMs: number;
}

const noCounts = (): ChangeCounts => ({ written: 0, deleted: 0, moved: 0, chmod: 0 });

function addCounts(into: ChangeCounts, r: ExecResult): void {
  into.written += r.written;
  into.deleted += r.deleted;
  into.moved += r.moved;
  into.chmod += r.chmod;
}

export function changedPaths(changes: readonly Change[]): string[] {
  return changes.flatMap((c) => (c.kind === 'rename' ? [c.from, c.to] : [c.path]));
}

/**
 * One push: scan -> read remote -> reconcile -> guard -> plan -> execute -> verify ->
 * save base -> apply. The base is saved only from a fresh index taken after the
 * transfer, so a push killed at any instant leaves the old base, from which the next
 * push converges (a file that already landed then reads as L = R and is adopted).
 */
export async function push(session: Session, opts: PushOptions = {}): Promise<PushReport> {
  const started = Date.now();
  const { config, client, matcher, cache, store } = session;
  const reconcileOpts = { force: opts.force ?? false, mirror: opts.mirror ?? false };

  let local: Snapshot;
  const warnings: string[] = [];
  if (opts.local) {
    local = opts.local;
  } else {
    opts.onProgress?.({ phase: 'scan', done: 0, total: 0 });
    const scanned = await scanTree({ root: config.root, matcher, cache });
    await cache.save();
    local = scanned.snapshot;
    warnings.push(...scanned.warnings);
  }

  const state = await store.load();
  opts.onProgress?.({ phase: 'index', done: 0, total: 1 });
  let remote: RemoteRead = await readRemote(client, matcher, state.remote);
  let rec: Reconciliation = reconcile(state.base, local, remote.snapshot, reconcileOpts);
  const firstRec = rec;
  const firstPlan = planChanges(rec.changes, remote.snapshot);

  const tracked = state.base?.size ?? remote.snapshot.size;
  const guard = massDeleteGuard(rec.changes, tracked);
  if (guard.refuse && !opts.allowMassDelete) {
    throw refusal(
      `refusing to delete ${guard.deletes} of ${guard.tracked} tracked files on the deployment (wrong --dir, or an emptied checkout?): check the directory, or pass --allow-mass-delete`,
    );
  }

  const report: PushReport = {
    dryRun: opts.dryRun ?? false,
    changes: firstRec.changes,
    plan: firstPlan,
    counts: noCounts(),
    conflicts: firstRec.conflicts,
    drift: firstRec.drift,
    remoteOnly: firstRec.remoteOnly,
    failures: [],
    warnings,
    massDelete: guard,
    apply: null,
    healthy: null,
    durationMs: 0,
  };
  if (opts.dryRun) {
    report.durationMs = Date.now() - started;
    return report;
  }

  let transferred = false;
  if (remote.leftovers.length > 0) {
    await client.files.delete(remote.leftovers);
    transferred = true;
  }

  // Execute, re-reading the remote and re-planning after an unknown outcome: the
  // three-way merge treats what already landed as L = R, so a re-plan never repeats it.
  let plan = firstPlan;
  for (let round = 0; round < MAX_PLAN_ROUNDS && plan.steps.length > 0; round++) {
    const result = await executePlan(plan, { client, root: config.root, remote: remote.snapshot, ...(opts.onProgress ? { onProgress: opts.onProgress } : {}) });
    addCounts(report.counts, result);
    report.failures = result.failures;
    transferred = true;
    if (!result.outcomeUnknown) break;
    remote = await readRemote(client, matcher, null);
    rec = reconcile(state.base, local, remote.snapshot, reconcileOpts);
    plan = planChanges(rec.changes, remote.snapshot);
    transferred = false; // this read already serves as the verifying index
    if (round === MAX_PLAN_ROUNDS - 1 && plan.steps.length > 0) {
      report.failures.push({ path: '*', error: 'the deployment kept answering with unknown outcomes; run the push again' });
    }
  }

  if (transferred) {
    opts.onProgress?.({ phase: 'verify', done: 0, total: 1 });
    remote = await readRemote(client, matcher, null);
    rec = reconcile(state.base, local, remote.snapshot, reconcileOpts);
  }
  // Whatever did not verify is still a pending change: its base entry stays as it was.
  const base = settleBase(state.base, rec);
  await store.save({ base, remote: { digest: remote.digest, requestKey: remote.requestKey, snapshot: remote.snapshot } });
  for (const pending of rec.changes) {
    const p = pending.kind === 'rename' ? pending.to : pending.path;
    if (!report.failures.some((f) => f.path === p)) report.failures.push({ path: p, error: 'not on the deployment after the push (verification failed)' });
  }

  const landed = report.counts.written + report.counts.deleted + report.counts.moved + report.counts.chmod;
  if (landed > 0 && !opts.noApply) {
    opts.onProgress?.({ phase: 'apply', done: 0, total: 1 });
    const req = applyRequestFor(config.restart, session.hotPaths, changedPaths(firstRec.changes), config.applyWaitSeconds);
    const applied = await client.deployments.apply(req);
    report.apply = applied;
    report.healthy = isHealthy(applied);
  }
  report.durationMs = Date.now() - started;
  await store.appendLog({
    command: 'push',
    ...report.counts,
    conflicts: report.conflicts.length,
    failures: report.failures.length,
    requests: client.stats().total,
    healthy: report.healthy,
    ms: report.durationMs,
  });
  return report;
}
