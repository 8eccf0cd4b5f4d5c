import { EXIT } from '../errors.js';
import { pull as pullCore, type PullReport } from '../sync/two-way/pull.js';
import type { StepFailure } from '../sync/push/execute.js';
import { leftAloneOf, type LeftAlone } from '../sync/two-way/left-alone.js';
import { deploymentRef, type DeploymentRef } from './options.js';
import { conflictItem, type ConflictItem } from './push.js';
import { failedWith, requestsOf, type FailureFields, type Outcome, type RequestsSummary } from './result.js';
import { runOnSession, scopesOf, type PathOptions } from './session-command.js';

export interface PullOptions extends PathOptions {
  /** The remote wins every conflict (local edits to those files are replaced). */
  force?: boolean;
  /** Show what would come down, change nothing. */
  dryRun?: boolean;
}

/** What `pull --json` prints and `pull()` resolves to; `error` and `exitCode` when `ok` is false. */
export interface PullResult extends Partial<FailureFields> {
  ok: boolean;
  dryRun: boolean;
  /** Files brought down (new or changed on the deployment). */
  fetched: string[];
  /** Local files removed because the deployment deleted them (and they were not edited here). */
  removed: string[];
  chmod: { path: string; executable: boolean }[];
  /** Left alone: edited here since the last sync and changed on the deployment. */
  conflicts: ConflictItem[];
  /** With --force: the conflicts where the deployment's side replaced a local edit. */
  overridden: ConflictItem[];
  /** Local edits a pull leaves for push. */
  localChanges: number;
  /** hostsync's configuration files (hostsync.json, .syncignore, env files, .gitignore) the deployment changed, left alone: name one to take it. */
  held: string[];
  /** Named paths not pulled, with why: a symlink here, or a folder above them that is one (never written through). */
  leftAlone: LeftAlone[];
  /** The app's data (hostsync.json "remoteOwned") on the deployment this pull did not name, left as it is here: `pull PATH` brings one down. */
  remoteOwned: string[];
  failures: StepFailure[];
  bytes: number;
  requests: RequestsSummary;
  warnings: string[];
  durationMs: number;
  deployment: DeploymentRef | null;
}

export function emptyPullResult(): PullResult {
  return {
    ok: false, dryRun: false, fetched: [], removed: [], chmod: [], conflicts: [], overridden: [], localChanges: 0, held: [], leftAlone: [], remoteOwned: [],
    failures: [], bytes: 0, requests: requestsOf(null), warnings: [], durationMs: 0, deployment: null,
  };
}

export function pullResultOf(report: PullReport, requests: RequestsSummary, deployment: DeploymentRef, leftAlone: LeftAlone[] = []): Outcome<PullResult> {
  const result: PullResult = {
    ok: true,
    dryRun: report.dryRun,
    fetched: report.fetched.filter((p) => !report.failures.some((f) => f.path === p)),
    removed: report.removed,
    chmod: report.chmod,
    conflicts: report.conflicts.map(conflictItem),
    overridden: report.overridden.map(conflictItem),
    localChanges: report.localChanges.length,
    held: report.held,
    leftAlone,
    remoteOwned: report.leftOwned,
    failures: report.failures,
    bytes: report.bytes,
    requests,
    warnings: report.warnings,
    durationMs: report.durationMs,
    deployment,
  };
  if (report.failures.length > 0) {
    // A permanent failure (a name this file system cannot hold) says its own fix; running again would not help.
    const f = report.failures.find((x) => !x.permanent) ?? report.failures[0]!;
    const again = report.failures.some((x) => !x.permanent) ? ': run the pull again' : '';
    return failedWith(result, `${report.failures.length} file(s) did not come down (first: ${f.path}: ${f.error})${again}`, EXIT.failed);
  }
  if (report.conflicts.length > 0) {
    const n = report.conflicts.length;
    return failedWith(
      result,
      `${n} conflict${n === 1 ? '' : 's'} left alone (first: ${report.conflicts[0]!.path}, edited here and on the deployment): hostsync resolve PATH --theirs takes the deployment's file, --ours keeps yours for the next push`,
      EXIT.refused,
    );
  }
  if (leftAlone.length > 0) {
    const n = leftAlone.length;
    return failedWith(result, `${n === 1 ? `${leftAlone[0]!.path} was` : `${n} named paths were`} not pulled (first: ${leftAlone[0]!.why})`, EXIT.refused);
  }
  return result;
}

/** `hostsync pull` as a function: remote changes into the local tree with push's three-way safety in reverse. Never rejects. */
export function runPull(opts: PullOptions = {}): Promise<{ result: Outcome<PullResult>; thrown: boolean }> {
  const started = Date.now();
  return runOnSession(
    opts,
    (known) => ({ ...emptyPullResult(), ...known, dryRun: opts.dryRun ?? false, durationMs: Date.now() - started }),
    async (session) => {
      const named = scopesOf(session, opts);
      const report = await pullCore(session, { paths: named, force: opts.force ?? false, dryRun: opts.dryRun ?? false });
      const leftAlone = named ? leftAloneOf(session.config.root, named, report.skipped, 'pull') : [];
      return pullResultOf(report, requestsOf(session.client.stats()), deploymentRef(session.config), leftAlone);
    },
  );
}

export async function pull(opts: PullOptions = {}): Promise<PullResult> {
  return (await runPull(opts)).result;
}
