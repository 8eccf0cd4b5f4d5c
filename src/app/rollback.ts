import type { ApplyResult } from '../api/types.js';
import { EXIT } from '../errors.js';
import type { HealthReport } from '../sync/apply/apply.js';
import type { StepFailure } from '../sync/push/execute.js';
import type { LeftAloneWhy } from '../sync/core/rollback-plan.js';
import { rollback as rollbackCore, type RollbackReport } from '../sync/two-way/rollback.js';
import type { ProgressFn } from '../sync/push/execute.js';
import type { ConnectionOptions, DeploymentRef } from './options.js';
import { deploymentRef } from './options.js';
import { failedWith, requestsOf, SEE_LOGS, type FailureFields, type Outcome, type RequestsSummary } from './result.js';
import { runOnSession } from './session-command.js';

export interface RollbackOptions extends ConnectionOptions {
  /** The push to go back to: its id as history lists it (a unique prefix of 4 or more characters). */
  id: string;
  /** Roll back paths changed on the deployment since hostsync left them too (what they held is kept by the API). */
  force?: boolean;
  dryRun?: boolean;
  /** Call deployments.apply afterwards; default true. */
  apply?: boolean;
  onProgress?: ProgressFn;
}

/** What `rollback --json` prints and `rollback()` resolves to; `error` and `exitCode` when `ok` is false. */
export interface RollbackResult extends Partial<FailureFields> {
  ok: boolean;
  dryRun: boolean;
  /** The push gone back to. */
  to: { id: string; time: string; kind: string; host: string; dir: string } | null;
  /** The rollback's own batch in the record (`undo` or another rollback takes it back). */
  batchId: string | null;
  restored: string[];
  deleted: string[];
  chmod: { path: string; executable: boolean }[];
  conflicts: { path: string; why: string }[];
  leftAlone: { path: string; why: LeftAloneWhy }[];
  /** Files with neither a files.history version nor a copy to come back from: refused, nothing changed. */
  missing: string[];
  /** Why, per missing file (the history holds no version and: no copy was taken, the copy is gone, or the record names it outside `.hostsync/backups/`). */
  missingReasons: { path: string; why: string }[];
  /** Files in `restored` that come back from a push's undo copy (an archive under `.hostsync/backups/`), not from files.history. */
  fromCopy: { path: string; archive: string }[];
  /** Requests the changes cost (for a dry run: would cost), past the reads that planned them. */
  plannedRequests: number;
  counts: { restored: number; deleted: number; chmod: number };
  failures: StepFailure[];
  requests: RequestsSummary;
  apply: ApplyResult | null;
  health: HealthReport | null;
  healthy: boolean | null;
  durationMs: number;
  deployment: DeploymentRef | null;
}

export const emptyRollbackResult = (): RollbackResult => ({
  ok: false, dryRun: false, to: null, batchId: null, restored: [], deleted: [], chmod: [], conflicts: [], leftAlone: [], missing: [], missingReasons: [], fromCopy: [], plannedRequests: 0,
  counts: { restored: 0, deleted: 0, chmod: 0 }, failures: [], requests: requestsOf(null), apply: null, health: null, healthy: null, durationMs: 0, deployment: null,
});

const named = (paths: readonly string[]): string => `${paths.slice(0, 5).join(', ')}${paths.length > 5 ? ` and ${paths.length - 5} more` : ''}`;

export function rollbackResultOf(report: RollbackReport, requests: RequestsSummary, deployment: DeploymentRef, force: boolean): Outcome<RollbackResult> {
  const { plan } = report;
  const h = plan.target;
  const result: RollbackResult = {
    ok: true,
    dryRun: report.dryRun,
    to: { id: h.id, time: h.t, kind: h.kind, host: h.host, dir: h.dir },
    batchId: report.batchId,
    restored: plan.restores.map((r) => r.path),
    deleted: plan.deletes,
    chmod: plan.chmods,
    conflicts: plan.conflicts,
    leftAlone: plan.leftAlone,
    missing: report.missing.map((m) => m.path),
    missingReasons: report.missing,
    fromCopy: report.fromCopies,
    plannedRequests: report.plannedRequests,
    counts: report.counts,
    failures: report.failures,
    requests,
    apply: report.apply,
    health: report.health,
    healthy: report.healthy,
    durationMs: report.durationMs,
    deployment,
  };
  if (plan.conflicts.length > 0 && !force) {
    return failedWith(
      result,
      `changed on the deployment since hostsync left ${plan.conflicts.length === 1 ? 'it' : 'them'}: ${named(plan.conflicts.map((c) => c.path))}; the rollback would overwrite that, so it changed nothing (hostsync diff shows it; --force rolls back anyway, the API keeps what it replaces)`,
      EXIT.refused,
    );
  }
  if (report.missing.length > 0) {
    const byWhy = new Map<string, string[]>();
    for (const m of report.missing) byWhy.set(m.why, [...(byWhy.get(m.why) ?? []), m.path]);
    const why = [...byWhy].map(([w, paths]) => `${named(paths)}: ${w}`).join('; ');
    return failedWith(result, `cannot bring back ${why}; the rollback changed nothing`, EXIT.refused);
  }
  if (report.failures.length > 0) {
    const f = report.failures[0]!;
    return failedWith(result, `${report.failures.length} file(s) did not come back (first: ${f.path}: ${f.error}); the rollback is recorded: run it again, or \`hostsync undo\` to take it back`, EXIT.failed);
  }
  if (report.healthy === false) return failedWith(result, `the deployment is unhealthy after the rollback: ${report.health?.reason ?? report.apply?.state}; ${SEE_LOGS}`, EXIT.unhealthy);
  return result;
}

/** `hostsync rollback <id>` as a function: the deployment's files back to what they were right after push `<id>`. Never rejects; never touches local files. */
export function runRollback(opts: RollbackOptions): Promise<{ result: Outcome<RollbackResult>; thrown: boolean }> {
  const started = Date.now();
  return runOnSession(
    opts,
    (known) => ({ ...emptyRollbackResult(), ...known, dryRun: opts.dryRun ?? false, durationMs: Date.now() - started }),
    async (session) => {
      const report = await rollbackCore(session, {
        id: opts.id,
        force: opts.force ?? false,
        dryRun: opts.dryRun ?? false,
        noApply: opts.apply === false,
        ...(opts.onProgress ? { onProgress: opts.onProgress } : {}),
      });
      return rollbackResultOf(report, requestsOf(session.client.stats()), deploymentRef(session.config), opts.force ?? false);
    },
    opts.dryRun ? undefined : 'roll back',
  );
}

export async function rollback(opts: RollbackOptions): Promise<RollbackResult> {
  return (await runRollback(opts)).result;
}
