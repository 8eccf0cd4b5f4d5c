import path from 'node:path';
import { saveLastBuild } from '../state/last-build.js';
import { applyStillRunning } from '../sync/apply/apply-scope.js';
import { projectRootOf } from '../config/config.js';
import type { CopyPosition } from '../sync/core/copy-position.js';
import { assertSyncDirInside } from '../config/sync-dir.js';
import type { ApplyResult } from '../api/types.js';
import { setGitignoreSetting } from '../config/edit.js';
import { EXIT, HostsyncError, type ExitCode } from '../errors.js';
import type { Overwritten, ProgressFn, StepFailure } from '../sync/push/execute.js';
import type { HealthReport } from '../sync/apply/apply.js';
import type { InstallRun } from '../sync/apply/install-on-change.js';
import { push as pushCore, type ChangeCounts, type PushReport } from '../sync/push/push.js';
import type { Session } from '../sync/session.js';
import type { Change, Conflict, Drift, PushedElsewhere } from '../model/types.js';
import { connect, deploymentRef, type ConnectionOptions, type DeploymentRef } from './options.js';
import { pushSettings, STARTUP_WARNING, type SettingsResult } from './deploy-settings.js';
import { runBuild } from './build.js';
import { sayAutoKindOnce } from '../state/auto-kind.js';
import { guardRestarts, withRestartNotes, type RestartFields } from './restart-rules.js';
import { sharedTokenWarnings } from './shared-tokens.js';
import { notifierFor, notifyPushOutcome } from './notify.js';
import { failedWith, requestsOf, runCommand, SEE_LOGS, type FailureFields, type Outcome, type RequestsSummary } from './result.js';

export interface PushOptions extends ConnectionOptions {
  /** Show the plan, send nothing but the index read. */
  dryRun?: boolean;
  /** Local wins every conflict (still never deletes ignored or remote-only files). */
  force?: boolean;
  /** Also delete files that exist only on the deployment (never ignored ones). */
  mirror?: boolean;
  /** Call deployments.apply after pushing; default true. */
  apply?: boolean;
  /** Allow deleting more than half of the tracked files, or every one of them. */
  allowMassDelete?: boolean;
  /** Keep server-side copies of what the push replaces (the safety copy, undo's copy of uploaded-over files); default true. */
  backup?: boolean;
  /** Progress of the phases and of the transfer (bytes). */
  onProgress?: ProgressFn;
  /**
   * A first push meets files .gitignore excludes while hostsync.json does not say whether
   * it applies: answer true to keep them off, false to push them (the answer is saved as
   * "gitignore"), or null to push them with a warning (as without this hook).
   */
  onGitignored?: (paths: string[]) => Promise<boolean | null>;
  /** Allows hostsync.json's startup.runtime to change the deployment's runtime when it names that runtime (the service then deletes every file). */
  changeRuntime?: string;
  /** Skip hostsync.json's "build" command. */
  build?: boolean;
  /** The build's output, as it comes (the CLI passes stderr). */
  onBuildOutput?: (chunk: Buffer) => void;
}

/** One change, as results list them. */
export type ChangeItem =
  | { kind: 'write'; path: string; create: boolean }
  | { kind: 'delete'; path: string }
  | { kind: 'chmod'; path: string; executable: boolean }
  | { kind: 'rename'; from: string; to: string };

export interface ConflictItem {
  path: string;
  reason: Conflict['reason'];
}

export interface DriftItem {
  path: string;
  kind: Drift['kind'];
}

/** A remote change another hostsync made (a push, watch, pull... from another machine or folder), as the base record tells. */
export interface ElsewhereItem {
  path: string;
  kind: PushedElsewhere['kind'];
  /** When it was recorded (ISO, that machine's clock). */
  time: string;
  host: string;
  /** The synced folder's name there. */
  dir: string;
  /** What recorded it: push, watch, pull, resolve, undo. */
  by: string;
}

/** What `push --json` prints and `push()` resolves to; `error` and `exitCode` when `ok` is false. */
export interface PushResult extends Partial<FailureFields>, RestartFields {
  /** Everything landed and verified, nothing was refused, and the deployment is healthy (or was not applied). */
  ok: boolean;
  dryRun: boolean;
  changes: ChangeCounts;
  conflicts: ConflictItem[];
  drift: DriftItem[];
  /** Remote changes made by hostsync elsewhere (another machine or folder), left alone: `pull` takes them. */
  elsewhere: ElsewhereItem[];
  failures: StepFailure[];
  requests: RequestsSummary;
  /** The deployments.apply answer, or null when nothing was applied. */
  apply: ApplyResult | null;
  /** `"install": "on-change"`: the install run before the apply (a manifest changed); absent when none ran. */
  install?: InstallRun;
  /** Why the service refused the apply after the files landed (a key without deployments:write); null otherwise (exit 2 with it). */
  applyRefused: string | null;
  /** How the deployment was judged (after the apply, or by the one diagnose of a push with nothing to send); null when neither ran. */
  health: HealthReport | null;
  healthy: boolean | null;
  /** Files the apply went ahead without (refused for good, or vanished locally); empty when none. */
  leftOut: string[];
  /** Remote edits made during the push and overwritten by it, each with the files.history version keeping it (exit 3). */
  overwritten: Overwritten[];
  durationMs: number;
  /** The changes planned (a dry run's are what would be sent). */
  planned: ChangeItem[];
  /** Requests the plan was estimated to take. */
  plannedRequests: number;
  /** Requests the push makes in all; for a dry run, what it would make (the same estimate as `status`). */
  pushRequests: number;
  /** With force: files whose version on the deployment (changed there too) the push overwrites, or a dry run would. */
  overwrites: string[];
  /** Files landed that the app was not applied with (--no-apply, or a failure held the apply back): the next push applies. */
  applyPending: boolean;
  warnings: string[];
  /** The safety copy a --force or --mirror push took of remote content the last sync did not know (`.hostsync/backups/...`), or null. */
  backup: { archive: string; paths: string[] } | null;
  /** Which deployment on which service; null when the configuration could not be resolved. */
  deployment: DeploymentRef | null;
  /** hostsync.json's "startup" and "size" against the deployment (app/deploy-settings.ts); null when it declares none. */
  settings?: SettingsResult | null;
  /** This copy against the deployment's last push (git's ahead/behind); null when not worked out. */
  position: CopyPosition | null;
  /** Why this copy may not push (behind, diverged from or not comparable with the last push; exit 3), or null. */
  positionRefused: string | null;
  /**
   * `health` was decided by auto, and this is the first push from this folder to see it
   * judge the app so (or judge it differently): a human report says how to pin the kind
   * once, not on every push.
   */
  autoKindNew: boolean;
}

export const changeItem = (c: Change): ChangeItem => {
  switch (c.kind) {
    case 'write':
      return { kind: 'write', path: c.path, create: c.create };
    case 'delete':
      return { kind: 'delete', path: c.path };
    case 'chmod':
      return { kind: 'chmod', path: c.path, executable: c.executable };
    case 'rename':
      return { kind: 'rename', from: c.from, to: c.to };
  }
};
export const conflictItem = (c: Conflict): ConflictItem => ({ path: c.path, reason: c.reason });
export const driftItem = (d: Drift): DriftItem => ({ path: d.path, kind: d.kind });
export const elsewhereItem = (e: PushedElsewhere): ElsewhereItem => ({ path: e.path, kind: e.kind, time: e.origin.time, host: e.origin.host, dir: e.origin.dir, by: e.origin.by });

export function emptyPushResult(): PushResult {
  return {
    ok: false,
    dryRun: false,
    changes: { written: 0, deleted: 0, moved: 0, chmod: 0 },
    conflicts: [],
    drift: [],
    elsewhere: [],
    failures: [],
    requests: requestsOf(null),
    apply: null,
    applyRefused: null,
    health: null,
    healthy: null,
    leftOut: [],
    overwritten: [],
    durationMs: 0,
    planned: [],
    plannedRequests: 0,
    pushRequests: 0,
    overwrites: [],
    applyPending: false,
    warnings: [],
    backup: null,
    deployment: null,
    settings: null,
    position: null,
    positionRefused: null,
    autoKindNew: false,
    restarts: null,
    shutdown: null,
  };
}

/**
 * The exit code a push ends with. A failure outranks a refusal (something we meant to
 * do did not happen), a refusal outranks an unhealthy app (the user must act on the
 * conflicts first), and an unhealthy app is still a push that landed.
 */
export function exitCodeFor(report: Pick<PushReport, 'failures' | 'conflicts' | 'healthy' | 'overwritten'> & { applyRefused?: string | null; positionRefused?: string | null }): ExitCode {
  if (report.positionRefused) return EXIT.refused;
  if (report.failures.length > 0) return EXIT.failed;
  // An apply not answered in time: the files landed, whether the app came up is unknown (exit 1).
  if (applyStillRunning(report.applyRefused)) return EXIT.failed;
  // The key's configuration, fixed by the user like any other (a missing scope is exit 2).
  if (report.applyRefused) return EXIT.usage;
  if (report.conflicts.length > 0 || report.overwritten.length > 0) return EXIT.refused;
  if (report.healthy === false) return EXIT.unhealthy;
  return EXIT.ok;
}

/**
 * What a look that sends nothing (`status`, `push --dry-run`) exits with, the same for
 * both so a script may use either: 3 when the push would be refused (conflicts, or the
 * mass-delete guard without --allow-mass-delete), else 0. Drift alone is 0: a push
 * leaves it alone and succeeds.
 */
export function previewExitCode(r: Pick<PushReport, 'conflicts' | 'massDelete'> & { positionRefused?: string | null }, allowMassDelete: boolean): ExitCode {
  return r.positionRefused || r.conflicts.length > 0 || (r.massDelete.refuse && !allowMassDelete) ? EXIT.refused : EXIT.ok;
}

/**
 * What `push` would cost, from what this comparison cost. `reads` is the index reads just
 * made: the push makes the same ones first. With something to send it then makes the
 * plan's API and upload requests, its re-checks before writes, a full verifying read (at least one request; as many
 * as a full read takes), and the apply. With nothing to send: the reads, plus an apply
 * only when one is pending.
 */
export function pushRequestEstimate(reads: number, report: Pick<PushReport, 'plan' | 'applyPending' | 'checkRequests'>): number {
  if (report.plan.steps.length === 0) return reads + (report.applyPending ? 1 : 0);
  return reads + report.plan.requests + report.checkRequests + report.plan.nodeRequests + Math.max(1, reads) + 1;
}

/** The one line a refused preview carries. */
export function previewReason(r: Pick<PushReport, 'conflicts' | 'massDelete'> & { positionRefused?: string | null }): string {
  if (r.positionRefused) return `a push would be refused: ${r.positionRefused}`;
  const n = r.conflicts.length;
  if (n > 0) return `${n} conflict${n === 1 ? '' : 's'} a push would leave alone (first: ${r.conflicts[0]?.path}): resolve them, or push --force to overwrite them with the local files`;
  return `a push would refuse to delete ${r.massDelete.deletes} of ${r.massDelete.tracked} tracked files: check the directory, or pass --allow-mass-delete`;
}

/** The one line a failed push's result carries, for each exit code a report can end with. */
function reasonFor(report: PushReport, code: ExitCode): string {
  if (report.positionRefused) return `refused: ${report.positionRefused}`;
  if (code === EXIT.failed) {
    const n = report.failures.length;
    return `${n} change${n === 1 ? '' : 's'} did not land (first: ${report.failures[0]?.path}: ${report.failures[0]?.error}): run the push again`;
  }
  if ((code === EXIT.usage || applyStillRunning(report.applyRefused)) && report.applyRefused) {
    const c = report.counts;
    return `${c.written} written, ${c.deleted} deleted, ${c.moved} moved, ${c.chmod} chmod, but ${report.applyRefused}`;
  }
  if (code === EXIT.refused && report.overwritten.length > 0) {
    const o = report.overwritten[0]!;
    return `${o.path} was changed on the deployment during the push and overwritten: files.history version ${o.versionId} keeps that content; restore it with files.restore, or merge it into the local file`;
  }
  if (code === EXIT.refused) {
    const n = report.conflicts.length;
    return `${n} conflict${n === 1 ? '' : 's'} left alone (first: ${report.conflicts[0]?.path}): resolve them, or push --force to overwrite them with the local files`;
  }
  const reason = report.health?.reason ?? `the deployment is ${report.apply?.state ?? 'unhealthy'}`;
  return `the deployment is unhealthy after the push: ${reason}; ${SEE_LOGS}`;
}

/** The result of a push that ran, from its report. */
export function pushResult(report: PushReport, session: Session, allowMassDelete = false): PushResult {
  const code = report.dryRun ? previewExitCode(report, allowMassDelete) : exitCodeFor(report);
  const result: PushResult = {
    ok: code === EXIT.ok,
    dryRun: report.dryRun,
    changes: { ...report.counts },
    conflicts: report.conflicts.map(conflictItem),
    drift: report.drift.map(driftItem),
    elsewhere: report.elsewhere.map(elsewhereItem),
    failures: report.failures,
    requests: requestsOf(session.client.stats()),
    apply: report.apply,
    applyRefused: report.applyRefused,
    health: report.health,
    healthy: report.healthy,
    leftOut: report.leftOut,
    overwritten: report.overwritten,
    durationMs: report.durationMs,
    planned: report.changes.map(changeItem),
    plannedRequests: report.plan.requests,
    pushRequests: report.dryRun ? pushRequestEstimate(session.client.stats().total, report) : session.client.stats().total,
    overwrites: report.overwrites,
    applyPending: report.applyPending,
    warnings: report.warnings,
    backup: report.backup ? { archive: report.backup.archive, paths: report.backup.paths } : null,
    deployment: deploymentRef(session.config),
    position: report.position,
    positionRefused: report.positionRefused,
    autoKindNew: false,
    restarts: null,
    shutdown: null,
    ...(report.install ? { install: report.install } : {}),
  };
  if (code === EXIT.ok) return result;
  return failedWith(result, report.dryRun ? previewReason(report) : reasonFor(report, code), code);
}

/**
 * `hostsync push` as a function: resolves the configuration, pushes (under the lock,
 * see Session.hold), applies, and resolves to the object `push --json` prints. It never
 * rejects for anything the push met (bad configuration, a refused key, a refusal, an
 * unreachable service): those come back as `ok: false` with `error` and `exitCode`.
 */
export async function runPush(opts: PushOptions = {}): Promise<{ result: Outcome<PushResult>; thrown: boolean }> {
  const started = Date.now();
  let session: Session | null = null;
  return runCommand(
    () => ({
      ...emptyPushResult(),
      dryRun: opts.dryRun ?? false,
      requests: requestsOf(session?.client.stats()),
      durationMs: Date.now() - started,
      deployment: session ? deploymentRef(session.config) : null,
    }),
    async () => {
      session = await connect(opts, opts.dryRun ? undefined : 'push to');
      // hostsync.json "notify": an unhealthy app, conflicts or a refusal are told beyond the terminal.
      const notifier = opts.dryRun ? null : await notifierFor(session.config);
      // Held across the settings and the files (re-entrant: pushCore holds it again).
      const lock = opts.dryRun ? null : await session.hold('push');
      try {
        if (!opts.dryRun && opts.build !== false && session.config.build) {
          const buildStarted = Date.now();
          await runBuild(session.config.build, projectRootOf(session.config), {
            deadline: session.client.deadline(),
            ...(opts.onBuildOutput ? { onOutput: opts.onBuildOutput } : {}),
          });
          // For status: sources saved after this are not in "dir" (app/build-freshness.ts).
          await saveLastBuild(projectRootOf(session.config), { startedAt: buildStarted, command: session.config.build }).catch(() => undefined);
          // The build may have made "dir", or replaced it: judged again where it now leads.
          const project = projectRootOf(session.config);
          await assertSyncDirInside(project, path.relative(project, session.config.root), session.config.root);
        }
        const guard = opts.dryRun ? null : await guardRestarts(session, { force: opts.force ?? false });
        const settings = await pushSettings(session, {
          dryRun: opts.dryRun ?? false,
          force: opts.force ?? false,
          ...(opts.changeRuntime ? { changeRuntime: opts.changeRuntime } : {}),
        });
        const report = await pushCore(session, {
          ...(settings?.applied ? { settingsChanged: true } : {}),
          dryRun: opts.dryRun ?? false,
          force: opts.force ?? false,
          mirror: opts.mirror ?? false,
          noApply: opts.apply === false,
          allowMassDelete: opts.allowMassDelete ?? false,
          copies: opts.backup === false ? 'none' : 'all',
          checkIdle: true,
          ...(opts.onProgress ? { onProgress: opts.onProgress } : {}),
          ...(opts.onGitignored ? { onGitignored: rememberAnswer(opts.onGitignored, projectRootOf(session.config)) } : {}),
        });
        const pushed = withRestartNotes(withSettings(pushResult(report, session, opts.allowMassDelete ?? false), settings), guard?.take() ?? []);
        const result = { ...pushed, warnings: [...(await sharedTokenWarnings(session.config)), ...pushed.warnings] };
        if (notifier) notifyPushOutcome(notifier, result, 'push');
        const auto = result.health?.decided === 'auto' ? result.health.kind : null;
        return auto ? { ...result, autoKindNew: await sayAutoKindOnce(session.stateDir, auto) } : result;
      } catch (err) {
        // A guard that refused the push (the mass-delete guard, a vanished project, ...).
        if (notifier && err instanceof HostsyncError && err.exitCode === EXIT.refused) notifier.notify({ kind: 'refusal', origin: 'push', message: err.message });
        throw err;
      } finally {
        await notifier?.flush();
        await lock?.release();
        await session.close();
      }
    },
    () => session?.config.apiKey ?? opts.apiKey ?? (opts.env ?? process.env).HOSTSYNC_API_KEY,
  );
}

/**
 * A push's result with its settings step: the settings' conflicts (or a refused runtime
 * change, in a dry run) make an otherwise clean push refused (exit 3), as file conflicts do.
 */
export function withSettings<R extends { ok: boolean; warnings: string[]; exitCode?: number; error?: string; settings?: SettingsResult | null; apply?: ApplyResult | null }>(result: R, settings: SettingsResult | null): R {
  // "deployments.updateStartup: applies at the next (re)start" is news only when this push
  // did not restart the app itself (issue 46, item 13); settings.warnings keeps it for --json.
  const restarted = result.apply?.restarted === true;
  const fromSettings = (settings?.warnings ?? []).filter((w) => !(restarted && w.startsWith(STARTUP_WARNING)));
  const out = { ...result, settings, warnings: [...result.warnings, ...fromSettings] };
  if (!out.ok || !settings) return out;
  if (settings.refused) return failedWith(out, settings.refused, EXIT.refused);
  const n = settings.conflicts.length;
  if (n === 0) return out;
  const c = settings.conflicts[0]!;
  return failedWith(out, `${n} setting${n === 1 ? '' : 's'} changed on the deployment since the last push (first: ${c.key} ${c.base} -> ${c.remote}, hostsync.json says ${c.local}): set hostsync.json to the deployment's value, or push --force to set it back`, EXIT.refused);
}

/** The user's answer about .gitignore, saved in hostsync.json so it is asked once. */
function rememberAnswer(ask: (paths: string[]) => Promise<boolean | null>, root: string): (paths: string[]) => Promise<boolean | null> {
  return async (paths) => {
    const answer = await ask(paths);
    if (answer !== null) await setGitignoreSetting(root, answer);
    return answer;
  };
}

/** Library form of `hostsync push`: see runPush. */
export async function push(opts: PushOptions = {}): Promise<PushResult> {
  return (await runPush(opts)).result;
}
