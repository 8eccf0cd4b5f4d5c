import { push as pushCore } from '../sync/push.js';
import type { Session } from '../sync/session.js';
import { connect, deploymentRef, type ConnectionOptions, type DeploymentRef } from './options.js';
import { changeItem, conflictItem, driftItem, type ChangeItem, type ConflictItem, type DriftItem } from './push.js';
import { requestsOf, runCommand, type FailureFields, type Outcome, type RequestsSummary } from './result.js';

export type StatusOptions = ConnectionOptions;

/** What `status --json` prints and `status()` resolves to; `error` and `exitCode` when `ok` is false. */
export interface StatusResult extends Partial<FailureFields> {
  /** The comparison ran (whatever it found: conflicts and drift are findings, not failures). */
  ok: boolean;
  /** What a push would change. */
  changes: ChangeItem[];
  conflicts: ConflictItem[];
  drift: DriftItem[];
  /** Files only on the deployment, which a push leaves alone (--mirror deletes them). */
  remoteOnly: number;
  requests: RequestsSummary;
  /** Requests the push would take. */
  plannedRequests: number;
  /** The mass-delete guard's verdict: a push would refuse without allowMassDelete. */
  massDelete: { refuse: boolean; deletes: number; tracked: number };
  warnings: string[];
  deployment: DeploymentRef | null;
}

export function emptyStatusResult(): StatusResult {
  return {
    ok: false,
    changes: [],
    conflicts: [],
    drift: [],
    remoteOnly: 0,
    requests: requestsOf(null),
    plannedRequests: 0,
    massDelete: { refuse: false, deletes: 0, tracked: 0 },
    warnings: [],
    deployment: null,
  };
}

/** `hostsync status` as a function: a dry run of push. Never rejects; see runPush. */
export async function runStatus(opts: StatusOptions = {}): Promise<{ result: Outcome<StatusResult>; thrown: boolean }> {
  let session: Session | null = null;
  return runCommand(
    () => ({
      ...emptyStatusResult(),
      requests: requestsOf(session?.client.stats()),
      deployment: session ? deploymentRef(session.config) : null,
    }),
    async () => {
      session = await connect(opts);
      try {
        const report = await pushCore(session, { dryRun: true, allowMassDelete: true });
        return {
          ok: true,
          changes: report.changes.map(changeItem),
          conflicts: report.conflicts.map(conflictItem),
          drift: report.drift.map(driftItem),
          remoteOnly: report.remoteOnly.length,
          requests: requestsOf(session.client.stats()),
          plannedRequests: report.plan.requests,
          massDelete: report.massDelete,
          warnings: report.warnings,
          deployment: deploymentRef(session.config),
        };
      } finally {
        await session.close();
      }
    },
    () => session?.config.apiKey ?? opts.apiKey ?? (opts.env ?? process.env).HOSTSYNC_API_KEY,
  );
}

export async function status(opts: StatusOptions = {}): Promise<StatusResult> {
  return (await runStatus(opts)).result;
}
