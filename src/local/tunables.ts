/** Tunables of the local side (walk, hash, stat cache, ignore), each with its reason. */

/** The `ignore` package caches every answer forever; a daemon rebuilds its matcher past this many distinct paths. */
export const IGNORE_CACHE_MAX_PATHS = 200_000;

/** Files at or above this size are hashed by streaming, so xxhash-wasm's memory (which never shrinks) stays small. */
export const HASH_STREAM_THRESHOLD_BYTES = 8 * 1024 * 1024;

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

/**
 * A command's walk yields to the event loop after this long (ScanOptions.walkSliceMs), so
 * the requests it asked before its scan (sync/remote-read/remote-read.ts readRemoteBeside) connect, are
 * sent and are answered during the walk (~0.8 s at 100k files warm) rather than after it:
 * the DNS lookup, TLS handshake and round trips (3-4 of them, 50-400 ms to a real service)
 * no longer follow the walk. Yielding costs ~10 us.
 */
export const WALK_SLICE_MS = 20;

/** Steps of a sliced walk between two looks at the clock: performance.now() per step would cost ~5 ms at 100k files. */
export const WALK_STEPS_PER_CLOCK_LOOK = 256;

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

/**
 * chokidar reports a path's change and then drops further change events of that path for
 * 50 ms (its `_throttle('change', path, 50)`, with no trailing event): a file saved again
 * inside that window would never be reported. So the watcher looks at a reported file
 * once more this long after its last report (a stat), and reports it again if it changed.
 */
export const CHOKIDAR_LOOK_AGAIN_MS = 60;

/**
 * Windows' MAX_PATH (260 including the drive and the terminating NUL, so 259 characters):
 * longer paths fail to open unless long paths are enabled system-wide and per application.
 */
export const WINDOWS_MAX_PATH_CHARS = 259;

/**
 * A scan reads its small files on worker threads as well (hash-pool.ts) only from this many
 * files to read on. A worker costs ~70-130 ms of CPU to start (an isolate compiling Node's
 * internals, the module graph, xxhash-wasm) and reads nothing for its first ~90 ms, while
 * the main thread reads ~11 us per file: parallel wall is about (n * 11 us + 90 ms) / 2,
 * even with serial at n ~ 8k (measured: 86 ms serial, 85 ms with one worker). Above that
 * margin the second core pays off; below it, a 3k-file cold scan or a warm status (nothing
 * to read) would pay the start for nothing. See docs/decisions.md "Cold scans on every core".
 */
export const HASH_WORKERS_MIN_FILES = 10_000;

/**
 * At most this many worker threads beside the main thread: past a few, the walk and the
 * file system, not hashing, bound a cold scan, and each worker holds its own heap.
 */
export const HASH_WORKERS_MAX = 7;

/** Files a hashing thread claims at once: small enough to balance the threads, large enough that claiming is free. */
export const HASH_POOL_BATCH_FILES = 128;

/**
 * Files a scan's walk hands its hash workers at once, once they are started: the workers
 * read while the walk goes on (a cold walk at 100k files is ~0.3 s of one core). Each
 * segment is one message per worker (its paths cloned, ~0.3 ms at 4096); smaller ones
 * would keep the workers fed sooner for more messages.
 */
export const HASH_POOL_SEGMENT_FILES = 4096;

/**
 * A scan checking a tree against the sync base in place (scan.ts, ScanOptions.expect) carries
 * at most this many differing paths as a delta over the base (added, changed, deleted)
 * before it makes every entry instead: a one-file edit at 100k files then costs its path
 * alone downstream (reconcile, the base record's batch), not 100k entries made and
 * compared. Past a few thousand the per-path work no longer pays for the bookkeeping.
 */
export const SCAN_DELTA_MAX_PATHS = 4096;

/**
 * Files the stat cache cannot answer for that such a scan reads at once, on the main
 * thread, as it meets them (a file edited since the last scan): each is then checked
 * against the base in place like a cache hit. Past this many the scan reads the rest
 * as it does any cold scan (after the walk, on every core), the check after reading.
 */
export const SCAN_READS_IN_PLACE_MAX = 64;

/**
 * Ancestors of HEAD a recorded batch carries (base-record.ts GitStamp.anc): another copy finds
 * itself "behind" when its commit is among them, without fetching. 32 covers a day of a busy
 * team's commits between two deploys; a copy further behind, in a shallow clone, is judged
 * by commit time (sync/core/copy-position.ts). ~420 bytes a batch at 12 hex digits each.
 */
export const GIT_ANCESTORS = 32;

/** A watch cycle's batch asks git about its own paths when they are at most this many (argument lists stay short); more ask for the whole index. */
export const GIT_BATCH_PATHSPECS = 200;

/** `git ls-files -z` of 100k files prints ~3 MB; the answer buffer allows well past a million. */
export const GIT_MAX_OUTPUT_BYTES = 256 * 1024 * 1024;

/**
 * A shared file's lock (local/locked-file.ts: the budget ledger, the restart count) whose
 * mtime is more than this ahead of the clock is stale: no live holder on this machine sets
 * one ahead (it refreshes with this machine's clock); the slack covers file systems that
 * round times up.
 */
export const LOCK_FUTURE_SLACK_MS = 2_000;
