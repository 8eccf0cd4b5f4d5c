/**
 * Every tunable number in hostsync, with the reason it has its value.
 * Nothing else in src/ hard-codes one of these; import from here.
 */

/** The service's documented per-key budget: 120 requests per sliding 60 s window. */
export const RATE_LIMIT_REQUESTS = 120;
export const RATE_LIMIT_WINDOW_MS = 60_000;
/** The service's per-user budget across all keys (same window). */
export const RATE_LIMIT_USER_REQUESTS = 300;

/**
 * Requests in flight at once. The node serialises file operations per deployment
 * anyway; a few in flight hide latency without reordering dependent steps.
 */
export const MAX_IN_FLIGHT = 4;

/** files.writeMany caps all content in one call at 5 MB (hosting-api.md, Limits). */
export const WRITE_MANY_MAX_BYTES = 5 * 1024 * 1024;
/**
 * We fill a writeMany batch only to this many bytes of content, so the JSON
 * framing (escaped quotes, backslashes, paths) can never push the body over the cap
 * whichever way the server counts "content".
 */
export const WRITE_MANY_BATCH_BYTES = 4.5 * 1024 * 1024;
/** A text file larger than this goes by upload: writeMany could carry it alone, but one request and no JSON escaping is cheaper. */
export const TEXT_UPLOAD_THRESHOLD_BYTES = 4 * 1024 * 1024;

/** files.index hashes files up to 4 MiB by default; we ask for more so large files compare by hash too. */
export const INDEX_HASH_MAX_BYTES = 256 * 1024 * 1024;

/**
 * A change set with at least this many files to write goes as one tar.gz through
 * uploadUrl + decompress when that costs fewer requests than writeMany batches.
 */
export const ARCHIVE_MIN_FILES = 50;

/** Mass-deletion guard (DESIGN.md): refuse to delete more than half of tracked files when that is more than 20. */
export const MASS_DELETE_MIN_FILES = 20;
export const MASS_DELETE_FRACTION = 0.5;

/** Retries for idempotent calls on 5xx / dropped connections: jittered exponential backoff, capped. */
export const RETRY_MAX_ATTEMPTS = 5;
export const RETRY_BASE_DELAY_MS = 200;
export const RETRY_MAX_DELAY_MS = 5_000;

/** Per-request timeout. deployments.apply waits up to waitSeconds (default 20) on the server side, so we allow well beyond it. */
export const REQUEST_TIMEOUT_MS = 120_000;

/** Watch mode: quiet period before a cycle starts, and the longest a burst may defer it. */
export const WATCH_DEBOUNCE_MS = 40;
export const WATCH_MAX_WAIT_MS = 400;
/** Watch mode: how often the remote digest is polled for drift (one request when nothing changed). */
export const WATCH_REMOTE_POLL_MS = 30_000;

/** The `ignore` package caches every answer forever; a daemon rebuilds its matcher past this many distinct paths. */
export const IGNORE_CACHE_MAX_PATHS = 200_000;

/** Files at or above this size are hashed by streaming, so xxhash-wasm's memory (which never shrinks) stays small. */
export const HASH_STREAM_THRESHOLD_BYTES = 8 * 1024 * 1024;
