/** Tunables of watch mode, each with its reason. */

/**
 * Watch mode: quiet period before a cycle starts. It only has to join the events of ONE
 * save: an editor's write-temp + rename (or truncate + write) reaches us within a few ms
 * (chokidar reports each after one stat; the native watcher already waits for 50 ms of
 * quiet before it reports anything). Every ms here is a ms of save-to-live, so it is kept
 * just above that spread; a save whose events straggle past it costs one more cycle, and
 * chokidar's dropped repeats are covered by the watcher's look-again (local/tunables.ts).
 */
export const WATCH_DEBOUNCE_MS = 15;
/**
 * Watch mode: a batch of at least WATCH_BULK_PATHS paths (a branch switch, a formatter or
 * code generator run; one save touches 1-3 paths) waits for WATCH_BULK_QUIET_MS of quiet
 * instead of WATCH_DEBOUNCE_MS. chokidar holds every deletion back 100 ms (its `atomic`
 * pairing of unlink + re-add) and reports new files after a readdir, so a bulk change's
 * deletions and additions arrive 100-170 ms after its rewrites (measured on the bench's
 * 3k tree): with the short debounce they made a second cycle, with its own read, write
 * and apply (8 requests instead of 5 per branch switch). Still bounded by the max wait.
 */
export const WATCH_BULK_PATHS = 8;
export const WATCH_BULK_QUIET_MS = 150;

/** Watch mode: the longest a burst of events may defer its cycle (a file saved every 100 ms forever still syncs). */
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

/** Pending paths the status file names (it always counts them all): enough to recognise what is waiting. */
export const WATCH_STATUS_SAMPLE_PATHS = 10;

/**
 * Watch mode's mass-delete guard counts the deletions it made within this window with each
 * cycle's: deleting 45% every few seconds must trip it like one 90% deletion does, while a
 * day of ordinary work (a file removed now and then) never adds up to "half the project".
 * Once tripped, the window stops sliding until the user confirms or undoes the deletions.
 */
export const WATCH_DELETE_WINDOW_MS = 10 * 60_000;

/**
 * Watch mode's quiet moment: a cycle's writes are verified by the next cycle's read when the
 * user keeps saving, and its batch waits for the base record (scoped-sync.ts recordPending).
 * When the tree goes quiet this long, one read verifies the writes and one edit records
 * them: two requests per editing burst, not per save, so saves a few seconds apart cost
 * their read and their write alone (2 a save: issue 45). 5 s covers a developer's
 * save-look-save rhythm (bench:watch saves every 2.5 s); a remote edit racing our write is
 * still reported within about 5 s, and other copies see the burst's writes as edits on the
 * deployment (never as permission to overwrite) until then.
 */
export const WATCH_VERIFY_IDLE_MS = 5_000;

/**
 * Watch mode, budget pacing (pacer.ts): the bucket refills at this share of the key's
 * sustained rate. 0.7 of 120/min is a 4-request cycle every 2.9 s under continuous saving:
 * the last save lands within about 3 s of the last keystroke, and with the burst below the
 * window never holds more than 95% of the limit, so a `push` from another terminal
 * still has room.
 */
export const WATCH_PACE_RATE_SHARE = 0.7;
/**
 * Watch mode, budget pacing: the bucket holds this share of the key's limit. A quarter
 * (30 of 120) lets seven edits in a row (4 requests each) through at debounce speed
 * before pacing starts.
 */
export const WATCH_PACE_BURST_SHARE = 0.25;

/**
 * `logs --follow` and `watch --logs`: one deployments.logs read at most this often, each
 * a long poll (waitSeconds of the same length) that the service ends early when the app
 * goes quiet or dies. 24 requests a minute, a fifth of the 120-a-minute budget, leaves
 * room for a watch beside it, and a new line shows within about this long.
 */
export const LOGS_FOLLOW_INTERVAL_MS = 2_500;

/** Lines per follow read: the most deployments.logs answers, so a chatty app loses as few lines as possible between reads. */
export const LOGS_FOLLOW_SIZE = 500;

/** After a failed read (network, 5xx) the follower waits this long, doubling up to the second figure, and says so once. */
export const LOGS_FOLLOW_RETRY_MIN_MS = 2_000;
export const LOGS_FOLLOW_RETRY_MAX_MS = 30_000;

/**
 * Watch mode: a project found vanished (sync/push/vanished.ts) is looked at once more after this
 * long before watch stops. Some saves pass through a moment without the file (an editor
 * that renames the old hostsync.json away before writing the new one) and a branch switch
 * can empty a small tree between git's unlinks and its writes; a deleted folder is still
 * gone a fifth of a second later, and nothing is sent meanwhile.
 */
export const WATCH_VANISHED_RECHECK_MS = 200;

/**
 * Watch mode with "dir": a build that deletes and re-creates the synced folder itself
 * (`rm -rf dist && vite build`, webpack's `clean`) leaves it missing for as long as the
 * build takes to make it again. While the project root stays, a folder that is back within
 * this long is a rebuild: watch follows the new folder. Past it, the project counts as
 * vanished and watch stops. 3 s covers a clean step and the first write of a small build;
 * a longer build that empties the folder's contents rather than the folder is an ordinary
 * change and needs no window. Looked at every WATCH_DIR_REBUILD_POLL_MS meanwhile.
 */
export const WATCH_DIR_REBUILD_MS = 3_000;
export const WATCH_DIR_REBUILD_POLL_MS = 100;

/**
 * Watch keeps reading the app's state after each apply (without --logs too), so a crash
 * after it came up is reported: one deployments.logs long poll per this interval, which
 * returns early when the process dies. 6 requests a minute of the 120.
 */
export const APP_MONITOR_INTERVAL_MS = 10_000;
/**
 * An `offline` state is reported once it has lasted this long: a restart passes through
 * stopped states too, and is followed by `starting` within it.
 */
export const APP_MONITOR_CONFIRM_MS = 3_000;
/** Console lines kept since the last cycle, to name the failure's first error line. */
export const APP_MONITOR_LINES = 300;
/** Lines of this start shown under the report of an app that went offline. */
export const APP_MONITOR_SHOWN_LINES = 8;

/**
 * `status` and `diff` asking a running watch what changed (query-server.ts): how long the
 * daemon waits for its watcher to report the probe file before it answers "cannot say"
 * and the command scans. The native watcher hands events over in ~50 ms batches and
 * chokidar at once, so a second covers a busy machine while keeping a stuck watcher from
 * costing more than a scan of a large tree would.
 */
export const WATCH_QUERY_COOKIE_TIMEOUT_MS = 1_000;

/**
 * A worker that crashes at start this many restarts in a row is not restarted again by
 * watch until a new save (restart-pacer.ts): each restart of a bot is a login, and a crash
 * loop must not burn the day's logins (issue 47).
 */
export const WATCH_CRASH_LOOP_STARTS = 3;

/**
 * A watcher can miss events: chokidar lost the create of a rebuilt asset in 3 of 11 rebuilds
 * of a build that empties `dist/` and writes it again (issue 46), and the watch then
 * reported the page healthy while it linked a 404. After a batch that removed entries, the
 * cycle re-walks their folders (a stat per file, through the cache) before it pushes, and
 * once more this long after it, for what the build wrote after that walk: a few seconds, as
 * long as a bundler's write phase, and one cheap walk per burst.
 */
export const WATCH_REWALK_AGAIN_MS = 2_000;
/**
 * A removal at the root re-walks the whole tree only below this many files (a stat per
 * file: a few ms per thousand); above it, the native watcher (WATCH_NATIVE_MIN_FILES) runs,
 * whose blind spot is repaired by its own re-subscription and rescan.
 */
export const WATCH_REWALK_WHOLE_MAX_FILES = 20_000;
