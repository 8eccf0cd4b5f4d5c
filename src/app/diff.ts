import { diff as diffCore, type DiffItem, type DiffReport } from '../sync/two-way/diff.js';
import type { CopyPosition } from '../sync/core/copy-position.js';
import type { Session } from '../sync/session.js';
import { readWatchStatus } from '../state/watch-status.js';
import { SCANNED, withLocalSide, type LocalSource } from './watch-answer.js';
import { deploymentRef, type DeploymentRef } from './options.js';
import { requestsOf, type FailureFields, type Outcome, type RequestsSummary } from './result.js';
import { runOnSession, scopesOf, type PathOptions } from './session-command.js';

export interface DiffOptions extends PathOptions {
  /** Look at every file even when a running watch could say what changed. */
  scan?: boolean;
}
export type { DiffItem } from '../sync/two-way/diff.js';

/** What `diff --json` prints and `diff()` resolves to. `ok` is true whenever it ran, whatever it found. */
export interface DiffResult extends Partial<FailureFields> {
  ok: boolean;
  files: DiffItem[];
  requests: RequestsSummary;
  warnings: string[];
  deployment: DeploymentRef | null;
  /** A whole-tree diff's local side: from the running watch's answer or a scan, and why (as status's). */
  local: LocalSource;
  /** This copy against the deployment's last push (git's ahead/behind); null for a diff of named paths. */
  position: CopyPosition | null;
}

export const emptyDiffResult = (): DiffResult => ({ ok: false, files: [], requests: requestsOf(null), warnings: [], deployment: null, local: SCANNED, position: null });

/** `hostsync diff` as a function. Never rejects. */
export function runDiff(opts: DiffOptions = {}): Promise<{ result: Outcome<DiffResult>; thrown: boolean }> {
  return runOnSession(
    opts,
    (known) => ({ ...emptyDiffResult(), ...known }),
    async (session) => {
      const scopes = scopesOf(session, opts);
      const { report, local } = await compare(session, scopes, opts.scan ?? false);
      return { ok: true, files: report.items, requests: requestsOf(session.client.stats()), warnings: report.warnings, deployment: deploymentRef(session.config), local, position: report.position };
    },
  );
}

/** A whole-tree diff takes the running watch's answer when it gives one, as status does (watch-answer.ts). */
async function compare(session: Session, scopes: string[] | null, scan: boolean): Promise<{ report: DiffReport; local: LocalSource }> {
  if (scopes !== null) return { report: await diffCore(session, scopes), local: SCANNED };
  return withLocalSide(session, await readWatchStatus(session.stateDir), scan, (known) =>
    diffCore(session, null, known && { snapshot: known.local, skipped: known.skipped, warnings: known.warnings }),
  );
}

export async function diff(opts: DiffOptions = {}): Promise<DiffResult> {
  return (await runDiff(opts)).result;
}
