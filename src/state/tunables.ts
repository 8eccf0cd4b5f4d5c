/** Tunables of the state store and lock, each with its reason. */

/**
 * The base journal (base-journal.ts) is folded into state.bin once it grows past this
 * many bytes. A record costs about 80 bytes per changed path, so this is some 13k path
 * changes, or hours of saving: a rewrite of state.bin (about half a second of CPU at
 * 100k files) that rare is a few microseconds per change, and replaying 1 MiB on load
 * costs about 10 ms.
 */
export const STATE_JOURNAL_COMPACT_BYTES = 1024 * 1024;

/** A lock file with no readable content younger than this is still being written by its owner (not stale). */
export const TORN_LOCK_GRACE_MS = 5_000;

/**
 * The takeover lock (lock.lock, proper-lockfile) guards a few milliseconds of work: one
 * left by a process killed inside them is stale after this long. proper-lockfile's floor is
 * 5 s (it refreshes the mark at half of it); 10 s is its default.
 */
export const TAKEOVER_LOCK_STALE_MS = 10_000;

/** Waits for another process's takeover (a few ms each, backing off to 100 ms): about 2 s in all before refusing. */
export const TAKEOVER_WAIT_RETRIES = 30;

/**
 * Push journals kept per deployment (`hostsync history`; `undo` steps back through them).
 * Each is small (paths and hashes of one push); 50 covers weeks of pushes without letting
 * a watch session's thousands of cycles grow the folder without bound.
 */
export const JOURNAL_KEEP = 50;

/**
 * Ids of the base record's batches this machine wrote that its copy remembers: one of its
 * own writes that has not landed is not another machine's in flight. A push's write lands
 * or fails within that push; 64 covers a watch session's last cycles many times over.
 */
export const RECORD_OWN_IDS_KEPT = 64;

/**
 * The restart ledger (restart-ledger.ts) counts restarts over this sliding window: Discord
 * allows a bot token 1,000 logins (IDENTIFY) a day, and resets a token that goes past it.
 */
export const RESTART_WINDOW_MS = 24 * 60 * 60_000;

/**
 * The restart ledger's lock guards a read and a write of a small file: one left by a killed
 * process is stale after proper-lockfile's floor (5 s), and a waiter gives up after 10 s
 * (the restart then goes uncounted, with a warning, rather than stalling the command).
 */
export const RESTART_LEDGER_LOCK_STALE_MS = 5_000;
export const RESTART_LEDGER_LOCK_WAIT_MS = 10_000;
