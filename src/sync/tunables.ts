/** Tunables of the sync engine (planner, guards), each with its reason. */

/**
 * We fill a writeMany batch only to this many bytes of content, so the JSON
 * framing (escaped quotes, backslashes, paths) can never push the body over the cap
 * whichever way the server counts "content".
 */
export const WRITE_MANY_BATCH_BYTES = 4.5 * 1024 * 1024;

/**
 * One of our upload archives younger than this is not a leftover: its push may still be
 * waiting for its decompress (a timed-out one may still be unpacking on the node: the
 * longest wait, 300 s + 1 s per 250 files, is about 12 minutes at 100k files), or another
 * machine's push (CI, a teammate) may be between upload and decompress. Deleting it then
 * would cut that unpack short. Older ones are removed by the next read that sees them.
 */
export const LEFTOVER_MIN_AGE_MS = 30 * 60_000;

/** A text file larger than this goes by upload: writeMany could carry it alone, but one request and no JSON escaping is cheaper. */
export const TEXT_UPLOAD_THRESHOLD_BYTES = 4 * 1024 * 1024;

/** files.index hashes files up to 4 MiB by default; we ask for more so large files compare by hash too. */
export const INDEX_HASH_MAX_BYTES = 256 * 1024 * 1024;

/**
 * A change set with at least this many files to write goes as one tar.gz through
 * uploadUrl + decompress when that costs fewer requests than writeMany batches.
 */
export const ARCHIVE_MIN_FILES = 50;

/**
 * An archive part is closed this far below the node's upload limit, at worst. The bound
 * it is cut by (archive-bound.ts partFits) is zlib's own for a whole stream; 1% of the
 * 100 MB limit covers any continuation overhead past a sync flush many times over, at the
 * cost of parts 1% smaller. (Tests with a small limit pass their own.)
 */
export const ARCHIVE_PART_MARGIN_FRACTION = 0.01;

/**
 * Sends of one upload or archive step when files vanish locally while it streams (each
 * failed send is resent without them). A tree being deleted under a push settles in one or
 * two resends; past that the step fails like any other, rather than re-uploading forever.
 */
export const TRANSFER_VANISHED_ATTEMPTS = 3;

/**
 * Files an upload or archive step checks are still there (lstatSync) between yields to
 * the event loop: an initial push's archive lists 100k files, about 0.5 s of lstat, so a
 * slice this size holds the loop for milliseconds.
 */
export const VANISHED_CHECK_SLICE = 2048;

/** Mass-deletion guard (DESIGN.md): refuse to delete more than half of tracked files when that is more than 20 (and, whatever the size, every tracked file: plan.ts). */
export const MASS_DELETE_MIN_FILES = 20;
export const MASS_DELETE_FRACTION = 0.5;

/** Paths per files.delete call: one call normally; very large deletions are split so no body grows unbounded. */
export const DELETE_BATCH_PATHS = 1000;

/**
 * A push re-reads the remote and re-plans after an unknown outcome (a dropped move,
 * a decompress that timed out). Bounded, so a flapping network fails instead of looping.
 */
export const MAX_PLAN_ROUNDS = 3;

/**
 * The planner weighs one API request as this many content bytes when choices trade one for
 * the other (a rename against re-sending the file, an archive against chmod calls). At the
 * sustained budget of 120 requests a minute a request costs 0.5 s, about what 1 MiB takes on
 * a modest uplink; requests still dominate for small files, bytes for large ones.
 */
export const REQUEST_COST_BYTES = 1024 * 1024;

/**
 * Extra ignore patterns one grouped files.index read may carry (index-groups.ts). Each
 * pattern is matched against every path the server walks; past this, a truncated index is
 * completed folder by folder instead, as a request body of thousands of lines would be.
 */
export const INDEX_GROUP_MAX_PATTERNS = 500;

/**
 * Grouped files.index reads in flight at once (they do not depend on each other): on a
 * real network each hides the other's round trip; more would only queue on the node,
 * which walks one volume.
 */
export const INDEX_GROUP_READS_AT_ONCE = 2;

/**
 * Watch mode: scoped files.index answers remembered for their digest (one per distinct
 * scope). An editor session touches a handful of files over and over; a few dozen scopes
 * cover it, and each entry holds only the scope's few files.
 */
export const SCOPED_READ_CACHE_ENTRIES = 64;

/**
 * While waiting for a web app's answer or a worker's ready line, the first re-read comes
 * this soon after the apply, then the gap doubles up to HEALTH_POLL_MAX_MS: a bot that
 * logs in within a few seconds is seen quickly, and a 30 s wait costs about 7 requests
 * (of 120 a minute), never a poll storm. Each read is a deployments.logs or diagnose
 * with `waitSeconds`, so a crash ends the wait as soon as the service sees it.
 */
export const HEALTH_POLL_FIRST_MS = 500;
export const HEALTH_POLL_MAX_MS = 8_000;

/** Lines a ready-line read asks deployments.logs for: the most the service answers (its deploy scripts assume 500). */
export const HEALTH_LOGS_SIZE = 500;

/**
 * Lines of the console log a ready-line search scans when this start's first lines have
 * rotated out of the live tail: the document's most (searchLogs reads up to 5000).
 */
export const HEALTH_SEARCH_LINES = 5000;

/** Console lines shown when the app did not come up (plus the first error line of this start, when it lies before them). */
export const FAILURE_TAIL_LINES = 12;

/**
 * Files the app does not run: a change touching only these is applied without a
 * restart (for a bot every restart is a reconnect). hostsync.json `hotPaths` adds to them.
 */
export const DEFAULT_HOT_PATHS: readonly string[] = [
  // Spelled out rather than README* / LICENSE*: patterns match case-insensitively, and readme.js is code.
  'README', 'README.txt', 'README.rst', '*.md', 'LICENSE', 'LICENSE.txt', 'LICENCE', 'LICENCE.txt',
  'hostsync.json', '.syncignore', 'docs/**',
];

/** The idle check's diagnose may wait this long for an app that is still starting to settle (one request either way). */
export const IDLE_CHECK_WAIT_SECONDS = 20;

/**
 * writeMany stops at a failing file and names it; a node write failure is usually
 * transient (a busy disk, a restarting node), so the failing file and the rest are sent
 * again, up to this many sends in all. Four sends cost at most three extra requests per
 * batch; a failure that survives them holds back the apply (never a half-pushed restart).
 */
export const WRITE_MANY_ATTEMPTS = 4;

/**
 * A plan overwriting at most this many files by writeMany checks each against files.history
 * for a remote edit that landed between the re-check and the write (one request each): an
 * ordinary edit-and-push is always checked, while a bulk rewrite (a branch switch, a build)
 * does not spend its rate budget (120 a minute) on it and relies on the re-check alone.
 */
export const SLIP_CHECK_MAX_FILES = 8;

/**
 * Content budget of one files.readMany call in pull and diff: the documented default
 * (hosting-api.md, Limits). The API accepts a larger maxBytes but documents no ceiling,
 * so we never ask for more than the one number it promises.
 */
export { READ_MANY_DEFAULT_MAX_BYTES as READ_MANY_BUDGET_BYTES } from '../api/limits.js';

/**
 * diff shows a text file up to this size as a unified diff; above it, size and hash only.
 * jsdiff's Myers diff is O(N·D): a multi-MB file with many edits would stall the terminal.
 */
export const DIFF_TEXT_MAX_BYTES = 2 * 1024 * 1024;

/** Large files pull (downloadUrl + GET) at once: each is one stream; two keep the pipe full without hogging the node. */
export const DOWNLOAD_CONCURRENCY = 2;

/** Files the first push's .gitignore warning names before "+N more": one line in a terminal. */
export const GITIGNORED_NAMED = 5;

/** Vanished files named one warning each; more (a folder removed during the push) share one line naming this many. */
export const VANISHED_NAMED = 5;

/**
 * Undo finds the history version a push saved by comparing the version's savedAt (server
 * clock) with when the push began (our clock). A difference between the clocks below this
 * is ignored: the Date header the offset is measured from has whole seconds, so a smaller
 * "offset" is mostly rounding, and clocks kept by NTP agree far better than this.
 */
export const CLOCK_SKEW_IGNORED_MS = 2_000;

/**
 * `status` reads at most this many differing text files again to tell a CRLF-only
 * difference (line-endings.ts): a whole checkout converted by git on Windows is named by
 * its first files, without reading thousands.
 */
export const LINE_ENDINGS_CHECK_MAX_FILES = 50;

/**
 * The base record is compacted (rewritten as one snapshot) once the batches older than the
 * kept ones (RECORD_KEEP_PUSHES) weigh more than its snapshot, and more than this: a small
 * project's record is never rewritten for a few hundred bytes of batches.
 */
export const RECORD_COMPACT_MIN_BYTES = 64 * 1024;

/**
 * Newest batches a compaction keeps as batches: one of them may be a push still transferring
 * on another machine, which a reader tells from a failed one only by its before and after.
 */
export const RECORD_KEEP_BATCHES = 4;

/**
 * Newest push and watch batches (and every batch between them) a compaction keeps: `history`
 * lists them from any machine and `rollback` goes back to any of them. 50 pushes of ~20 paths
 * are ~50 KB beside a 100k-file snapshot of ~3 MB (bench/push/history.mjs).
 */
export const RECORD_KEEP_PUSHES = 50;

/**
 * Plans a push makes when its compare-and-swap on the base record keeps losing (another
 * machine recorded a batch between our read and our edit): each loss re-reads and re-plans.
 * Two racing pushes settle in two; more means a storm of pushes, better reported than chased.
 */
export const RECORD_CAS_ATTEMPTS = 4;

/**
 * A recorded batch younger than this may still be in flight (a push records before it
 * sends): its paths still holding their before are "not landed yet". Older, no push can
 * still be sending it (the longest, a 100k-file archive push waiting out its decompress, is
 * about 12 minutes: LEFTOVER_MIN_AGE_MS's reasoning), so a before on the deployment is a
 * write undone since (by hand, or a push that failed for good): never read as permission to
 * write it again (record-merge.ts). Measured on the writer's clock: skew between machines
 * shifts the window, never makes an old batch pending past it plus the skew.
 */
export const PENDING_MAX_MS = LEFTOVER_MIN_AGE_MS;

/**
 * A watch's batches carry the git stamp of HEAD as git said it at most this long ago: a burst
 * of cycles asks git once (two processes, ~10 ms), and a commit is seen by the cycle after.
 * A stamp a little old only makes other copies judge themselves ahead of it, never behind.
 */
export const WATCH_GIT_HEAD_TTL_MS = 2_000;

/**
 * A restart whose stop took at least this long is reported as an app that did not exit on
 * its stop signal and was killed at the end of the service's grace (sync/apply/restart-guard.ts).
 * hosting-api.md documents no grace and no field saying a stop was forced; the emulator
 * kills after 5 s (docs/emulator.md), a bot that handles SIGTERM (discord.js's
 * client.destroy(), discord.py's bot.close()) exits in well under a second, so 3 s tells
 * the two apart with room on both sides (docs/decisions.md, "A stop that was a kill").
 */
export const SHUTDOWN_KILLED_MIN_MS = 3_000;

/** The restart count warns from this share of `restartsPerDay` on (80%: room to stop before a token reset). */
export const RESTARTS_WARN_SHARE = 0.8;
/**
 * `"install": "on-change"`: the install a manifest change runs through deployments.shell may
 * take this long (its `timeout`). The document's default over the API, where a request is
 * cut after about 100 s anyway; a longer install belongs in the start command.
 */
export const INSTALL_TIMEOUT_SECONDS = 90;
/** Lines of a failed install's output a report keeps (its end: npm and pip say what failed last). */
export const INSTALL_FAILURE_LINES = 30;
/**
 * hostsync.json "notify": at most one notification of each kind this often. A bot crashing
 * in a loop, or conflicts on every save, must not flood a channel (Discord also limits a
 * webhook to a few posts a second); what was held back is counted in the next one.
 */
export const NOTIFY_MIN_INTERVAL_MS = 60_000;
/** How long a webhook POST may take: a notification never holds up a sync or an exit for long. */
export const NOTIFY_WEBHOOK_TIMEOUT_MS = 10_000;
/** Discord refuses content over 2000 characters: the message is cut below it. */
export const NOTIFY_MAX_CHARS = 1_900;
/** Log lines a notification carries (the last ones). */
export const NOTIFY_LOG_LINES = 10;
/** An env file's value shorter than this is not looked for in a notification (a "1" or "true" would blank the text). */
export const NOTIFY_REDACT_MIN_CHARS = 6;
