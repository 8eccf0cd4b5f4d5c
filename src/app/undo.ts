import type { ApplyResult } from '../api/types.js';
import { EXIT } from '../errors.js';
import type { HealthReport } from '../sync/apply/apply.js';
import type { StepFailure } from '../sync/push/execute.js';
import { undo as undoCore, type UndoCounts, type UndoReport } from '../sync/two-way/undo.js';
import type { ConnectionOptions, DeploymentRef } from './options.js';
import { deploymentRef } from './options.js';
import { failedWith, requestsOf, SEE_LOGS, type FailureFields, type Outcome, type RequestsSummary } from './result.js';
import { runOnSession } from './session-command.js';

export interface UndoOptions extends ConnectionOptions {
  /** How many pushes to take back, newest first; default 1. */
  steps?: number;
  /** Show what would be taken back; change nothing. */
  dryRun?: boolean;
  /** Call deployments.apply afterwards; default true. */
  apply?: boolean;
  /** Finish an interrupted undo (a plain undo does too); refused (exit 3) when none is pending. */
  continue?: boolean;
  /** End an interrupted undo where it stopped, keeping the deployment as it is; nothing is sent. */
  abandon?: boolean;
}

/** One push taken back (or, with dryRun, that would be). */
export interface UndoneItem {
  /** The journal id, as `history` lists it. */
  id: string;
  startedAt: string;
  /** Overwritten or deleted files brought back. */
  restored: string[];
  /** Files the push created, deleted again. */
  deleted: string[];
  movedBack: { from: string; to: string }[];
  chmod: { path: string; executable: boolean }[];
  /** Paths of that push the app owns (hostsync.json "remoteOwned"), left as the app has them. */
  remoteOwned: string[];
}

/** What `undo --json` prints and `undo()` resolves to; `error` and `exitCode` when `ok` is false. */
export interface UndoResult extends Partial<FailureFields> {
  ok: boolean;
  dryRun: boolean;
  undone: UndoneItem[];
  counts: UndoCounts;
  failures: StepFailure[];
  /** Paths the deployment changed while the undo ran: left as they were (exit 3); the push stays in history. */
  held: string[];
  /** This run finished an undo that had been interrupted. */
  continued: boolean;
  /** This run ended an interrupted undo where it stopped (--abandon). */
  abandoned: boolean;
  requests: RequestsSummary;
  apply: ApplyResult | null;
  health: HealthReport | null;
  healthy: boolean | null;
  durationMs: number;
  deployment: DeploymentRef | null;
}

export const emptyUndoResult = (): UndoResult => ({
  ok: false, dryRun: false, undone: [], counts: { restored: 0, deleted: 0, moved: 0, chmod: 0 }, failures: [], held: [], continued: false, abandoned: false,
  requests: requestsOf(null), apply: null, health: null, healthy: null, durationMs: 0, deployment: null,
});

export function undoResultOf(report: UndoReport, requests: RequestsSummary, deployment: DeploymentRef): Outcome<UndoResult> {
  const result: UndoResult = {
    ok: true,
    dryRun: report.dryRun,
    undone: report.steps.map((s) => ({
      id: s.journal.id,
      startedAt: s.journal.startedAt,
      restored: s.plan.restores.map((r) => r.path),
      deleted: s.plan.deletes,
      movedBack: s.plan.renames,
      chmod: s.plan.chmods,
      remoteOwned: s.plan.owned,
    })),
    counts: report.counts,
    failures: report.failures,
    held: report.held,
    continued: report.continued,
    abandoned: report.abandoned,
    requests,
    apply: report.apply,
    health: report.health,
    healthy: report.healthy,
    durationMs: report.durationMs,
    deployment,
  };
  if (report.failures.length > 0) {
    const f = report.failures[0]!;
    return failedWith(result, `${report.failures.length} file(s) did not come back (first: ${f.path}: ${f.error}); the push stays in history: run undo again`, EXIT.failed);
  }
  if (report.held.length > 0) {
    const n = report.held.length;
    return failedWith(
      result,
      `${n === 1 ? `${report.held[0]} was` : `${n} files were (first: ${report.held[0]})`} changed on the deployment while the undo ran: left as ${n === 1 ? 'it is' : 'they are'}, not overwritten; the rest was taken back and the push stays in history (hostsync diff shows the change)`,
      EXIT.refused,
    );
  }
  if (report.healthy === false) {
    return failedWith(result, `the deployment is unhealthy after the undo: ${report.health?.reason ?? report.apply?.state}; ${SEE_LOGS}`, EXIT.unhealthy);
  }
  return result;
}

/** `hostsync undo` as a function: takes back the last push(es) on the deployment. Never rejects; never touches local files. */
export function runUndo(opts: UndoOptions = {}): Promise<{ result: Outcome<UndoResult>; thrown: boolean }> {
  const started = Date.now();
  return runOnSession(
    opts,
    (known) => ({ ...emptyUndoResult(), ...known, dryRun: opts.dryRun ?? false, durationMs: Date.now() - started }),
    async (session) => {
      const report = await undoCore(session, {
        steps: opts.steps ?? 1,
        dryRun: opts.dryRun ?? false,
        noApply: opts.apply === false,
        continue: opts.continue ?? false,
        abandon: opts.abandon ?? false,
      });
      return undoResultOf(report, requestsOf(session.client.stats()), deploymentRef(session.config));
    },
    // It changes the deployment like a push: a target with "confirm": true is asked first.
    // A dry run and --abandon send nothing.
    opts.dryRun || opts.abandon ? undefined : 'undo pushes on',
  );
}

export async function undo(opts: UndoOptions = {}): Promise<UndoResult> {
  return (await runUndo(opts)).result;
}
