/**
 * The small typed data that flows one way through hostsync:
 *   scan -> reconcile -> plan -> execute -> report.
 * Paths are always POSIX, relative to the synced root, without a leading "./" or "/".
 * Hashes are XXH64, seed 0, 16 lowercase hex digits (what `xxhsum -H64` prints).
 */

/** One file in a tree. Directories are implicit (a file's parents); empty directories are not synced. */
export interface Entry {
  path: string;
  /** XXH64 hex; null when the remote listed the file without a hash (over hashMaxBytes). */
  hash: string | null;
  size: number;
  /** True when any execute bit is set. Other mode bits do not travel. */
  executable: boolean;
  /**
   * Local entries only: valid UTF-8 without NUL, so it may travel inside writeMany as a
   * JSON string. Undefined on remote and base entries.
   */
  text?: boolean;
  /**
   * Local entries only: the file's relative path on disk when it differs from `path`, the
   * wire name (a name the disk holds in NFD, as macOS hands it out, travels in NFC:
   * local/names.ts). Undefined otherwise, and on remote and base entries.
   */
  local?: string;
}

/** A whole tree: path -> Entry. */
export type Snapshot = Map<string, Entry>;

/** What a push wants to do to one remote path. */
export type Change =
  | { kind: 'write'; path: string; entry: Entry; /** true when the remote has no file at path */ create: boolean }
  | {
      kind: 'delete';
      path: string;
      /**
       * The file the remote holds now, as reconcile compared it (equal in content to the base
       * entry when local deleted it; the remote-only entry when `mirror` deletes it). Rename
       * detection matches on its hash.
       */
      base: Entry;
    }
  /** Content already equal on the remote; only the executable bit differs. `entry` is the local one (the planner may resend it inside an archive instead). */
  | { kind: 'chmod'; path: string; executable: boolean; entry: Entry }
  | { kind: 'rename'; from: string; to: string; entry: Entry };

export type ConflictReason =
  | 'both-modified'      // L != B, R != B, L != R
  | 'first-push-differs' // no base, L and R both exist and differ
  | 'modify-delete'      // local modified, remote deleted
  | 'delete-modify'      // local deleted, remote modified
  | 'remote-symlink'     // the remote path (or a folder above it) is a symlink: writing would follow it
  | 'file-folder'        // a folder above the remote file is a file here, which stays (edited, or never synced)
  | 'pending-elsewhere'; // another copy's recorded write is not on the deployment (in flight, failed, or undone by hand): local holds it too

export interface Conflict {
  path: string;
  reason: ConflictReason;
  local: Entry | null;
  remote: Entry | null;
  base: Entry | null;
}

/** Remote changed, local did not: left alone and reported (pull takes it). */
export interface Drift {
  path: string;
  kind: 'modified' | 'added' | 'deleted';
  remote: Entry | null;
  base: Entry | null;
}

/** Where a change another hostsync recorded on the deployment came from (the base record's batch header). */
export interface RemoteOrigin {
  /** ISO time the other machine recorded it (its clock). */
  time: string;
  /** Host name, and the synced folder's name there (a hint). */
  host: string;
  dir: string;
  /** What recorded it: push, watch, pull, resolve, undo. */
  by: string;
}

/**
 * A path another hostsync (another machine, folder or CI job) changed on the deployment
 * since this machine's base, as the base record tells: reconcile's input.
 */
export interface ElsewhereChange {
  /** The base this machine merges with for the path (its own base; for a machine without one, what the batch replaced). */
  before: Entry | null;
  /** What the other push left (or is leaving) there. */
  after: Entry | null;
  /** The remote holds `after`; false: it still holds the before (a push in flight, or one that failed). */
  landed: boolean;
  origin: RemoteOrigin;
}

/** Remote changed by a push from elsewhere, local did not: left alone and reported (pull takes it, never reverted). */
export interface PushedElsewhere {
  path: string;
  kind: 'modified' | 'added' | 'deleted';
  remote: Entry | null;
  base: Entry | null;
  origin: RemoteOrigin;
}

export interface ReconcileOptions {
  /**
   * Local wins everywhere: every conflict and every drifted path ends equal to local, as
   * `git push --force` discards what the remote had (still never deletes ignored or
   * remote-only paths unless mirror).
   */
  force: boolean;
  /** Delete remote-only paths that were never in the base (never ignored ones: they are not in R at all). */
  mirror: boolean;
  /**
   * Paths another hostsync changed since this machine's base (the base record's merge,
   * sync/core/record-merge.ts). Unchanged locally: left alone and reported apart from drift;
   * changed locally too (to anything but what the other push left): a conflict, even while
   * the other push's write is still in flight.
   */
  elsewhere?: ReadonlyMap<string, ElsewhereChange>;
  /**
   * The base is one this copy adopted without having synced (its first contact with the
   * base record, sync/core/copy-base.ts): a path outside it that local and remote hold differently
   * is a never-synced difference ('first-push-differs'), not a change both sides made.
   */
  adopted?: boolean;
  /**
   * Paths the deployment's own install rewrites (sync/core/install-files.ts): changed on both
   * sides, local's wins (listed in `overridden`), never a conflict that blocks the push.
   */
  installRewrites?: (path: string) => boolean;
}

export interface Reconciliation {
  changes: Change[];
  conflicts: Conflict[];
  drift: Drift[];
  /** Remote changes another hostsync made, which local did not touch (never reverted; pull takes them). Absent: none. */
  elsewhere?: PushedElsewhere[];
  /** Paths only on the remote, never in base, left alone (unless mirror turned them into deletes). */
  remoteOnly: string[];
  /** Paths on the remote that hostsync.json "remoteOwned" gives the app (sync/core/remote-owned.ts): never compared, never touched. Absent: none. */
  remoteOwned?: string[];
  /**
   * With `force`: the conflicts and drift that local overrode (their changes are in `changes`).
   * Kept apart so `conflicts` and `drift` always mean "left untouched", and a forced push can
   * still say which remote edits it replaced. Empty without force.
   */
  overridden: { conflicts: Conflict[]; drift: Drift[] };
  /**
   * The base to store if every change lands: paths where L = R adopted, changes applied,
   * conflicts and drift keep their old base entry (or none). Entries carry no `text`.
   */
  nextBase: Snapshot;
}

/** One request's worth of work. The planner emits these; the executor runs them in order. */
export type Step =
  | { op: 'writeMany'; files: Entry[]; bytes: number }
  /** `dir` is the target directory, '' for the root. */
  | { op: 'upload'; dir: string; files: Entry[]; bytes: number }
  | { op: 'archive'; files: Entry[]; bytes: number }
  | { op: 'delete'; paths: string[] }
  | { op: 'rename'; from: string; to: string }
  /**
   * files.move: several renames that keep their file name and land in one directory, as ONE
   * request (a moved folder costs one request, not one per file). `to` is the directory,
   * '' for the root (send '/' or ''); each file lands at `to/basename(file)`.
   */
  | { op: 'move'; files: string[]; to: string }
  | { op: 'chmod'; path: string; mode: string };

export interface Plan {
  steps: Step[];
  /** Requests the plan costs (not counting index/verify/apply); an archive counted at the parts it needs at worst, so an upper bound. */
  requests: number;
  /** Content bytes the plan sends. */
  bytes: number;
  /** POSTs straight to the node through signed upload URLs (one per upload step, one per archive part at worst); not API requests, not rate limited. */
  nodeRequests: number;
}

/** A path a sync step could not write, delete, move or chmod, and why. */
export interface StepFailure {
  path: string;
  error: string;
  /**
   * The service refused it for a reason retrying will not change (a folder in the way, a
   * taken name, a 4xx). Watch mode reports it like a conflict instead of backing off, and
   * it does not hold back the apply of everything else.
   */
  permanent?: boolean;
}
