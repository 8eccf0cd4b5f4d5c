/** Tunables of the API client and its queue, each with its reason. */

/**
 * Requests in flight at once. The node serialises file operations per deployment
 * anyway; a few in flight hide latency without reordering dependent steps.
 */
export const MAX_IN_FLIGHT = 4;

/** Retries for idempotent calls on 5xx / dropped connections: jittered exponential backoff, capped. */
export const RETRY_MAX_ATTEMPTS = 5;
export const RETRY_BASE_DELAY_MS = 200;
export const RETRY_MAX_DELAY_MS = 5_000;

/**
 * How long an ordinary API call may take, whole: wall clock from the send to the last
 * byte of its answer, however the server paces its bytes (an idle timeout would let a
 * server trickling a space every few seconds hold a call forever). The service answers
 * in well under a second when healthy and the node does a call's file work in seconds;
 * 30 s covers a loaded node several times over, and a stuck service is reported within
 * a minute (two attempts) instead of ten. Calls that wait on the server (apply,
 * diagnose, logs, power, shell) get their wait on top, and every call its bytes' worth
 * at TRANSFER_MIN_BYTES_PER_SECOND. HOSTSYNC_TIMEOUT (seconds) replaces it for a slow link.
 */
export const ANSWER_TIMEOUT_MS = 30_000;

/**
 * Calls whose node-side work grows with their input get a multiple of the answer timeout:
 * writeMany writes up to 5 MB in order; delete and move touch many files; compress and
 * decompress pack or unpack a whole change set (a 100k-file archive).
 */
export const ANSWER_TIMEOUT_FACTOR: Readonly<Record<string, number>> = {
  /** The node stores the upload before it answers; an archive's size is unknown up front (see below). */
  'files.upload': 2,
  'files.writeMany': 2,
  'files.delete': 2,
  'files.move': 2,
  'files.compress': 10,
  'files.decompress': 10,
};

/**
 * files.decompress of an archive of known file count waits this on top, per file: a node
 * unpacks thousands of small files a second, so 250 is a floor a loaded node stays above;
 * a 100k-file archive gets 400 s more than the factor's 300 s (one bench run at load 20
 * timed out at 300 s and the push had to re-read an unknown outcome).
 */
export const UNPACK_MIN_FILES_PER_SECOND = 250;

/**
 * Uploads to a signed node URL: the answer timeout plus the body's size at this rate
 * (a floor no working link is below), so a 200 MB upload is not cut at 30 s. An archive
 * upload, whose size is known only once streamed, earns the time as its bytes go
 * (TRANSFER_MIN_BYTES_PER_SECOND).
 */
export const UPLOAD_MIN_BYTES_PER_SECOND = 256 * 1024;

/**
 * Every call's bound grows by the bytes it moved (sent or received) at this rate, the
 * same floor: a download or a large index answer is not cut at 30 s on a slow link,
 * while a server trickling a byte every few seconds earns nothing worth counting.
 */
export const TRANSFER_MIN_BYTES_PER_SECOND = UPLOAD_MIN_BYTES_PER_SECOND;

/**
 * Attempts in all for a call that timed out: once more (a connection can die without a
 * word), not RETRY_MAX_ATTEMPTS times (a service that accepted the request and then
 * said nothing for the whole timeout is stuck, and five waits would be minutes).
 */
export const TIMEOUT_MAX_ATTEMPTS = 2;

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

/**
 * Read size for a file sent as a part of a multipart upload (upload.ts, DiskFile): 64 KiB,
 * what a file-backed Blob read per chunk before it, so memory per file in flight stays as it was.
 */
export const UPLOAD_FILE_READ_BYTES = 64 * 1024;

/**
 * An archive part about to be flushed waits for tar to hand gzip every admitted byte; it
 * is woken by tar's and gzip's events, and also looks again this often, so a missed
 * event costs one poll. Near the limit a part waits this way a dozen times or so.
 */
export const ARCHIVE_PART_WAIT_POLL_MS = 50;

/**
 * tar's output goes to gzip in pieces of this size. tar emits a header, the data and the
 * padding of every file as separate chunks; each write to gzip is a round trip through
 * the thread pool, which cost 10 s of 60 s CPU on 100k small files, one write each.
 */
export const ARCHIVE_GZIP_WRITE_BYTES = 256 * 1024;

/**
 * An archive part is compressed as gzip members of about this many bytes of tar, several
 * at once (gzip-members.ts). Each member starts with an empty window: at 1 MiB that cost
 * 0.3% in size on the 100k-file bench tree (78.89 MB against 78.62 MB as one stream),
 * and a 5 MB push still splits into enough members to use every core.
 */
export const ARCHIVE_GZIP_MEMBER_BYTES = 1024 * 1024;

/**
 * Members compressed at once: one per core, at most this many. libuv's thread pool has 4
 * threads (UV_THREADPOOL_SIZE); one is left for the file system and DNS work of the rest
 * of the process.
 */
export const ARCHIVE_GZIP_MAX_JOBS = 3;

/**
 * A synchronous tar reads on while gzip has fewer than this many pieces to compress:
 * enough that gzip never waits for tar, few enough to hold only about a megabyte.
 */
export const ARCHIVE_GZIP_QUEUE_PIECES = 4;

/**
 * An archive part whose files are all at most this large is read synchronously by tar,
 * a file at a time (memory holds at most one such file): on 100k small files that took
 * 7 s of CPU against 23 s for tar's asynchronous reads (open, read, close through the
 * thread pool for every file). A larger file makes the part stream as before.
 */
export const ARCHIVE_SYNC_MAX_FILE_BYTES = 8 * 1024 * 1024;

/**
 * The shared budget ledger (ledger.ts). While the window is full, a reservation sleeps
 * until the next known expiry but never longer than LEDGER_MAX_SLEEP_MS, so an entry
 * freed early (a dead owner's) is noticed; when only in-flight requests of other
 * processes hold the budget, it re-reads every LEDGER_POLL_MS (a few ms of file I/O).
 */
export const LEDGER_POLL_MS = 100;
export const LEDGER_MAX_SLEEP_MS = 1_000;

/**
 * The ledger's lock is held for one read-modify-write (about a millisecond). A lock
 * older than this belongs to a killed process and is taken over; 5 s is
 * proper-lockfile's minimum, and its holder refreshes it well within that.
 */
export const LEDGER_LOCK_STALE_MS = 5_000;

/**
 * An answered request's entry is written to the ledger with the next reservation's pass,
 * or after this long when none comes. A watch cycle's next request follows its previous
 * answer within a few ms, so this saves a locked pass per request on the save-to-live
 * path; other processes see the answer at most this late (as in flight meanwhile: they
 * count it either way, and only one that waits for it to expire waits this much longer).
 */
export const LEDGER_ANSWER_WRITE_MS = 50;

/**
 * An unanswered ledger entry (in flight) of a live process is void once older than the
 * longest its request may take: its owner has given up on it by then (every request is
 * bounded by its wall-clock timeout), so a pid reused by another program, or a hostsync
 * stopped with Ctrl-Z, cannot hold the budget for ever. Each entry carries its own
 * request's bound (`maxMs`: the call's timeout, cut by the command's deadline); this is
 * for an entry without one (written by an older hostsync, or by hand): the longest a
 * metered call may take at the default timeouts, a files.decompress of a 100k-file
 * archive (10 x 30 s, plus 400 s at UNPACK_MIN_FILES_PER_SECOND), rounded up.
 */
export const LEDGER_IN_FLIGHT_MAX_MS = 15 * 60_000;

/**
 * A wait for room in the shared budget longer than this is told, once, at the default
 * log level: past a second it is no longer pacing a person would not notice, and a
 * silent wait looks like a hang.
 */
export const LEDGER_WAIT_TELL_MS = 1_000;


/** Cap of the lock's retry backoff: contention lasts milliseconds, so retry often. */
export const LEDGER_LOCK_RETRY_MAX_MS = 20;

/**
 * How long a request waits for the ledger's lock before the ledger is given up on (the
 * client then paces by its own window alone). Given as a time, not a number of retries:
 * the retry package computes every retry's delay up front, and the 1,000 retries this
 * used to be cost about 10 ms of each command's start-up.
 */
export const LEDGER_LOCK_WAIT_MAX_MS = 20_000;
