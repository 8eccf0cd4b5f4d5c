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

/**
 * files.writeMany caps all content in one call at "5 MB" (hosting-api.md, Limits). The
 * emulator enforces the strictest reading, 5,000,000 bytes, so it never accepts a call
 * the real service might refuse.
 */
export const WRITE_MANY_MAX_BYTES = 5_000_000;
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
/**
 * Watch mode: a failed cycle (network outage, 5xx, unknown outcome) is retried after a
 * doubling wait, from the first to the second figure: soon enough that a blip costs a
 * second, rare enough that an hour-long outage costs ~120 attempts, not a flood.
 */
export const WATCH_RETRY_MIN_MS = 1_000;
export const WATCH_RETRY_MAX_MS = 30_000;
/**
 * Watch mode: on SIGINT/SIGTERM an in-flight cycle gets this long to finish before it is
 * abandoned (safe: the base is saved only after verification). Users expect Ctrl-C to
 * answer within a few seconds.
 */
export const WATCH_SHUTDOWN_GRACE_MS = 5_000;
/**
 * Watch mode: a batch touching more paths than this is synced by a full rescan instead
 * (an event storm). Past a few thousand paths a warm full scan (stat cache) costs about
 * the same, and the watcher may have dropped events (inotify's default queue holds
 * 16 384; @parcel/watcher drops an overflow silently), which only a full rescan repairs.
 */
export const WATCH_STORM_PATHS = 5_000;
/**
 * Native watcher: re-subscriptions in a row (each a crawl plus a full rescan) to cover new
 * nested folders, before it gives up and says so; a round is repeated only for folders
 * born during its own crawl, so only a tree growing folders without pause reaches it.
 */
export const WATCH_NATIVE_MAX_ROUNDS = 10;
/**
 * Native watcher: a re-subscription that fails (ENOSPC once the inotify watch limit is
 * reached) is retried after this delay, doubling up to the max: a watcher that stays
 * unsubscribed would silently never see a local change again, and retrying at once would
 * only spin while the limit is still exhausted.
 */
export const WATCH_NATIVE_RESUBSCRIBE_MIN_MS = 1_000;
export const WATCH_NATIVE_RESUBSCRIBE_MAX_MS = 30_000;
/**
 * File system timestamps come from a coarse kernel clock (one tick, up to 10 ms, behind the
 * real time), so "born at or after T" is tested against T minus this slack.
 */
export const FS_TIMESTAMP_SLACK_MS = 20;
/**
 * `--watcher auto` picks chokidar below this many files (watch-then-read per folder, no
 * blind spots; ready in 0.7 s at 2.8k files) and the native watcher from here on, where
 * chokidar's start-up grows to tens of seconds and a GB (19 s, 1.1 GB at 100k files).
 */
export const WATCH_NATIVE_MIN_FILES = 20_000;
/** Watch mode: the stat cache is written at most this often (and on exit); a 100k-entry cache is a few MB of JSON. */
export const WATCH_CACHE_SAVE_MS = 60_000;

/** The `ignore` package caches every answer forever; a daemon rebuilds its matcher past this many distinct paths. */
export const IGNORE_CACHE_MAX_PATHS = 200_000;

/** Files at or above this size are hashed by streaming, so xxhash-wasm's memory (which never shrinks) stays small. */
export const HASH_STREAM_THRESHOLD_BYTES = 8 * 1024 * 1024;

// ---- emulator: the deployment runner ----

/** Console lines kept per deployment: searchLogs reads up to 5000 (hosting-api.md, Limits). */
export const EMULATOR_LOG_MAX_LINES = 5_000;
/** One console line is cut at this many characters, and a child that never prints a newline is split there, so the buffer stays bounded. */
export const EMULATOR_LOG_MAX_LINE_CHARS = 8_192;
/** Lines of console tail in diagnose, apply and power answers. */
export const EMULATOR_LOG_TAIL_LINES = 50;
/** deployments.logs default size (hosting-api.md, Limits). */
export const EMULATOR_LOGS_DEFAULT_SIZE = 100;
/** A process with no console output for this long counts as idle: logs/diagnose stop waiting. */
export const EMULATOR_IDLE_MS = 1_000;
/** Default wait for power start/restart and for apply after a restart (hosting-api.md, Limits). */
export const EMULATOR_SETTLE_WAIT_SECONDS = 20;
/** Upper bound on any waitSeconds, so a request cannot hold the emulator (and the client's 120 s timeout) forever. */
export const EMULATOR_MAX_WAIT_SECONDS = 90;
/** How often a waiter re-checks time-based conditions (idleness); state changes wake it at once. */
export const EMULATOR_WAIT_POLL_MS = 50;
/**
 * A starting process's port is tried first after EMULATOR_PORT_POLL_FIRST_MS, then at
 * doubling intervals up to EMULATOR_PORT_POLL_MS: node binds within ~50 ms, and apply's
 * latency is what watch mode feels on every save.
 */
export const EMULATOR_PORT_POLL_FIRST_MS = 15;
export const EMULATOR_PORT_POLL_MS = 100;
/** stop sends SIGTERM, then SIGKILL to the process group after this grace (Wings does the same with its stop timeout). */
export const EMULATOR_STOP_GRACE_MS = 5_000;
/** The HTTP probe in diagnose/apply gives up after this long; a slow app reports status 0 rather than stalling the call. */
export const EMULATOR_PROBE_TIMEOUT_MS = 3_000;
/** The probe reads at most this much of the body: enough to find a <title> in any sane page head. */
export const EMULATOR_PROBE_MAX_BODY_BYTES = 64 * 1024;
/** Characters of body shown in the probe's bodyExcerpt. */
export const EMULATOR_BODY_EXCERPT_CHARS = 300;
/** The RAM limit reported by resources(): a typical plan slot (the docs' guidance for npm installs). */
export const EMULATOR_RAM_LIMIT_MB = 512;

/** Paths per files.delete call: one call normally; very large deletions are split so no body grows unbounded. */
export const DELETE_BATCH_PATHS = 1000;

/**
 * A push re-reads the remote and re-plans after an unknown outcome (a dropped move,
 * a decompress that timed out). Bounded, so a flapping network fails instead of looping.
 */
export const MAX_PLAN_ROUNDS = 3;

/**
 * Large files (streamed, >= HASH_STREAM_THRESHOLD_BYTES) hashed at once during a scan.
 * Small files are read synchronously instead: measured on a 100k-file tree (Node 20,
 * 2 cores, page cache warm) sync open+fstat+read+fstat+close hashed all of them in 0.97 s,
 * while bounded async reads took 4.0-10.6 s (concurrency 4-32) because each file costs
 * several threadpool round trips. Unbounded async reads hit EMFILE (DESIGN.md).
 */
export const HASH_CONCURRENCY = 2;
/**
 * Synchronous small-file hashing yields to the event loop after this long, so a daemon
 * stays responsive (watcher events, timers, HTTP) during a cold scan.
 */
export const HASH_SYNC_SLICE_MS = 20;
/** Read size when hashing a large file by streaming; xxhash-wasm's memory grows to the largest chunk it is given. */
export const HASH_STREAM_CHUNK_BYTES = 1024 * 1024;
/** A file that keeps changing while it is hashed is re-read this many times, then reported with the last read and not cached. */
export const HASH_STABLE_MAX_ATTEMPTS = 3;
/**
 * Stat cache racy window: an entry whose mtime is within this much of the time it was
 * recorded (or later) is re-hashed. File system timestamps are coarser than the clock
 * (ext4 ticks by jiffies, FAT by 2 s), so a write in the same tick as the hash keeps the
 * same mtime; git's exact "mtime >= index time" rule is widened to cover that.
 */
export const STAT_CACHE_RACY_WINDOW_MS = 2_000;

// ---- emulator (src/emulator) ----
// Limits the document states are repeated here so the emulator and the client
// agree on one number; the rest are the emulator's own choices, with reasons.

/** files.read default page (hosting-api.md, Limits). */
export const READ_DEFAULT_LIMIT_LINES = 400;
/** files.readMany default total budget (hosting-api.md, Limits). */
export const READ_MANY_DEFAULT_MAX_BYTES = 120_000;
/** files.tree defaults (hosting-api.md, Limits). */
export const TREE_DEFAULT_DEPTH = 6;
export const TREE_DEFAULT_MAX_ENTRIES = 400;
/** files.index default hashMaxBytes: 4 MiB (hosting-api.md, Limits). */
export const INDEX_DEFAULT_HASH_MAX_BYTES = 4 * 1024 * 1024;
/** files.uploadUrl: valid 15 minutes, single use (hosting-api.md, Limits). downloadUrl uses the same lifetime. */
export const SIGNED_URL_TTL_MS = 15 * 60_000;
/** deployments.searchLogs: default 2000 lines, up to 5000, context 2 (hosting-api.md, Limits). */
export const SEARCH_LOGS_DEFAULT_LINES = 2000;
export const SEARCH_LOGS_MAX_LINES = 5000;
export const SEARCH_LOGS_DEFAULT_CONTEXT = 2;
/** deployments.searchLogs answers at most this many matches, then says truncated. */
export const SEARCH_LOGS_MAX_MATCHES = 200;

/**
 * files.index entry cap before the emulator answers `truncated: true`. The document
 * gives no number; 20 000 keeps one answer under a few MB of JSON while forcing
 * clients to handle truncation on realistic monorepos (node_modules excluded).
 */
export const EMULATOR_INDEX_MAX_ENTRIES = 20_000;
/** Per-file upload limit of the node under the API (Wings default: 100 MB). */
export const EMULATOR_UPLOAD_MAX_BYTES = 100 * 1024 * 1024;
/**
 * Largest JSON request body the emulator parses. writeMany caps content at 5 MB, but
 * JSON escaping can expand it up to 6x (\u0000 forms); past this the body is refused
 * with 413 before parsing, so a runaway client cannot exhaust the emulator's memory.
 */
export const EMULATOR_JSON_BODY_MAX_BYTES = 40 * 1024 * 1024;
/** Versions kept per path in the emulator's history store; the oldest are dropped past it. */
export const EMULATOR_HISTORY_MAX_VERSIONS = 50;
/** The emulator caches file hashes by (ino, size, mtime, ctime); past this many entries the cache is cleared. */
export const EMULATOR_HASH_CACHE_MAX_ENTRIES = 200_000;
/**
 * A cached hash is trusted only if the file's mtime was at least this much older than
 * the moment it was hashed (git's racy-index rule): a same-size rewrite inside one
 * timestamp tick would otherwise keep a stale hash.
 */
export const EMULATOR_HASH_CACHE_RACY_MS = 2_000;
/** files.read and edit load a whole file; beyond this they refuse (413) rather than balloon memory. */
export const EMULATOR_TEXT_FILE_MAX_BYTES = 64 * 1024 * 1024;

/**
 * The planner weighs one API request as this many content bytes when choices trade one for
 * the other (a rename against re-sending the file, an archive against chmod calls). At the
 * sustained budget of 120 requests a minute a request costs 0.5 s, about what 1 MiB takes on
 * a modest uplink; requests still dominate for small files, bytes for large ones.
 */
export const REQUEST_COST_BYTES = 1024 * 1024;

/**
 * Remote client (src/remote). Our window forgets a request this long after its
 * answer arrived, on top of the window itself: covers clock granularity between
 * our monotonic clock and the server's, so pacing never lands a request one tick early.
 */
export const RATE_WINDOW_MARGIN_MS = 50;
/** 429s tolerated for one call before it fails: a server that never lets up must still end the run. */
export const RATE_LIMIT_MAX_RETRIES = 20;
/**
 * Pause after a 429 whose Retry-After is missing, unreadable, 0 or a date already past:
 * repeating at once would only meet another 429 (and spend the budget of whoever shares the key).
 */
export const RETRY_AFTER_FALLBACK_MS = 1_000;
/**
 * A 429 asking to wait more than this many windows fails at once: our pacing never needs
 * more than one window to recover, so a longer wait means someone else is spending the key
 * (or the service throttles it), and silently sleeping that long would look like a hang.
 */
export const RETRY_AFTER_MAX_WINDOWS = 2;
/** Connect timeout for the API and node hosts: a host that does not answer in this long is down. */
export const CONNECT_TIMEOUT_MS = 15_000;
/**
 * Read size for files streamed into an upload archive. tar's default is 16 MiB per
 * read; at 1 MiB a 200 MB file archives with a small, flat memory footprint.
 */
export const ARCHIVE_READ_CHUNK_BYTES = 1024 * 1024;

/** A lock file with no readable content younger than this is still being written by its owner (not stale). */
export const TORN_LOCK_GRACE_MS = 5_000;
