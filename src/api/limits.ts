/** Limits the service documents (hosting-api.md, Limits and endpoint defaults). Both the client and the emulator read them. */

/** The service's documented per-key budget: 120 requests per sliding 60 s window. */
export const RATE_LIMIT_REQUESTS = 120;
export const RATE_LIMIT_WINDOW_MS = 60_000;

/** The service's per-user budget across all keys (same window). */
export const RATE_LIMIT_USER_REQUESTS = 300;

/**
 * files.writeMany caps all content in one call at "5 MB" (hosting-api.md, Limits). The
 * emulator enforces the strictest reading, 5,000,000 bytes, so it never accepts a call
 * the real service might refuse.
 */
export const WRITE_MANY_MAX_BYTES = 5_000_000;

/**
 * The node under the API refuses an uploaded file (one multipart part of a files.uploadUrl
 * POST) over its upload limit with 413: 100 MB by default (DESIGN.md, "Facts about the
 * node": Wings' upload_limit, counted in MiB). hosting-api.md states no cap for the panel,
 * so this is the one that bites. A file over it can only travel compressed, inside a
 * tar.gz part that fits (files.decompress states no cap).
 */
export const NODE_UPLOAD_MAX_BYTES = 100 * 1024 * 1024;

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

/** deployments.shell: default timeout over the API (seconds); a request is cut after about 100 s. */
export const SHELL_DEFAULT_TIMEOUT_S = 90;
