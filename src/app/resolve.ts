import { EXIT } from '../errors.js';
import { usageError } from '../errors.js';
import { resolve as resolveCore } from '../sync/resolve.js';
import type { StepFailure } from '../sync/execute.js';
import { deploymentRef, type DeploymentRef } from './options.js';
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
  failures: StepFailure[];
  requests: RequestsSummary;
  deployment: DeploymentRef | null;
}

export const emptyResolveResult = (): ResolveResult => ({ ok: false, side: null, settled: [], failures: [], requests: requestsOf(null), deployment: null });

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
        failures,
        requests: requestsOf(session.client.stats()),
        deployment: deploymentRef(session.config),
      };
      if (failures.length > 0) return failedWith(result, `${failures[0]!.path}: ${failures[0]!.error}: run resolve again`, EXIT.failed);
      return result;
    },
  );
}

export async function resolve(opts: ResolveOptions): Promise<ResolveResult> {
  return (await runResolve(opts)).result;
}
