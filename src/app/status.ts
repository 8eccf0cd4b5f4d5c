import { push as pushCore } from '../sync/push/push.js';
import { projectRootOf } from '../config/config.js';
import { buildFreshness, type BuildFreshness } from './build-freshness.js';
import type { CopyPosition } from '../sync/core/copy-position.js';
import { webAddress } from '../model/web-address.js';
import type { Session } from '../sync/session.js';
import { connect, deploymentRef, type ConnectionOptions, type DeploymentRef } from './options.js';
import { EXIT } from '../errors.js';
import { readWatchStatus, type WatchStatus } from '../state/watch-status.js';
import type { PushReport } from '../sync/push/push.js';
import type { Deployment } from '../api/types.js';
import { changeItem, conflictItem, driftItem, elsewhereItem, previewExitCode, previewReason, pushRequestEstimate, type ChangeItem, type ConflictItem, type DriftItem, type ElsewhereItem } from './push.js';
import { failedWith, requestsOf, runCommand, type FailureFields, type Outcome, type RequestsSummary } from './result.js';
import { READ_COMMAND_DEADLINE_MS } from './tunables.js';
import { crlfOnlyNotes } from '../sync/two-way/line-endings.js';
import { pushReadsSettings, settingsPreview, settingsRequestEstimate, type SettingsResult } from './deploy-settings.js';
import { withSettings } from './push.js';
import type { Config } from '../config/config.js';
import { restartLedgerOf, restartRulesOf, type RestartCount } from './restart-rules.js';
import { SCANNED, withLocalSide, type LocalSource, type WatchOnly } from './watch-answer.js';

/** Remote-only paths a result names; the count is always whole. Enough to recognise a stray folder, small at any tree size. */
export const REMOTE_ONLY_LISTED = 200;


export interface StatusOptions extends ConnectionOptions {
  /** Look at every file even when a running watch could say what changed. */
  scan?: boolean;
}

/** What `status --json` prints and `status()` resolves to; `error` and `exitCode` when `ok` is false. */
export interface StatusResult extends Partial<FailureFields> {
  /**
   * False (exit 3, as `push --dry-run`) when a push would be refused: conflicts, or the
   * mass-delete guard. Drift and remote-only files are findings, not failures.
   */
  ok: boolean;
  /** What a push would change. */
  changes: ChangeItem[];
  conflicts: ConflictItem[];
  drift: DriftItem[];
  /** Remote changes made by hostsync elsewhere (another machine or folder), left alone: `pull` takes them. */
  elsewhere: ElsewhereItem[];
  /** Files only on the deployment, which a push leaves alone (--mirror deletes them). */
  remoteOnly: number;
  /** The first REMOTE_ONLY_LISTED of them, sorted. */
  remoteOnlyPaths: string[];
  /** The app's data on the deployment (hostsync.json "remoteOwned"): never touched by push, --mirror, undo or a whole-tree pull. */
  remoteOwned: number;
  /** The first REMOTE_ONLY_LISTED of them, sorted. */
  remoteOwnedPaths: string[];
  /** The deployment's state (deployments.get), or null when it could not be read. */
  appState: string | null;
  /** An earlier push landed files the app was not applied with: the next push applies. */
  applyPending: boolean;
  /**
   * The pending apply was sent and went unanswered at this time (a slow install) and the app
   * is not up yet: it may still be running on the service. null otherwise: once a status
   * reads the app running after it, the pending mark is cleared.
   */
  applyUnansweredAt: string | null;
  /**
   * With "dir" and "build": whether "dir" is what the sources build (push runs the build
   * first, so the comparison above is of the last build); null without them.
   */
  build: BuildFreshness | null;
  requests: RequestsSummary;
  /** Requests of the transfer alone (the planner's count). */
  plannedRequests: number;
  /** Requests a `push` of this tree would make in all: index reads, transfer, verifying read, apply. */
  pushRequests: number;
  /** The mass-delete guard's verdict: a push would refuse without allowMassDelete. */
  massDelete: { refuse: boolean; deletes: number; tracked: number };
  warnings: string[];
  deployment: DeploymentRef | null;
  /**
   * The `hostsync watch` of this directory and deployment, read from its status file (no
   * request): running, or stale when its process is gone; null when none ran.
   */
  watch: WatchStatus | null;
  /** hostsync.json's "startup" and "size" against the deployment (app/deploy-settings.ts); null when it declares none or the deployment could not be read. */
  settings: SettingsResult | null;
  /** The app's public address (the deployment's domains.url), or null when it has none or it could not be read. */
  url: string | null;
  /** Whether the running watch said what changed (only those paths were read) or every file was scanned, and why. */
  local: LocalSource;
  /** This copy against the deployment's last push (git's ahead/behind); null when not worked out. */
  position: CopyPosition | null;
  /** The deployment's last deploy was `hostsync rollback` (to which push, by whom, when); null otherwise. */
  rolledBack: { to: string; time: string; host: string; dir: string } | null;
  /** The deployment's restarts in the last 24 hours by hostsync on this machine, and "restartsPerDay" (null: no limit); no request. */
  restarts: RestartCount | null;
}

export function emptyStatusResult(): StatusResult {
  return {
    ok: false,
    changes: [],
    conflicts: [],
    drift: [],
    elsewhere: [],
    remoteOnly: 0,
    remoteOnlyPaths: [],
    remoteOwned: 0,
    remoteOwnedPaths: [],
    appState: null,
    applyPending: false,
    applyUnansweredAt: null,
    build: null,
    requests: requestsOf(null),
    plannedRequests: 0,
    pushRequests: 0,
    massDelete: { refuse: false, deletes: 0, tracked: 0 },
    warnings: [],
    deployment: null,
    watch: null,
    settings: null,
    url: null,
    local: SCANNED,
    position: null,
    rolledBack: null,
    restarts: null,
  };
}

/**
 * `hostsync status` as a function: a dry run of push. Never rejects; see runPush. `by` a
 * WatchOnly: the running watch works it out for a command that asked (status-for-watch.ts),
 * from its own answer of what changed or not at all (never a scan in the watch's process).
 */
export async function runStatus(opts: StatusOptions = {}, by: 'command' | WatchOnly = 'command'): Promise<{ result: Outcome<StatusResult>; thrown: boolean }> {
  let session: Session | null = null;
  let watch: WatchStatus | null = null;
  return runCommand(
    () => ({
      ...emptyStatusResult(),
      requests: requestsOf(session?.client.stats()),
      deployment: session ? deploymentRef(session.config) : null,
      // Read before any request, so a status that cannot reach the service still shows the daemon.
      watch,
    }),
    async () => {
      session = await connect(opts, undefined, READ_COMMAND_DEADLINE_MS, by === 'command' ? undefined : { connections: by.connections, cache: by.cache, ...(by.remote ? { remote: by.remote } : {}) });
      watch = await readWatchStatus(session.stateDir);
      // Read before the comparison, which may rewrite the state the mark is tied to.
      const unanswered = await session.store.applyTimedOutAt();
      try {
        // The deployment's record does not depend on the comparison: asked as the comparison
        // starts (not before: a comparison that cannot start must not cost a request), a
        // status waits on the service for one round trip instead of two.
        let recordAsked: Promise<Deployment | null> | null = null;
        const opened = session;
        const askRecord = (): Promise<Deployment | null> => (recordAsked ??= opened.client.deployments.get().catch(() => null));
        const { report, local } = await compare(session, watch, by === 'command' ? (opts.scan ?? false) : by, askRecord);
        report.warnings.push(...(await lineEndingNotes(session, report)));
        // What a push would read too: everything but the record.
        const seen = session.client.stats();
        const reads = seen.total - (seen.byOperation['deployments.get'] ?? 0);
        const record = await askRecord();
        const appState = record?.state ?? null;
        // An apply that went unanswered (a slow install) and an app running now: it ended,
        // and nothing was pushed since. The mark goes, rather than "pending" forever.
        let applyPending = report.applyPending;
        if (applyPending && unanswered !== null && appState === 'running') {
          await session.store.setApplyPending(false);
          applyPending = false;
        }
        const settings = record ? await settingsPreview(session, record) : null;
        const result: StatusResult = {
          ok: true,
          changes: report.changes.map(changeItem),
          conflicts: report.conflicts.map(conflictItem),
          drift: report.drift.map(driftItem),
          elsewhere: report.elsewhere.map(elsewhereItem),
          remoteOnly: report.remoteOnly.length,
          remoteOnlyPaths: [...report.remoteOnly].sort().slice(0, REMOTE_ONLY_LISTED),
          remoteOwned: report.remoteOwned.length,
          remoteOwnedPaths: report.remoteOwned.slice(0, REMOTE_ONLY_LISTED),
          appState,
          applyPending,
          applyUnansweredAt: applyPending && unanswered !== null ? unanswered.toISOString() : null,
          build: session.config.build && session.config.root !== projectRootOf(session.config) ? await buildFreshness(projectRootOf(session.config), session.config.root, session.config.build) : null,
          requests: requestsOf(session.client.stats()),
          plannedRequests: report.plan.requests,
          pushRequests: pushRequestEstimate(reads, report),
          massDelete: report.massDelete,
          warnings: report.warnings,
          deployment: deploymentRef(session.config),
          watch,
          settings: null,
          // As `open` gives it: a plain web address, written again by the URL parser, or none.
          url: record?.domains?.url ? webAddress(record.domains.url) : null,
          local,
          position: report.position,
          rolledBack: report.rolledBack,
          restarts: await restartCountOf(session.config),
        };
        // A push makes the settings' requests on top of the files' (the read only when they differ from the last push's).
        if (settings) result.pushRequests += settingsRequestEstimate(settings, await pushReadsSettings(session));
        const code = previewExitCode(report, false);
        return withSettings(code === EXIT.ok ? result : failedWith(result, previewReason(report), code), settings);
      } finally {
        await session.close();
      }
    },
    () => session?.config.apiKey ?? opts.apiKey ?? (opts.env ?? process.env).HOSTSYNC_API_KEY,
  );
}

/** The dry-run push; the running watch's answer, when it gives one, replaces the scan (watch-answer.ts). */
function compare(session: Session, watch: WatchStatus | null, scan: boolean | WatchOnly, starting: () => void): Promise<{ report: PushReport; local: LocalSource }> {
  return withLocalSide(session, watch, scan, async (known) => {
    starting();
    const report = await pushCore(session, { dryRun: true, allowMassDelete: true, ...(known ? { local: known.local, skipped: known.skipped } : {}) });
    if (known) report.warnings.unshift(...known.warnings);
    return report;
  });
}

/** The day's restart count from the machine's ledger (a local file) and the limit in force. */
async function restartCountOf(config: Config): Promise<RestartCount> {
  const rules = await restartRulesOf(config);
  return { today: await restartLedgerOf(config).count(), limit: rules.perDay };
}

export async function status(opts: StatusOptions = {}): Promise<StatusResult> {
  return (await runStatus(opts)).result;
}

/** Notes for modified files and conflicts that differ from the deployment only by CRLF (sync/two-way/line-endings.ts); none on a no-op. */
async function lineEndingNotes(session: Session, report: PushReport): Promise<string[]> {
  const writes = report.changes.filter((c) => c.kind === 'write' && !c.create);
  if (writes.length === 0 && report.conflicts.length === 0) return [];
  // A push writes a file only where the deployment still holds the base's version.
  const base = writes.length > 0 ? (await session.store.load()).base : null;
  return crlfOnlyNotes(session.config.root, [
    ...writes.flatMap((c) => (c.kind === 'write' ? [{ local: c.entry, remote: base?.get(c.path) }] : [])),
    ...report.conflicts.flatMap((c) => (c.local ? [{ local: c.local, remote: c.remote }] : [])),
  ]);
}
