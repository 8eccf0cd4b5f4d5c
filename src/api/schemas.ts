/**
 * Schemas of the API's answers (valibot), beside the wire types they check (types.ts).
 * The client (remote/client.ts) runs every answer it hands on through one of these, so
 * a malformed answer fails there as one clear error, never deeper as a TypeError or,
 * worse, as data taken for complete (an index with no `entries` read as an empty volume).
 *
 * What is checked: every field hostsync reads, with its documented type. Documented
 * fields hostsync never reads are not required (the service is in public beta; a field
 * it drops must not break a push that never looked at it), and unknown fields pass
 * through untouched (looseObject). `Fits` below ties each schema to its wire type at
 * compile time, so the two cannot drift apart.
 *
 * The emulator does not import this file: it builds answers from types.ts alone.
 */
import * as v from 'valibot';
import type * as T from './types.js';
import { entryNameProblem, mixedRootProblem, quotePath, volumePathProblem } from '../model/safe-path.js';

const str = v.string();
const bool = v.boolean();
const num = v.number();
/** Counts and sizes: whole and not negative (a negative size would corrupt plans and totals). */
const count = v.pipe(v.number(), v.integer(), v.minValue(0));
const strings = v.array(str);
/**
 * A path the client may act on (model/safe-path.ts): an answer naming `../x`, `/..`, a
 * NUL or a Windows-style escape is refused whole, as any other malformed answer, before
 * a single path of it is used (the message quotes the path: a check names its own field).
 */
const volumePath = v.pipe(
  v.string(),
  v.check((p) => volumePathProblem(p) === null, (issue) => unsafeMessage(String(issue.input), volumePathProblem(String(issue.input)))),
);
/** One name in a folder listing: the same rules, and no "/". */
const entryName = v.pipe(
  v.string(),
  v.check((p) => entryNameProblem(p) === null, (issue) => unsafeMessage(String(issue.input), entryNameProblem(String(issue.input)))),
);
function unsafeMessage(p: string, why: string | null): string {
  return `an unsafe path ${quotePath(p)} (${why ?? 'not inside the volume'}): the answer was refused and nothing in it was used`;
}
/** The live states the contract lists ("States and transitions"); the engine decides health on them. */
const state = v.picklist(['running', 'starting', 'stopping', 'offline', 'installing', 'unknown'] satisfies T.DeploymentState[]);

/** The documented type with every field optional, all the way down. */
export type DeepPartial<W> = W extends readonly (infer E)[] ? DeepPartial<E>[] : W extends object ? { [K in keyof W]?: DeepPartial<W[K]> } : W;
/** The named keys of a schema's output (a looseObject's output also has an index signature). */
type NamedKeys<O> = keyof { [K in keyof O as string extends K ? never : K]: O[K] };
/**
 * Compile-time check that a schema's output fits its wire type: every key it checks is a
 * key of the type, and what it lets through is assignable to the documented types, all
 * the way down (fields the schema leaves unchecked are simply absent from its output type).
 */
type Fits<S extends v.GenericSchema, W> =
  NamedKeys<v.InferOutput<S>> extends keyof W ? (v.InferOutput<S> extends DeepPartial<W> ? true : never) : never;
/** A schema whose output fits wire type W (what the client's calls take). */
export type AnswerSchema<W> = v.GenericSchema<unknown, DeepPartial<W>>;

function fits<S extends v.GenericSchema, W>(proof: Fits<S, W>): void {
  void proof;
}

// ---- files ----

export const FileIndexEntry = v.looseObject({
  path: volumePath,
  type: str,
  sizeBytes: count,
  modifiedAt: str,
  mode: str,
  hash: v.nullish(str),
});

/**
 * An unchanged tree may come with no `entries` at all ("answers unchanged true with no
 * entries"): that one case reads as []. Anywhere else a missing list is an error.
 */
export const IndexResult = v.pipe(
  v.looseObject({ unchanged: bool, digest: str, truncated: bool, entries: v.optional(v.array(FileIndexEntry)) }),
  v.check((r) => r.unchanged || r.entries !== undefined, 'entries: missing (the tree is not unchanged)'),
  v.check((r) => mixedRootProblem((r.entries ?? []).map((e) => e.path)) === null, (issue) => {
    const mixed = mixedRootProblem(((issue.input as { entries?: { path: string }[] }).entries ?? []).map((e) => e.path))!;
    return unsafeMessage(mixed.path, mixed.why);
  }),
  v.transform((r) => ({ ...r, entries: r.entries ?? [] })),
);

/**
 * IndexResult's verdict on the answers it accepts, without valibot's copy of each entry: a
 * whole index at 100k files is 100k entries, and the pass that copied them took 181 ms and
 * left their garbage, where this loop takes 29 ms (bench/answers, the check alone). Sound,
 * not complete: it accepts only what IndexResult accepts, with the same value (the body
 * itself, which nothing else holds; `entries` [] for an unchanged tree that sent none);
 * anything else is null, and IndexResult's own pass then names the problem
 * (test/remote/answer.test.ts checks the two agree).
 */
export function plainIndexResult(body: unknown): T.IndexResult | null {
  if (!isRecord(body)) return null;
  const { unchanged, digest, truncated, entries } = body;
  if (typeof unchanged !== 'boolean' || typeof digest !== 'string' || typeof truncated !== 'boolean') return null;
  if (entries === undefined) return unchanged ? ({ ...body, entries: [] } as unknown as T.IndexResult) : null;
  if (!Array.isArray(entries)) return null;
  // mixedRootProblem, inline: one pass over what may be 100k entries.
  let slashed = false;
  let bare = false;
  for (const e of entries as unknown[]) {
    if (!isRecord(e)) return null;
    const { path, type, sizeBytes, modifiedAt, mode, hash } = e;
    if (typeof path !== 'string' || typeof type !== 'string' || typeof modifiedAt !== 'string' || typeof mode !== 'string') return null;
    if (typeof sizeBytes !== 'number' || !Number.isInteger(sizeBytes) || sizeBytes < 0) return null;
    if (hash !== undefined && hash !== null && typeof hash !== 'string') return null;
    if (volumePathProblem(path) !== null) return null;
    if (path.charCodeAt(0) === 0x2f) slashed ||= path.length > 1;
    else bare = true;
    if (slashed && bare) return null;
  }
  return body as unknown as T.IndexResult;
}

const isRecord = (x: unknown): x is Record<string, unknown> => typeof x === 'object' && x !== null && !Array.isArray(x);

/** Schemas with a plain check for the answers they accept (see plainIndexResult): checkAnswer tries it first. */
export const PLAIN_CHECKS: ReadonlyMap<unknown, (body: unknown) => unknown> = new Map([[IndexResult, plainIndexResult]]);

export const ListResult = v.looseObject({
  path: v.optional(volumePath),
  entries: v.array(v.looseObject({ name: entryName, type: str, sizeBytes: count, modifiedAt: v.optional(str), mode: v.optional(str) })),
});

export const ReadResult = v.looseObject({
  path: v.optional(volumePath), content: str, offset: v.optional(count), totalLines: v.optional(count), hasMore: bool,
});

export const ReadManyResult = v.looseObject({
  files: v.array(v.looseObject({ path: volumePath, content: v.nullable(str), bytes: count, skipped: v.nullish(str) })),
  truncated: bool,
});

export const SignedUrl = v.looseObject({ url: str, expiresAt: v.optional(str) });
export const UploadUrlResult = v.looseObject({ url: str, field: v.optional(str), expiresAt: v.optional(str) });

export const HistoryResult = v.looseObject({
  path: v.optional(volumePath),
  versions: v.array(v.looseObject({ id: str, savedAt: str, bytes: count })),
});

export const OkResult = v.looseObject({ ok: bool });
export const RestoreResult = v.looseObject({ ok: bool, path: v.optional(volumePath), bytes: v.optional(count) });
export const WriteResult = v.looseObject({ ok: bool, path: v.optional(volumePath), bytes: v.optional(count) });
export const EditResult = v.looseObject({ ok: bool, path: v.optional(volumePath), replacements: v.optional(count), bytes: v.optional(count) });
export const WriteManyResult = v.looseObject({
  ok: v.optional(bool),
  written: v.array(v.looseObject({ path: volumePath, bytes: v.optional(count), lines: v.optional(count) })),
  failed: v.array(v.looseObject({ path: volumePath, error: str })),
});
export const DeleteResult = v.looseObject({ ok: bool, deleted: v.optional(count) });
export const MoveResult = v.looseObject({
  ok: bool,
  moved: v.array(v.looseObject({ from: volumePath, to: volumePath })),
  failed: v.array(v.looseObject({ from: volumePath, reason: str })),
});
export const CompressResult = v.looseObject({ ok: bool, archive: volumePath });
export const DecompressResult = v.looseObject({ ok: bool, archiveRemoved: v.optional(bool) });

// ---- deployments ----

export const Deployment = v.looseObject({
  id: str,
  name: str,
  state,
  runtime: v.optional(str),
  entryFile: v.optional(str),
  domains: v.optional(v.looseObject({ url: v.nullish(str) })),
  startup: v.optional(v.looseObject({ runtime: v.optional(str), startCommand: v.optional(str) })),
});
export const DeploymentList = v.looseObject({ deployments: v.array(Deployment) });
export const StartupUpdateResult = v.looseObject({
  runtime: v.optional(str), runtimeVersion: v.optional(str), entryFile: v.optional(str), startCommand: v.optional(str), warning: v.optional(str),
});
export const CreateResult = v.looseObject({ deployment: Deployment, next: v.optional(str) });

const probe = v.looseObject({ url: v.optional(str), status: num, ok: bool });
export const DiagnoseResult = v.looseObject({
  state,
  installing: v.optional(bool),
  logs: v.optional(strings),
  http: v.optional(probe),
  hint: v.optional(str),
});
export const ApplyResult = v.looseObject({
  ...DiagnoseResult.entries,
  restarted: v.optional(bool),
  skippedRestart: v.optional(str),
});
export const LogsResult = v.looseObject({ lines: strings, state, settled: v.optional(bool), hint: v.optional(str) });
export const SearchLogsResult = v.looseObject({
  matches: v.array(v.looseObject({ line: v.pipe(v.number(), v.integer()), text: str, around: v.optional(strings) })),
  scanned: v.optional(v.number()),
  truncated: v.optional(bool),
});
export const PowerResult = v.looseObject({ ok: bool, state, logs: v.optional(strings), hint: v.optional(str) });
export const ShellResult = v.looseObject({
  exitCode: v.pipe(v.number(), v.integer()), output: str, truncated: v.optional(bool), timedOut: v.optional(bool),
});
export const CheckResult = v.looseObject({
  url: v.optional(str), status: num, ok: bool, contentType: v.optional(str), title: v.optional(str), body: v.optional(str),
});
export const ResourcesResult = v.looseObject({
  state,
  cpu: v.looseObject({ usedPercent: num, limitPercent: num }),
  memory: v.looseObject({ usedBytes: num, limitBytes: num }),
  disk: v.looseObject({ usedBytes: num, limitBytes: num }),
});

// ---- env, account ----

export const EnvListResult = v.looseObject({
  variables: v.array(v.looseObject({ key: str, value: str, secret: bool, system: v.optional(bool) })),
});
export const EnvKeyResult = v.looseObject({ ok: bool, key: v.optional(str) });
export const EnvAuditResult = v.looseObject({ used: v.array(v.looseObject({ key: str, files: strings })), missing: strings, unused: strings, placeholders: strings });
export const Account = v.looseObject({ id: str, username: str });

fits<typeof FileIndexEntry, T.FileIndexEntry>(true);
fits<typeof IndexResult, T.IndexResult>(true);
fits<typeof ListResult, T.ListResult>(true);
fits<typeof ReadResult, T.ReadResult>(true);
fits<typeof ReadManyResult, T.ReadManyResult>(true);
fits<typeof SignedUrl, T.SignedUrl>(true);
fits<typeof UploadUrlResult, T.UploadUrlResult>(true);
fits<typeof HistoryResult, T.HistoryResult>(true);
fits<typeof OkResult, T.OkResult>(true);
fits<typeof RestoreResult, T.RestoreResult>(true);
fits<typeof WriteResult, T.WriteResult>(true);
fits<typeof WriteManyResult, T.WriteManyResult>(true);
fits<typeof DeleteResult, T.DeleteResult>(true);
fits<typeof MoveResult, T.MoveResult>(true);
fits<typeof CompressResult, T.CompressResult>(true);
fits<typeof DecompressResult, T.DecompressResult>(true);
fits<typeof Deployment, T.Deployment>(true);
fits<typeof DiagnoseResult, T.DiagnoseResult>(true);
fits<typeof ApplyResult, T.ApplyResult>(true);
fits<typeof LogsResult, T.LogsResult>(true);
fits<typeof PowerResult, T.PowerResult>(true);
fits<typeof ShellResult, T.ShellResult>(true);
fits<typeof CheckResult, T.CheckResult>(true);
fits<typeof ResourcesResult, T.ResourcesResult>(true);
fits<typeof EnvListResult, T.EnvListResult>(true);
fits<typeof EnvKeyResult, T.EnvKeyResult>(true);
fits<typeof EnvAuditResult, T.EnvAuditResult>(true);
fits<typeof Account, T.Account>(true);
