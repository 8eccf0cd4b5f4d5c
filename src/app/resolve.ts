import { EXIT } from '../errors.js';
import { usageError } from '../errors.js';
import { resolve as resolveCore } from '../sync/two-way/resolve.js';
import type { StepFailure } from '../sync/push/execute.js';
import { deploymentRef, type DeploymentRef } from './options.js';
import { conflictItem, type ConflictItem } from './push.js';
import { failedWith, requestsOf, type FailureFields, type Outcome, type RequestsSummary } from './result.js';
import { runOnSession, scopesOf, type PathOptions } from './session-command.js';

export interface ResolveOptions extends PathOptions {
  /** 'theirs' takes the deployment's file here; 'ours' makes the next push write the local one. */
  side: 'ours' | 'theirs';
}

export interface ResolveResult extends Partial<FailureFields> {
  ok: boolean;
  side: 'ours' | 'theirs' | null;
  /** Paths settled (where local and the deployment differed). */
  settled: string[];
  /** Named paths left as they are, with why (a symlink here, or a folder above them that is one). */
  leftAlone: { path: string; why: string }[];
  /** --theirs: files edited here while it ran (kept, not settled). */
  conflicts: ConflictItem[];
  failures: StepFailure[];
  warnings: string[];
  requests: RequestsSummary;
  deployment: DeploymentRef | null;
}

export const emptyResolveResult = (): ResolveResult => ({
  ok: false, side: null, settled: [], leftAlone: [], conflicts: [], failures: [], warnings: [], requests: requestsOf(null), deployment: null,
});

/** `hostsync resolve` as a function. Never rejects. */
export function runResolve(opts: ResolveOptions): Promise<{ result: Outcome<ResolveResult>; thrown: boolean }> {
  return runOnSession<ResolveResult>(
    opts,
    (known) => ({ ...emptyResolveResult(), side: opts.side ?? null, ...known }),
    async (session) => {
      const scopes = scopesOf(session, opts);
      if (scopes === null) throw usageError('resolve needs the paths to settle: hostsync resolve PATH... --ours|--theirs');
      const report = await resolveCore(session, scopes, opts.side);
      const failures = report.pull?.failures ?? [];
      const result: ResolveResult = {
        ok: true,
        side: opts.side,
        settled: report.settled,
        leftAlone: report.leftAlone,
        conflicts: (report.pull?.conflicts ?? []).map(conflictItem),
        failures,
        warnings: report.pull?.warnings ?? [],
        requests: requestsOf(session.client.stats()),
        deployment: deploymentRef(session.config),
      };
      if (failures.length > 0) return failedWith(result, `${failures[0]!.path}: ${failures[0]!.error}: run resolve again`, EXIT.failed);
      if (result.conflicts.length > 0) {
        const c = result.conflicts[0]!;
        return failedWith(result, `${c.path} changed here while resolve ran: your file was kept; run resolve again to take the deployment's`, EXIT.refused);
      }
      if (result.leftAlone.length > 0) return failedWith(result, `${result.leftAlone[0]!.path} not settled: ${result.leftAlone[0]!.why}`, EXIT.refused);
      return result;
    },
  );
}

export async function resolve(opts: ResolveOptions): Promise<ResolveResult> {
  return (await runResolve(opts)).result;
}
