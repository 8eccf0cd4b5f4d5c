import { diff as diffCore, type DiffItem } from '../sync/diff.js';
import { deploymentRef, type DeploymentRef } from './options.js';
import { requestsOf, type FailureFields, type Outcome, type RequestsSummary } from './result.js';
import { runOnSession, scopesOf, type PathOptions } from './session-command.js';

export type DiffOptions = PathOptions;
export type { DiffItem } from '../sync/diff.js';

/** What `diff --json` prints and `diff()` resolves to. `ok` is true whenever it ran, whatever it found. */
export interface DiffResult extends Partial<FailureFields> {
  ok: boolean;
  files: DiffItem[];
  requests: RequestsSummary;
  warnings: string[];
  deployment: DeploymentRef | null;
}

export const emptyDiffResult = (): DiffResult => ({ ok: false, files: [], requests: requestsOf(null), warnings: [], deployment: null });

/** `hostsync diff` as a function. Never rejects. */
export function runDiff(opts: DiffOptions = {}): Promise<{ result: Outcome<DiffResult>; thrown: boolean }> {
  return runOnSession(
    opts,
    (known) => ({ ...emptyDiffResult(), ...known }),
    async (session) => {
      const report = await diffCore(session, scopesOf(session, opts));
      return { ok: true, files: report.items, requests: requestsOf(session.client.stats()), warnings: report.warnings, deployment: deploymentRef(session.config) };
    },
  );
}

export async function diff(opts: DiffOptions = {}): Promise<DiffResult> {
  return (await runDiff(opts)).result;
}
