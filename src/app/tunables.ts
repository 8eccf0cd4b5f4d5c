/**
 * The overall deadline of a command that talks to a deployment (HostingClient's
 * deadlineMs), so that a service answering each call just inside its timeout cannot
 * keep a command (or a CI job) waiting for hours. An hour: the largest push measured,
 * 100k files, takes minutes, and a slow link's upload more; only a stuck service gets
 * near it. HOSTSYNC_DEADLINE replaces it. Watch and `logs --follow` have none, whatever
 * HOSTSYNC_DEADLINE says: they run until stopped (for days), and each of their calls has
 * its timeout, a failure being reported and waited out.
 */
export const COMMAND_DEADLINE_MS = 60 * 60_000;

/**
 * Commands that only read (status, doctor, open, logs, link): their calls are few
 * and small, so a deadline of 10 minutes, beyond the slowest 100k-file status measured
 * (~1.5 min), still ends one that is going nowhere well before a CI job's own limit.
 */
export const READ_COMMAND_DEADLINE_MS = 10 * 60_000;

/** Thresholds of `hostsync doctor`, each with why it is where it is. */

/** Disk use past this share of the limit fails: the next npm install or upload may not fit. */
export const DOCTOR_DISK_MAX_SHARE = 0.9;
/** Fewer requests left in the window than this fails: a full push of a few hundred files would wait on 429s. */
export const DOCTOR_RATE_MIN_REMAINING = 20;
/**
 * Clock skew past this fails. The Date header has 1 s resolution and the request takes
 * time, so small skews mean nothing; signed URLs (15 min) and Retry-After dates go wrong
 * well before minutes of skew.
 */
export const DOCTOR_CLOCK_MAX_SKEW_MS = 30_000;
/**
 * The key doctor's env:write probe names (env.update with an empty body): one a project
 * would not use, so the answer is a 404 that changes nothing.
 */
export const DOCTOR_ENV_PROBE_KEY = 'HOSTSYNC_DOCTOR_SCOPE_PROBE';
/** Lines of a failed build's output (hostsync.json "build") kept for its one-line error. */
export const BUILD_ERROR_TAIL_LINES = 5;
/**
 * A build's process group that was told to stop (SIGTERM: its deadline passed, or its shell
 * exited and left processes behind) gets this long to end before SIGKILL: enough for a
 * bundler to remove its temporary files, short enough that a stopped command ends promptly.
 */
export const BUILD_KILL_GRACE_MS = 2000;
/** init reads the entry file for the static folder it serves; a larger file is not scanned (hotPaths stay []). */
export const ENTRY_READ_MAX_BYTES = 1024 * 1024;
/**
 * init's look for the app's data (config/app-data.ts) reads at most this many source files
 * (each at most ENTRY_READ_MAX_BYTES), breadth first, at most APP_DATA_SCAN_DEPTH folders
 * down: a bot's code is a few files near the root; a big tree must not make init slow.
 */
export const APP_DATA_SCAN_FILES = 200;
export const APP_DATA_SCAN_DEPTH = 3;
/**
 * `dev --stop-remote` waits this long for the remote copy to stop (deployments.power stop,
 * waitSeconds) before dev starts its own: a bot still connected would fight dev's for a
 * while. The document's default wait after a start, so a stop that takes as long is seen.
 */
export const STOP_REMOTE_WAIT_SECONDS = 20;

/**
 * `link` taking the only deployment there is: the share of that deployment's files (of
 * those the folder's ignore rules keep, and beyond names every project has) that must also
 * be in the folder for it to count as this folder's deployment. Below half, most of what it
 * holds is another project's, and the first push would delete it (issue 46: a bot's folder
 * linked a web app, `status` planned D server.js, D public/style.css). A folder that is a
 * copy of its deployment shares nearly all; an old copy still shares most.
 */
export const LINK_FIT_MIN_SHARE = 0.5;
/** Names nearly every project of a runtime has: their presence on both sides says nothing of which project it is. */
export const LINK_FIT_COMMON_NAMES: readonly string[] = [
  'package.json', 'package-lock.json', 'yarn.lock', 'pnpm-lock.yaml', 'requirements.txt', 'pyproject.toml',
  'README.md', 'README', 'LICENSE', '.gitignore', '.syncignore', 'hostsync.json', '.env.example', 'Procfile',
];
/** Files of the candidate's index looked up in the folder, at most (one lstat each): enough to judge, bounded for a huge volume. */
export const LINK_FIT_SAMPLE = 2_000;

/**
 * `status` with a "build": files of the project looked at (one lstat each) for one saved
 * after the last build, at most. Sources are small next to node_modules (never entered);
 * past this many the answer is "unknown" rather than a slow status.
 */
export const BUILD_FRESHNESS_MAX_FILES = 20_000;
/** Sources newer than the last build that `status` names, at most. */
export const BUILD_FRESHNESS_SHOWN = 3;
