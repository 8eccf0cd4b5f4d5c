/**
 * What a push (or a watch cycle) did or would do, as one value: the report the porcelain
 * renders and `--json` prints, the empty one a cycle with nothing to do starts from, and
 * its line in the audit trail. push.ts fills it; the watch, status and the renderers read it.
 */
import type { ApplyResult } from '../../api/types.js';
import type { HealthReport } from '../apply/apply.js';
import type { InstallRun } from '../apply/install-on-change.js';
import type { Overwritten } from './execute.js';
import type { JournalArchive } from '../../state/journal.js';
import type { Change, Conflict, Drift, Plan, PushedElsewhere, StepFailure } from '../../model/types.js';
import type { CopyPosition } from '../core/copy-position.js';

export interface ChangeCounts {
  written: number;
  deleted: number;
  moved: number;
  chmod: number;
}

/** Everything a push did or would do; the porcelain renders it, `--json` prints it. */
export interface PushReport {
  dryRun: boolean;
  /** The changes planned in the first round (what `status` would list). */
  changes: Change[];
  plan: Plan;
  counts: ChangeCounts;
  conflicts: Conflict[];
  drift: Drift[];
  /** Remote changes another hostsync made (the base record says so), left alone: pull takes them. */
  elsewhere: PushedElsewhere[];
  remoteOnly: string[];
  /** Files on the deployment that hostsync.json "remoteOwned" gives the app: never touched (sync/core/remote-owned.ts). */
  remoteOwned: string[];
  failures: StepFailure[];
  warnings: string[];
  /** With force: paths whose remote version (a conflict or drift) the push overwrites. */
  overwrites: string[];
  /**
   * An apply is owed: files landed that the app has not been applied with yet (--no-apply,
   * or a failed push). A dry run reports the stored marker; the next push without
   * --no-apply applies.
   */
  applyPending: boolean;
  /**
   * Requests the checks before writes add to the first plan's: the re-checks
   * (ExecuteOptions.recheck; none with force), and learning the apply's scope when this
   * machine does not know it yet (apply-scope.ts; once per key and deployment).
   */
  checkRequests: number;
  /** The mass-delete guard's verdict on the first plan (status shows it; push refuses on it). */
  massDelete: { refuse: boolean; deletes: number; tracked: number };
  /** Deletions watch's guard held back (PushOptions.holdMassDelete); empty otherwise. */
  heldDeletes: string[];
  apply: ApplyResult | null;
  /**
   * Why the service refused the apply (403: the key lacks deployments:write, or its user
   * may not change the deployment) after the files landed; null otherwise. The apply stays
   * pending. A refusal known before writing ends the push before it writes (apply-scope.ts).
   */
  applyRefused: string | null;
  /** `"install": "on-change"`: the install this push ran before its apply; absent when none ran. */
  install?: InstallRun;
  /** The health verdict after the apply, or of the idle check; null when neither ran. */
  health: HealthReport | null;
  healthy: boolean | null;
  /**
   * Files the apply went ahead without: permanent refusals and files that vanished locally
   * (nothing retrying could land). Empty when nothing was applied or nothing was left out.
   */
  leftOut: string[];
  /**
   * Remote edits that landed in the instant between the last re-check and our write, and
   * were overwritten: each with the files.history version that keeps it. A push with any
   * ends refused (exit 3), so it is never mistaken for a clean one.
   */
  overwritten: Overwritten[];
  durationMs: number;
  /** The safety copy taken before a --force or --mirror push replaced content the base did not hold, or null. */
  backup: JournalArchive | null;
  /** This copy against the deployment's last push, in git's terms (copy-position.ts); null when not worked out (a watch's cycle, no record). */
  position: CopyPosition | null;
  /**
   * Why a push from this copy is refused (it has no base of its own and is behind, diverged
   * from or cannot be compared with the last push), or null. A push throws it; a dry run
   * (status) reports it, and exits 3.
   */
  positionRefused: string | null;
  /** The deployment's last deploy was a rollback (hostsync rollback): to which push, by whom; null otherwise. */
  rolledBack: { to: string; time: string; host: string; dir: string } | null;
}

const noCounts = (): ChangeCounts => ({ written: 0, deleted: 0, moved: 0, chmod: 0 });

/** A report of a push or watch cycle that did nothing (nothing to send, nothing read to merge). */
export function emptyPushReport(): PushReport {
  return {
    dryRun: false,
    changes: [],
    plan: { steps: [], requests: 0, bytes: 0, nodeRequests: 0 },
    counts: noCounts(),
    conflicts: [],
    drift: [],
    elsewhere: [],
    remoteOnly: [],
    remoteOwned: [],
    failures: [],
    warnings: [],
    overwrites: [],
    applyPending: false,
    checkRequests: 0,
    massDelete: { refuse: false, deletes: 0, tracked: 0 },
    heldDeletes: [],
    apply: null,
    applyRefused: null,
    health: null,
    healthy: null,
    leftOut: [],
    overwritten: [],
    durationMs: 0,
    backup: null,
    position: null,
    positionRefused: null,
    rolledBack: null,
  };
}

/** The audit-trail line (state store appendLog) of one push or watch cycle. */
export function logLineOf(command: 'push' | 'watch', report: PushReport, requests: number): Record<string, unknown> {
  return {
    command,
    ...report.counts,
    conflicts: report.conflicts.length,
    failures: report.failures.length,
    requests,
    healthy: report.healthy,
    ms: report.durationMs,
  };
}
