/** Tunables of the state store and lock, each with its reason. */

/** A lock file with no readable content younger than this is still being written by its owner (not stale). */
export const TORN_LOCK_GRACE_MS = 5_000;
