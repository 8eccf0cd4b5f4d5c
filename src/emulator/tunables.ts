/** The emulator's own tunables, each with its reason. It depends only on api/, so it keeps its own copies. */
import { NODE_UPLOAD_MAX_BYTES } from '../api/limits.js';

/** Files at or above this size are hashed by streaming, so xxhash-wasm's memory (which never shrinks) stays small. */
export const HASH_STREAM_THRESHOLD_BYTES = 8 * 1024 * 1024;

// ---- emulator: the deployment runner ----

/** Console lines kept per deployment for deployments.searchLogs, which reads up to 5000 (hosting-api.md, Limits). */
export const EMULATOR_LOG_MAX_LINES = 5_000;

/**
 * Lines of the live console (what logs, diagnose, apply and power tails are cut from)
 * unless `--console-lines N` says otherwise. The service's live buffer is reported to be
 * small enough that boot lines rotate out within minutes, while searchLogs still reads
 * the last 5000 lines; the default stays as large as the searchable log (issue #30:
 * "default as today") so no existing reader is surprised, and --console-lines 20 makes
 * the rotation testable.
 */
export const EMULATOR_CONSOLE_LINES = 5_000;

/** One console line is cut at this many characters, and a child that never prints a newline is split there, so the buffer stays bounded. */
export const EMULATOR_LOG_MAX_LINE_CHARS = 8_192;

/** Lines of console tail in diagnose, apply and power answers. */
export const EMULATOR_LOG_TAIL_LINES = 50;

/** deployments.logs default size (hosting-api.md, Limits). */
export const EMULATOR_LOGS_DEFAULT_SIZE = 100;

/**
 * deployments.logs answers at most this many lines: a public deploy script for the
 * service says the real one refuses a larger `size` with 400 (issues #11, #30), so the
 * emulator refuses it too. searchLogs still reads up to 5000.
 */
export const EMULATOR_LOGS_MAX_SIZE = 500;

/**
 * A process still alive this long after its spawn is `running` even if it never listens
 * (a chat bot, a queue worker): the document's `running` is "up", `starting` is "not up
 * yet". Long enough for a crash at start-up (a missing module, a bad token) to show as
 * `offline` instead; short enough that a healthy bot's apply returns in about this long.
 * `--boot-grace SECONDS` changes it.
 */
export const EMULATOR_BOOT_GRACE_MS = 1_500;

/** Asking an interpreter for its version (python.ts) gives up after this long: a hung shim must not hold a start. */
export const EMULATOR_PYTHON_PROBE_TIMEOUT_MS = 10_000;

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

/** Once the boot grace made a non-listening process running, its port is still tried this often, so an app that binds late is known to listen. */
export const EMULATOR_PORT_POLL_RUNNING_MS = 500;

/** stop sends SIGTERM, then SIGKILL to the process group after this grace (Wings does the same with its stop timeout). */
export const EMULATOR_STOP_GRACE_MS = 5_000;

/** The HTTP probe in diagnose/apply gives up after this long; a slow app reports status 0 rather than stalling the call. */
export const EMULATOR_PROBE_TIMEOUT_MS = 3_000;

/** The probe reads at most this much of the body: enough to find a <title> in any sane page head. */
export const EMULATOR_PROBE_MAX_BODY_BYTES = 64 * 1024;

/** Characters of body shown in the probe's bodyExcerpt. */
export const EMULATOR_BODY_EXCERPT_CHARS = 300;

/**
 * Large files (streamed, >= HASH_STREAM_THRESHOLD_BYTES) hashed at once during a scan.
 * Small files are read synchronously instead: measured on a 100k-file tree (Node 20,
 * 2 cores, page cache warm) sync open+fstat+read+fstat+close hashed all of them in 0.97 s,
 * while bounded async reads took 4.0-10.6 s (concurrency 4-32) because each file costs
 * several threadpool round trips. Unbounded async reads hit EMFILE (DESIGN.md).
 */
export const HASH_CONCURRENCY = 2;

/** deployments.searchLogs answers at most this many matches, then says truncated. */
export const SEARCH_LOGS_MAX_MATCHES = 200;

/**
 * files.index entry cap before the emulator answers `truncated: true`. The document
 * gives no number; 20 000 keeps one answer under a few MB of JSON while forcing
 * clients to handle truncation on realistic monorepos (node_modules excluded).
 */
export const EMULATOR_INDEX_MAX_ENTRIES = 20_000;

/**
 * At start, how long the emulator waits for the app processes a killed emulator left (now
 * SIGKILLed) to be gone, so their ports are free for the apps it starts. SIGKILL lands in
 * milliseconds; the bound only keeps an unkillable (D-state) process from blocking a start.
 */
export const EMULATOR_ORPHAN_DRAIN_MS = 2_000;

/**
 * Per-file upload limit of the node under the API (Wings default: 100 MB): the documented
 * number. The emulator's `uploadMaxBytes` option changes it, as a node's upload_limit can
 * be changed ("100 MB by default"), so tests need not write 100 MB files.
 */
export const EMULATOR_UPLOAD_MAX_BYTES = NODE_UPLOAD_MAX_BYTES;

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

/** Connect timeout for the API and node hosts: a host that does not answer in this long is down. */
export const CONNECT_TIMEOUT_MS = 15_000;

/** deployments.shell: the document's default maxChars. */
export const EMULATOR_SHELL_DEFAULT_MAX_CHARS = 20_000;
/** The service cuts an API request after about 100 s, so no command runs longer over the API. */
export const EMULATOR_SHELL_MAX_TIMEOUT_S = 100;
/** files.outline reads at most this many files per call (then `truncated`), each at most this big: an outline is a map, not a dump. */
export const EMULATOR_OUTLINE_MAX_FILES = 200;
export const EMULATOR_OUTLINE_MAX_BYTES = 1024 * 1024;
/** Restore points kept per deployment; the oldest go first. Twenty covers a day of hourly points and the safety ones between. */
export const EMULATOR_BACKUP_KEEP = 20;
/**
 * Tries at a restore point when a file vanishes or changes size while it is archived (a
 * live volume; the app writes too). Two retries get past a burst of deletes; a volume
 * changing without pause gets no point rather than a failed request.
 */
export const EMULATOR_BACKUP_ATTEMPTS = 3;
/** A safety point before a destructive call is taken at most this often per deployment, so a push's deletes do not tar the volume each time. */
export const EMULATOR_SAFETY_BACKUP_MIN_GAP_MS = 10 * 60_000;
/** The automatic schedule's default period (--backup-interval changes it; 0 turns it off). */
export const EMULATOR_BACKUP_INTERVAL_MS = 6 * 60 * 60_000;
/** A local clone takes milliseconds; a minute means git is stuck (a prompt, a lock). */
export const EMULATOR_GIT_TIMEOUT_MS = 60_000;

/**
 * Directories one volume's files.index watches (inotify, one watch each). The kernel's
 * per-user budget (fs.inotify.max_user_watches) is shared with every watcher on the
 * machine; a 100k-file tree has a few thousand folders. Past this, all watches are
 * dropped and rebuilt by the next walks.
 */
export const EMULATOR_INDEX_WATCHED_DIRS_MAX = 50_000;

/** Distinct files.index requests (path, ignore list, hashMaxBytes) whose digest a volume remembers. */
export const EMULATOR_INDEX_REMEMBERED_REQUESTS = 64;

/** env.set: longest key and value accepted. The document gives none; these fit any real secret (a PEM key is ~3 KiB). */
export const EMULATOR_ENV_KEY_MAX = 128;
export const EMULATOR_ENV_VALUE_MAX = 32 * 1024;
/** env.audit reads at most this many code files, each up to this size: a vendored bundle must not stall the call. */
export const EMULATOR_AUDIT_MAX_FILES = 5_000;
export const EMULATOR_AUDIT_MAX_FILE_BYTES = 1024 * 1024;
/** deployments.check: how many same-origin links of a 2xx HTML page it follows, and how long each request may take. */
export const EMULATOR_CHECK_MAX_LINKS = 10;
export const EMULATOR_CHECK_TIMEOUT_MS = 5_000;
/** deployments.check: the body it returns is cut to this many characters. */
export const EMULATOR_CHECK_BODY_MAX = 4_000;
