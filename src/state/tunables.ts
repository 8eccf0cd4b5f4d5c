/** Tunables of the state store and lock, each with its reason. */

/** A lock file with no readable content younger than this is still being written by its owner (not stale). */
export const TORN_LOCK_GRACE_MS = 5_000;

/**
 * Push journals kept per deployment (`hostsync history`; `undo` steps back through them).
 * Each is small (paths and hashes of one push); 50 covers weeks of pushes without letting
 * a watch session's thousands of cycles grow the folder without bound.
 */
export const JOURNAL_KEEP = 50;
