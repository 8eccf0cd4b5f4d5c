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
}

/** A whole tree: path -> Entry. */
export type Snapshot = Map<string, Entry>;

/** What a push wants to do to one remote path. */
export type Change =
  | { kind: 'write'; path: string; entry: Entry; /** true when the remote has no file at path */ create: boolean }
  | { kind: 'delete'; path: string; base: Entry }
  | { kind: 'chmod'; path: string; executable: boolean }
  | { kind: 'rename'; from: string; to: string; entry: Entry };

export type ConflictReason =
  | 'both-modified'      // L != B, R != B, L != R
  | 'first-push-differs' // no base, L and R both exist and differ
  | 'modify-delete'      // local modified, remote deleted
  | 'delete-modify';     // local deleted, remote modified

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

export interface ReconcileOptions {
  /** Local wins every conflict (still never deletes ignored or remote-only paths unless mirror). */
  force: boolean;
  /** Delete remote-only paths that were never in the base (never ignored ones: they are not in R at all). */
  mirror: boolean;
}

export interface Reconciliation {
  changes: Change[];
  conflicts: Conflict[];
  drift: Drift[];
  /** Paths only on the remote, never in base, left alone (unless mirror turned them into deletes). */
  remoteOnly: string[];
  /**
   * The base to store if every change lands: paths where L = R adopted, changes applied,
   * conflicts and drift keep their old base entry (or none).
   */
  nextBase: Snapshot;
}

/** One request's worth of work. The planner emits these; the executor runs them in order. */
export type Step =
  | { op: 'writeMany'; files: Entry[]; bytes: number }
  | { op: 'upload'; dir: string; files: Entry[]; bytes: number }
  | { op: 'archive'; files: Entry[]; bytes: number }
  | { op: 'delete'; paths: string[] }
  | { op: 'rename'; from: string; to: string }
  | { op: 'chmod'; path: string; mode: string };

export interface Plan {
  steps: Step[];
  /** Requests the plan costs (not counting index/verify/apply). */
  requests: number;
  /** Content bytes the plan sends. */
  bytes: number;
}
