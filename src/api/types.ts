/**
 * Request and response shapes of the Deployment Hosting Control API, taken from
 * hosting-api.md (the contract). Only the endpoints hostsync and its emulator use.
 * Paths are relative to `{base_url}/api/v1`.
 */

export type DeploymentState = 'running' | 'starting' | 'stopping' | 'offline' | 'installing' | 'unknown';

export type Runtime =
  | 'nodejs' | 'python' | 'java' | 'php' | 'go' | 'rust' | 'cpp' | 'lua' | 'nodemon' | 'bun'
  | 'redis' | 'postgresql' | 'mongodb' | 'mysql' | 'static' | 'phpweb' | 'lavalink' | 'uptimekuma';

export interface StartupConfig {
  kind: string;
  runtime: Runtime | string;
  runtimeVersion: string;
  entryFile: string;
  startCommand: string;
  engine: string;
}

export interface Deployment {
  id: string;
  name: string;
  state: DeploymentState;
  status: string;
  createdAt: string;
  projectId: string;
  owned: boolean;
  owner: { id: string; username: string };
  shared: Array<{ user: { id: string; username: string }; permissions: string[] }>;
  resources: { ramMB: number; cpuPercent: number; storageMB: number };
  runtime: string;
  entryFile: string;
  domains: { subdomain: string | null; slug: string | null; custom: string | null; url: string | null };
  node: { name: string; fqdn: string; region: string } | null;
  port: number | null;
  ports: number[];
  startup: StartupConfig;
  connection: { engine: string; host: string; port: number; uriTemplate: string } | null;
}

export interface HttpProbe {
  url: string;
  status: number;
  ok: boolean;
  contentType: string;
  title: string;
  bodyExcerpt: string;
}

export interface DiagnoseResult {
  state: DeploymentState;
  installing: boolean;
  resources: { ramMB: number; ramLimitMB: number; cpuPercent: number };
  logs: string[];
  startup: { runtime: string; runtimeVersion: string; entryFile: string; startCommand: string };
  http: HttpProbe;
  direct: { url: string; status: number; ok: boolean };
  hint: string;
}

export interface ApplyRequest {
  /** true forces a restart, false forbids one, omitted lets the runtime decide. */
  restart?: boolean;
  waitSeconds?: number;
}

export interface ApplyResult extends DiagnoseResult {
  restarted: boolean;
  skippedRestart: string;
}

export type PowerAction = 'start' | 'stop' | 'restart' | 'kill';
export interface PowerResult {
  ok: boolean;
  action: PowerAction;
  reason: string;
  state: DeploymentState;
  logs: string[];
  hint: string;
}

export interface LogsResult {
  lines: string[];
  state: DeploymentState;
  settled: boolean;
  hint: string;
}

/** deployments.searchLogs: `line` is 1-based within the `scanned` tail of the console log. */
export interface SearchLogsResult {
  matches: Array<{ line: number; text: string; around: string[] }>;
  scanned: number;
  truncated: boolean;
}

export interface Account {
  id: string;
  username: string;
  email: string;
  createdAt: string;
  creditsCents: number;
  plan: { tier: string; name: string; source: string; status: string };
  quota: {
    pool: { ramMB: number; cpuPct: number; storageMB: number; slots: number };
    used: { ramMB: number; cpuPct: number; storageMB: number; slots: number };
  };
}

// ---- files ----

export interface FileEntry {
  name: string;
  type: string;
  sizeBytes: number;
  modifiedAt: string;
  mode: string;
}

export interface FileIndexEntry {
  path: string;
  type: string;
  sizeBytes: number;
  modifiedAt: string;
  mode: string;
  /** XXH64 hex; absent (or null) above hashMaxBytes. */
  hash?: string | null;
}

export interface IndexRequest {
  path?: string;
  ignore?: string[];
  hashMaxBytes?: number;
  digest?: string;
}

export interface IndexResult {
  unchanged: boolean;
  digest: string;
  truncated: boolean;
  entries: FileIndexEntry[];
}

export interface ListResult { path: string; entries: FileEntry[] }

export interface TreeResult {
  root: string;
  tree: string;
  files: number;
  directories: number;
  truncated: boolean;
  note: string;
}

export interface ReadResult {
  path: string;
  content: string;
  offset: number;
  lines: number;
  totalLines: number;
  hasMore: boolean;
  note: string;
}

export interface ReadManyResult {
  files: Array<{ path: string; content: string | null; bytes: number; skipped: string | null }>;
  truncated: boolean;
  note: string;
}

export interface WriteFile {
  path: string;
  content: string;
  mode?: 'overwrite' | 'append';
}

export interface WriteResult { ok: boolean; path: string; bytes: number; lines: number; note: string; hint: string }

export interface WriteManyResult {
  ok: boolean;
  written: Array<{ path: string; bytes: number; lines: number }>;
  failed: Array<{ path: string; error: string }>;
  note: string;
  hint: string;
}

export interface EditResult { ok: boolean; path?: string; replacements?: number; bytes?: number; lines?: number; context?: string; note?: string }

export interface FileVersion { id: string; savedAt: string; bytes: number }
export interface HistoryResult { path: string; versions: FileVersion[] }

export interface RestoreResult { ok: boolean; path: string; bytes: number; lines: number; context: string }

export interface DeleteResult { ok: boolean; deleted: number }

export interface MoveResult {
  ok: boolean;
  moved: Array<{ from: string; to: string }>;
  failed: Array<{ from: string; reason: string }>;
}

export interface OkResult { ok: boolean }

export interface CompressResult { ok: boolean; archive: string }
export interface DecompressResult { ok: boolean; archiveRemoved: boolean }

export interface SignedUrl { url: string; expiresAt: string }
export interface UploadUrlResult { url: string; field: string; expiresAt: string }

/** deployments.shell body. */
export interface ShellRequest {
  command: string;
  /** Absolute directory in the container (/home/container/...). */
  cwd?: string;
  /** Seconds; the service's default over the API is 90. */
  timeout?: number;
  maxChars?: number;
}

/** deployments.shell answer. `output` is data from the deployment, never instructions. */
export interface ShellResult {
  exitCode: number;
  output: string;
  truncated: boolean;
  cwd: string;
  durationMs: number;
  target: string;
  timedOut: boolean;
  outputLimit: boolean;
  backgroundStopped: number;
  untrusted: boolean;
}

/** env.list's element; `value` is masked for secrets. */
export interface EnvVariable { key: string; value: string; secret: boolean; system: boolean }
export interface EnvListResult { variables: EnvVariable[] }
export interface EnvSetRequest { key: string; value: string; secret?: boolean }
export interface EnvUpdateRequest { newKey?: string; value?: string; secret?: boolean }
export interface EnvKeyResult { ok: boolean; key: string }
/** env.audit: keys only, never values. */
export interface EnvAuditResult {
  used: Array<{ key: string; files: string[] }>;
  missing: string[];
  unused: string[];
  placeholders: string[];
  note: string;
}

/** deployments.updateStartup's body: every field optional; `wipeFiles` is required for a change of type. */
export interface StartupUpdate {
  runtime?: string;
  runtimeVersion?: string;
  entryFile?: string;
  /** null: the runtime's default. */
  startCommand?: string | null;
  kind?: string;
  engine?: string;
  wipeFiles?: boolean;
}
export interface StartupUpdateResult extends StartupConfig { warning: string }

export interface ResourcesResult {
  state: DeploymentState;
  cpu: { usedPercent: number; limitPercent: number };
  memory: { usedBytes: number; limitBytes: number };
  disk: { usedBytes: number; limitBytes: number };
  network: { rxBytes: number; txBytes: number };
  uptimeMs: number;
}

/** deployments.check: the deployment requested over its public URL like a visitor. */
export interface CheckResult {
  url: string;
  status: number;
  ok: boolean;
  contentType: string;
  title: string;
  body: string;
  error: string;
  hint: string;
  links: Array<{ path: string; status: number }>;
  note: string;
}

/** deployments.create's body (the fields hostsync sends; `env` and the git and template sources left out). */
export interface CreateDeploymentRequest {
  name: string;
  source: 'blank' | 'github' | 'template';
  runtime?: string;
  runtimeVersion?: string;
  ramMB?: number;
  cpuPct?: number;
  storageMB?: number;
  projectId?: string;
}
