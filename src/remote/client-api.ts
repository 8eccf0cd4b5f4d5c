/**
 * The document's endpoints (hosting-api.md) as typed methods, each one call described:
 * its operation, answer schema, body or query, idempotency and extra wait, and how long it
 * may go without an answer. client.ts
 * carries every call through retry, queue and transport; nothing here sends anything.
 */
import type { Stats } from 'node:fs';
import type { Writable } from 'node:stream';
import { SHELL_DEFAULT_TIMEOUT_S } from '../api/limits.js';
import type {
  Account,
  ApplyRequest,
  ApplyResult,
  CompressResult,
  DecompressResult,
  DeleteResult,
  Deployment,
  DiagnoseResult,
  HistoryResult,
  IndexRequest,
  IndexResult,
  ListResult,
  LogsResult,
  SearchLogsResult,
  MoveResult,
  OkResult,
  PowerAction,
  PowerResult,
  ReadManyResult,
  ReadResult,
  RestoreResult,
  SignedUrl,
  UploadUrlResult,
  WriteFile,
  WriteManyResult,
  WriteResult,
  EditResult,
  ShellRequest,
  StartupUpdate,
  StartupUpdateResult,
  CreateDeploymentRequest,
  CheckResult,
  ShellResult,
  EnvAuditResult,
  EnvKeyResult,
  EnvListResult,
  EnvSetRequest,
  ResourcesResult,
} from '../api/types.js';
import * as S from '../api/schemas.js';
import type { AnswerSchema } from '../api/schemas.js';
import { OPERATIONS as O, type Operation } from './operations.js';
import type { RequestBody } from './transport.js';
import type { PartBudget, UploadFile } from './upload.js';
import { ANSWER_TIMEOUT_FACTOR, UNPACK_MIN_FILES_PER_SECOND, UPLOAD_MIN_BYTES_PER_SECOND } from './tunables.js';

/** How uploadArchive cuts an archive by compressed size: each path's lstat (in `relPaths` order) and the limit's budget. */
export interface ArchiveCut {
  stats: Stats[];
  budget: PartBudget;
}

export interface CallInit<T = unknown> {
  /**
   * The shape the answer must have (api/schemas.ts); checked before the result leaves the
   * client. Only transfers (anyBody) go without one.
   */
  schema?: AnswerSchema<T>;
  query?: Record<string, string | number | boolean | undefined>;
  /** Fills `:key` of the operation's path (env.update, env.delete). */
  key?: string;
  json?: unknown;
  /** Made fresh per attempt: a stream body cannot be replayed. */
  body?: () => RequestBody | Promise<RequestBody>;
  bytesOut?: () => number;
  /** Overrides the operation's idempotency for this call (write append, writeMany with appends). */
  idempotent?: boolean;
  /** A signed node URL instead of the operation's API path; sent without the key. */
  url?: URL;
  /** Extra idle time, for calls that wait server-side (waitSeconds). */
  extraTimeoutMs?: number;
  /** Bytes of the body, when known up front (uploads): the timeout grows with them. */
  sizeHint?: number;
  /** An answer to take as the result even though its status is not 2xx (writeMany's per-item failures); checked by `schema` too. */
  accept?: (status: number, body: unknown) => boolean;
  /** A 2xx answer need not be a JSON object (node upload answers). */
  anyBody?: boolean;
  /** Stream a 2xx answer's body here instead of parsing it. */
  sink?: Writable;
  /** One try only (a single-use signed URL cannot be fetched twice; the caller retries with a fresh one). */
  singleAttempt?: boolean;
}

/** One call through the client's path (retry, queue, transport). */
export type Call = <T>(o: Operation, init?: CallInit<T>) => Promise<T>;

/** The calls that stream files (signed URLs, archives): the client's own, not one operation each. */
export interface Transfers {
  download: FilesApi['download'];
  upload: FilesApi['upload'];
  uploadArchive: FilesApi['uploadArchive'];
}

export interface FilesApi {
  index(req: IndexRequest): Promise<IndexResult>;
  list(path?: string): Promise<ListResult>;
  read(path: string, opts?: { offset?: number; limit?: number }): Promise<ReadResult>;
  readMany(paths: string[], maxBytes?: number): Promise<ReadManyResult>;
  downloadUrl(path: string): Promise<SignedUrl>;
  download(path: string, toLocalPath: string): Promise<void>;
  history(path: string): Promise<HistoryResult>;
  restore(path: string, versionId: string): Promise<RestoreResult>;
  write(path: string, content: string, mode?: 'overwrite' | 'append'): Promise<WriteResult>;
  writeMany(files: WriteFile[]): Promise<WriteManyResult>;
  /** Replaces the one occurrence of oldString (409 when it is missing or not unique). */
  edit(path: string, oldString: string, newString: string): Promise<EditResult>;
  delete(files: string[], root?: string): Promise<DeleteResult>;
  move(files: string[], to: string): Promise<MoveResult>;
  rename(from: string, to: string, root?: string): Promise<OkResult>;
  chmod(file: string, mode: string, root?: string): Promise<OkResult>;
  /** Archives files on the deployment (undo's copies of what a push replaces); not repeated once sent. */
  compress(files: string[], root?: string): Promise<CompressResult>;
  /** `files`: how many files the archive holds, when known; the wait for the answer grows with it. */
  decompress(file: string, opts?: { root?: string; removeArchive?: boolean; files?: number }): Promise<DecompressResult>;
  uploadUrl(path?: string): Promise<UploadUrlResult>;
  upload(dir: string, files: UploadFile[]): Promise<void>;
  /**
   * A tar.gz of `relPaths` streamed to the node. With `cut` (each path's lstat and the
   * limit's budget), the archive carries only the leading files that fit by compressed
   * size; `files` says how many (all of them without `cut`).
   */
  uploadArchive(localRoot: string, relPaths: string[], remoteDir: string, archiveName: string, cut?: ArchiveCut): Promise<{ path: string; bytes: number; files: number }>;
}

export interface DeploymentsApi {
  /** Owned and shared deployments; `name` keeps those whose name contains it, case-insensitively. */
  list(query?: { name?: string }): Promise<{ deployments: Deployment[] }>;
  get(): Promise<Deployment>;
  apply(req?: ApplyRequest): Promise<ApplyResult>;
  diagnose(waitSeconds?: number): Promise<DiagnoseResult>;
  logs(size?: number, waitSeconds?: number): Promise<LogsResult>;
  /** Searches the console log, which reaches further back than the live tail logs answers (the document: up to 5000 lines). */
  searchLogs(pattern: string, lines?: number): Promise<SearchLogsResult>;
  power(action: PowerAction, waitSeconds?: number): Promise<PowerResult>;
  /** Runs one shell line in the container; not idempotent, so never repeated on an unknown outcome. */
  shell(req: ShellRequest): Promise<ShellResult>;
  /** GET of `path` over the public URL, as a visitor would (health of a web app on a path other than "/"). */
  check(path: string): Promise<CheckResult>;
  resources(): Promise<ResourcesResult>;
  /** deployments.update: renames the deployment (the same name changes nothing). */
  rename(name: string): Promise<Deployment>;
  /** deployments.update with an empty body: changes nothing; a 403 says the key lacks deployments:write (sync/apply/apply-scope.ts). */
  touch(): Promise<Deployment>;
  /** deployments.updateStartup: applies at the next (re)start; a change of type needs wipeFiles. */
  updateStartup(req: StartupUpdate): Promise<StartupUpdateResult>;
  /** deployments.resize: all three sizes; the deployment restarts. The record has no `startup`. */
  resize(req: { ramMB: number; cpuPct: number; storageMB: number }): Promise<Deployment>;
  /** deployments.create: a new deployment (not this client's); one request, never repeated. */
  create(req: CreateDeploymentRequest): Promise<{ deployment: Deployment; next?: string }>;
}

/** Environment variables: secrets come back masked; every answer names keys, and only env.list ever carries a (plain) value. */
export interface EnvApi {
  list(): Promise<EnvListResult>;
  set(req: EnvSetRequest): Promise<EnvKeyResult>;
  /** env.update with an empty body: changes nothing; a 404 for an absent key still proves env:write (doctor). */
  touch(key: string): Promise<EnvKeyResult>;
  delete(key: string): Promise<OkResult>;
  audit(): Promise<EnvAuditResult>;
}

export interface AccountApi {
get(): Promise<Account>;
}

/** Every endpoint bound to `call`. */
export function bindApi(call: Call, t: Transfers): { files: FilesApi; deployments: DeploymentsApi; env: EnvApi; account: AccountApi } {
  return {
    files: {
      index: (req) => call<IndexResult>(O.filesIndex, { schema: S.IndexResult, json: req }),
      list: (path) => call<ListResult>(O.filesList, { schema: S.ListResult, query: { path } }),
      read: (path, o = {}) => call<ReadResult>(O.filesRead, { schema: S.ReadResult, query: { path, offset: o.offset, limit: o.limit } }),
      readMany: (paths, maxBytes) => call<ReadManyResult>(O.filesReadMany, { schema: S.ReadManyResult, json: { paths, maxBytes } }),
      downloadUrl: (path) => call<SignedUrl>(O.filesDownloadUrl, { schema: S.SignedUrl, query: { path } }),
      download: t.download,
      history: (path) => call<HistoryResult>(O.filesHistory, { schema: S.HistoryResult, query: { path } }),
      restore: (path, versionId) => call<RestoreResult>(O.filesRestore, { schema: S.RestoreResult, json: { path, versionId } }),
      write: (path, content, mode = 'overwrite') =>
        call<WriteResult>(O.filesWrite, { schema: S.WriteResult, json: { path, content, mode }, idempotent: mode !== 'append' }),
      writeMany: (files) =>
        call<WriteManyResult>(O.filesWriteMany, {
          schema: S.WriteManyResult,
          json: { files },
          idempotent: files.every((f) => f.mode !== 'append'),
          accept: (_status, body) => isWriteManyResult(body),
        }),
      edit: (path, oldString, newString) => call<EditResult>(O.filesEdit, { schema: S.EditResult, json: { path, oldString, newString } }),
      delete: (files, root) => call<DeleteResult>(O.filesDelete, { schema: S.DeleteResult, json: { files, root } }),
      move: (files, to) => call<MoveResult>(O.filesMove, { schema: S.MoveResult, json: { files, to } }),
      rename: (from, to, root) => call<OkResult>(O.filesRename, { schema: S.OkResult, json: { from, to, root } }),
      chmod: (file, mode, root) => call<OkResult>(O.filesChmod, { schema: S.OkResult, json: { file, mode, root } }),
      compress: (files, root) => call<CompressResult>(O.filesCompress, { schema: S.CompressResult, json: root === undefined ? { files } : { files, root } }),
      decompress: (file, o = {}) =>
        call<DecompressResult>(O.filesDecompress, {
          schema: S.DecompressResult,
          json: { file, root: o.root, removeArchive: o.removeArchive },
          extraTimeoutMs: Math.ceil(((o.files ?? 0) / UNPACK_MIN_FILES_PER_SECOND) * 1000),
        }),
      uploadUrl: (path) => call<UploadUrlResult>(O.filesUploadUrl, { schema: S.UploadUrlResult, json: path === undefined ? {} : { path } }),
      upload: t.upload,
      uploadArchive: t.uploadArchive,
    },
    deployments: {
      list: (q = {}) => call<{ deployments: Deployment[] }>(O.deploymentsList, { schema: S.DeploymentList, query: { name: q.name } }),
      get: () => call<Deployment>(O.deploymentsGet, { schema: S.Deployment }),
      apply: (req = {}) =>
        call<ApplyResult>(O.deploymentsApply, { schema: S.ApplyResult, json: req, extraTimeoutMs: waitMs(req.waitSeconds, 20) }),
      diagnose: (waitSeconds) =>
        call<DiagnoseResult>(O.deploymentsDiagnose, { schema: S.DiagnoseResult, query: { waitSeconds }, extraTimeoutMs: waitMs(waitSeconds, 0) }),
      logs: (size, waitSeconds) =>
        call<LogsResult>(O.deploymentsLogs, { schema: S.LogsResult, query: { size, waitSeconds }, extraTimeoutMs: waitMs(waitSeconds, 0) }),
      searchLogs: (pattern, lines) =>
        call<SearchLogsResult>(O.deploymentsSearchLogs, { schema: S.SearchLogsResult, query: { pattern, lines, context: 0 } }),
      power: (action, waitSeconds) =>
        call<PowerResult>(O.deploymentsPower, {
          schema: S.PowerResult,
          json: { action, waitSeconds },
          extraTimeoutMs: waitMs(waitSeconds, action === 'start' || action === 'restart' ? 20 : 0),
        }),
      shell: (req) => call<ShellResult>(O.deploymentsShell, { schema: S.ShellResult, json: req, extraTimeoutMs: waitMs(req.timeout, SHELL_DEFAULT_TIMEOUT_S) }),
      check: (path) => call<CheckResult>(O.deploymentsCheck, { schema: S.CheckResult, query: { path } }),
      resources: () => call<ResourcesResult>(O.deploymentsResources, { schema: S.ResourcesResult }),
      rename: (name) => call<Deployment>(O.deploymentsUpdate, { schema: S.Deployment, json: { name } }),
      touch: () => call<Deployment>(O.deploymentsUpdate, { schema: S.Deployment, json: {} }),
      updateStartup: (req) => call<StartupUpdateResult>(O.deploymentsUpdateStartup, { schema: S.StartupUpdateResult, json: req }),
      // A resize restarts the app and waits for it: as long as a restart may take.
      resize: (req) => call<Deployment>(O.deploymentsResize, { schema: S.Deployment, json: req, extraTimeoutMs: waitMs(undefined, 20) }),
      create: (req) => call<{ deployment: Deployment; next?: string }>(O.deploymentsCreate, { schema: S.CreateResult, json: req }),
    },
    env: {
      list: () => call<EnvListResult>(O.envList, { schema: S.EnvListResult }),
      set: (req) => call<EnvKeyResult>(O.envSet, { schema: S.EnvKeyResult, json: req }),
      touch: (key) => call<EnvKeyResult>(O.envUpdate, { schema: S.EnvKeyResult, json: {}, key }),
      delete: (key) => call<OkResult>(O.envDelete, { schema: S.OkResult, key }),
      audit: () => call<EnvAuditResult>(O.envAudit, { schema: S.EnvAuditResult }),
    },
    account: { get: () => call<Account>(O.accountGet, { schema: S.Account }) },
  };
}

/**
 * How long a call may go without an answer: the base (ANSWER_TIMEOUT_MS or the user's),
 * its operation's factor, the wait it asked the server for, and its upload's size at
 * UPLOAD_MIN_BYTES_PER_SECOND.
 */
export function answerTimeoutMs(operation: string, baseMs: number, extra: { waitMs?: number | undefined; bytes?: number | undefined } = {}): number {
  const factor = ANSWER_TIMEOUT_FACTOR[operation] ?? 1;
  const transfer = extra.bytes === undefined ? 0 : Math.ceil((extra.bytes / UPLOAD_MIN_BYTES_PER_SECOND) * 1000);
  return baseMs * factor + (extra.waitMs ?? 0) + transfer;
}

/** A call's server-side wait in ms: the seconds it asked for, or the document's default. */
function waitMs(waitSeconds: number | undefined, dflt: number): number {
  return Math.max(0, waitSeconds ?? dflt) * 1000;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function isWriteManyResult(v: unknown): boolean {
  return isObject(v) && Array.isArray(v.written) && Array.isArray(v.failed);
}
