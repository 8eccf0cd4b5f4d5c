import { IDLE_CHECK_WAIT_SECONDS, MAX_PLAN_ROUNDS } from './tunables.js';
import { refusal } from '../errors.js';
import { scanTree } from '../local/scan.js';
import type { ApplyResult } from '../api/types.js';
import { applyRequestFor, awaitHealth, type HealthReport } from './apply.js';
import { executePlan, type ExecResult, type ProgressFn, type StepFailure } from './execute.js';
import { guardRemoteSymlinks, protectSkipped } from './guards.js';
import { massDeleteGuard, planChanges } from './plan.js';
import { reconcile } from './reconcile.js';
import { readRemote, type RemoteRead } from './remote-read.js';
import type { Session } from './session.js';
import { settleBase } from './settle.js';
import { entriesEqual, snapshotsEqual, toBaseEntry } from '../model/snapshot.js';
import type { Change, Conflict, Drift, Entry, Plan, Reconciliation, ReconcileOptions, Snapshot } from '../model/types.js';

export interface PushOptions {
  dryRun?: boolean;
  force?: boolean;
  mirror?: boolean;
  noApply?: boolean;
  allowMassDelete?: boolean;
  onProgress?: ProgressFn;
  /** Watch mode hands in its incrementally maintained local snapshot instead of a full scan. */
  local?: Snapshot;
  /** With `local`: the paths its scan skipped (see ScanResult.skipped). */
  skipped?: readonly string[];
  /**
   * With nothing to apply, still read the deployment's state (one deployments.diagnose)
   * and judge its health, so a push to a crashed app never reports green. `hostsync
   * push` sets it; watch's cycles and drift polls do not (they judge after each apply).
   */
  checkIdle?: boolean;
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
  /** The health verdict after the apply, or of the idle check; null when neither ran. */
  health: HealthReport | null;
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

/** Did this change land, judged against a verified remote read? */
function verified(c: Change, local: Snapshot, remote: Snapshot): boolean {
  switch (c.kind) {
    case 'delete':
      return !remote.has(c.path);
    case 'rename':
      return !remote.has(c.from) && entriesEqual(local.get(c.to), remote.get(c.to));
    default:
      return entriesEqual(local.get(c.path), remote.get(c.path));
  }
}

function mergeConflicts(a: Conflict[], b: Conflict[]): Conflict[] {
  const byPath = new Map(a.map((c) => [c.path, c]));
  for (const c of b) if (!byPath.has(c.path)) byPath.set(c.path, c);
  return [...byPath.values()].sort((x, y) => (x.path < y.path ? -1 : x.path > y.path ? 1 : 0));
}

/**
 * One push: scan -> read remote -> reconcile -> guard -> plan -> execute -> verify ->
 * save base -> apply. The base is saved only from a fresh index taken after the
 * transfer, so a push killed at any instant leaves the old base, from which the next
 * push converges (a file that already landed then reads as L = R and is adopted), and
 * an apply-pending marker, so the next push applies even if nothing is left to send.
 */
export async function push(session: Session, opts: PushOptions = {}): Promise<PushReport> {
  const started = Date.now();
  const { config, client, matcher, cache, store } = session;
  const reconcileOpts: ReconcileOptions = { force: opts.force ?? false, mirror: opts.mirror ?? false };

  let scanned: Snapshot;
  let skipped: readonly string[] = opts.skipped ?? [];
  const warnings: string[] = [];
  if (opts.local) {
    scanned = opts.local;
  } else {
    opts.onProgress?.({ phase: 'scan', done: 0, total: 0 });
    const scan = await scanTree({ root: config.root, matcher, cache });
    await cache.save();
    scanned = scan.snapshot;
    skipped = scan.skipped;
    warnings.push(...scan.warnings);
  }

  const state = await store.load();
  opts.onProgress?.({ phase: 'index', done: 0, total: 1 });
  let remote: RemoteRead = await readRemote(client, matcher, state.remote);
  let local = protectSkipped(scanned, state.base, remote.snapshot, skipped);
  const merge = (): Reconciliation =>
    guardRemoteSymlinks(reconcile(state.base, local, remote.snapshot, reconcileOpts), remote.symlinks, state.base);
  let rec = merge();
  const firstRec = rec;
  let plan = planChanges(rec.changes, remote.snapshot);

  const tracked = state.base?.size ?? remote.snapshot.size;
  const guard = massDeleteGuard(rec.changes, tracked);
  if (guard.refuse && !opts.allowMassDelete && !opts.dryRun) {
    throw refusal(
      `refusing to delete ${guard.deletes} of ${guard.tracked} tracked files on the deployment (wrong --dir, or an emptied checkout?): check the directory, or pass --allow-mass-delete`,
    );
  }

  const report: PushReport = {
    dryRun: opts.dryRun ?? false,
    changes: firstRec.changes,
    plan,
    counts: noCounts(),
    conflicts: firstRec.conflicts,
    drift: firstRec.drift,
    remoteOnly: firstRec.remoteOnly,
    failures: [],
    warnings,
    massDelete: guard,
    apply: null,
    health: null,
    healthy: null,
    durationMs: 0,
  };
  if (opts.dryRun) {
    report.durationMs = Date.now() - started;
    return report;
  }

  let applyPending = state.applyPending;
  if (plan.steps.length > 0 && !applyPending) {
    await store.setApplyPending(true);
    applyPending = true;
  }

  // Execute, re-reading the remote and re-planning after an unknown outcome: the
  // three-way merge treats what already landed as L = R, so a re-plan never repeats it.
  const intended: Change[] = [];
  const sent = new Map<string, string>();
  const vanished = new Set<string>();
  let stale = false; // the remote changed since `remote` was read
  for (let round = 0; round < MAX_PLAN_ROUNDS; round++) {
    if (remote.leftovers.length > 0) {
      await client.files.delete(remote.leftovers);
      stale = true;
    }
    if (plan.steps.length === 0) break;
    intended.push(...rec.changes);
    const result = await executePlan(plan, { client, root: config.root, remote: remote.snapshot, ...(opts.onProgress ? { onProgress: opts.onProgress } : {}) });
    addCounts(report.counts, result);
    report.failures.push(...result.failures);
    for (const [p, h] of result.sent) sent.set(p, h);
    for (const p of result.vanished) vanished.add(p);
    stale = true;
    if (!result.outcomeUnknown) break;
    remote = await readRemote(client, matcher, null);
    local = protectSkipped(scanned, state.base, remote.snapshot, skipped);
    rec = merge();
    plan = planChanges(rec.changes, remote.snapshot);
    stale = false;
    if (round === MAX_PLAN_ROUNDS - 1 && plan.steps.length > 0) {
      report.failures.push({ path: '*', error: 'the deployment kept answering with unknown outcomes; run the push again' });
    }
  }

  if (stale) {
    opts.onProgress?.({ phase: 'verify', done: 0, total: 1 });
    remote = await readRemote(client, matcher, null);
    local = protectSkipped(scanned, state.base, remote.snapshot, skipped);
    rec = merge();
  }
  // End to end: every change we meant to make is checked against the verified remote.
  const failed = new Set([...report.failures.map((f) => f.path), ...vanished]);
  for (const p of vanished) warnings.push(`${p} disappeared locally during the push: not sent (the next push handles its deletion)`);
  // A write that does not verify but whose remote bytes hash to exactly what we sent raced
  // a local edit (the file changed between the scan and the read that sent it). Those bytes
  // are ours, so they become its base entry: the next push sends the newer file as a plain
  // modification instead of calling it a conflict with itself. Bytes we did not send
  // (someone else wrote after us) stay a conflict: never adopted, never overwritten.
  const raced = new Map<string, Entry>();
  for (const c of intended) {
    const p = c.kind === 'rename' ? c.to : c.path;
    if (!failed.has(p) && !verified(c, local, remote.snapshot)) {
      report.failures.push({ path: p, error: 'not as pushed on the deployment after the push (verification failed)' });
      failed.add(p);
      const landed = remote.snapshot.get(p);
      if (c.kind === 'write' && landed && landed.hash !== null && landed.hash === sent.get(p)) raced.set(p, landed);
    }
  }
  report.conflicts = mergeConflicts(firstRec.conflicts, rec.conflicts.filter((c) => !raced.has(c.path)));

  // Whatever did not verify is still a pending change: its base entry stays as it was.
  const base = settleBase(state.base, rec);
  for (const [p, landed] of raced) base.set(p, toBaseEntry(landed));
  // Our own archive left by a failed decompress: removed now, and the cache is not
  // trusted (its digest covers the archive we just deleted).
  const leftovers = remote.leftovers;
  if (leftovers.length > 0) await client.files.delete(leftovers);
  // A no-op against an unchanged remote leaves the state as it was: skip rewriting it (at
  // 100k files that is 12 MB, and watch's drift poll is such a push every 30 s).
  const unchanged = remote.fromCache && !stale && leftovers.length === 0 && snapshotsEqual(base, state.base);
  if (!unchanged) {
    await store.save({
      base,
      remote: leftovers.length > 0 ? null : { digest: remote.digest, requestKey: remote.requestKey, snapshot: remote.snapshot, symlinks: remote.symlinks, leftovers: [] },
    });
  }

  // A half-applied change set is not restarted into: the failures are reported (exit 1)
  // and the apply stays pending for the push that completes it.
  // Permanent refusals (a folder in the way) will not be fixed by waiting, so they do not
  // hold back the apply of everything else.
  if (applyPending && !opts.noApply && report.failures.every((f) => f.permanent)) {
    opts.onProgress?.({ phase: 'apply', done: 0, total: 1 });
    const req = applyRequestFor(config.restart, session.hotPaths, changedPaths(intended.length > 0 ? intended : firstRec.changes), config.applyWaitSeconds);
    const applied = await client.deployments.apply(req);
    await store.setApplyPending(false);
    report.apply = applied;
    opts.onProgress?.({ phase: 'health', done: 0, total: 1 });
    report.health = await awaitHealth(client, applied, config.health, { started: applied.restarted });
    report.healthy = report.health.healthy;
  } else if (opts.checkIdle && !applyPending && !opts.noApply && report.failures.length === 0) {
    // Nothing to send, but "up to date" must not read green while the app is down.
    const diagnosed = await client.deployments.diagnose(Math.min(config.health.timeoutSeconds, IDLE_CHECK_WAIT_SECONDS));
    report.health = await awaitHealth(client, diagnosed, config.health, { started: false, once: true });
    report.health.requests += 1;
    report.healthy = report.health.healthy;
  }
  report.durationMs = Date.now() - started;
  if (unchanged && report.apply === null && report.failures.length === 0) return report; // nothing worth a log line
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
