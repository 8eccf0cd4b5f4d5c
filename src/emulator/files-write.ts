/**
 * Content-changing file operations: files.write, writeMany, edit, editMany, restore.
 * Each keeps the content it replaces in the history store first (so an overwrite,
 * an edit or a restore can be undone through files.restore).
 */
import { statSync, type Stats } from 'node:fs';
import { appendFile, copyFile, mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { WRITE_MANY_MAX_BYTES } from '../api/limits.js';
import type { EditResult, RestoreResult, WriteManyResult, WriteResult } from '../api/types.js';
import { depRoute, type Ctx, type Route } from './context.js';
import type { EmulatedDeployment } from './deployment.js';
import { ApiError, badRequest, conflict, fromFsError, notFound, tooLarge } from './errors.js';
import { contextAround, countLines, countOccurrences, decodeText } from './text.js';
import { asObject, optBool, reqString, type JsonObject } from './validate.js';

type WriteMode = 'overwrite' | 'append';

function writeModeOf(v: unknown, field: string): WriteMode {
  if (v === undefined || v === null) return 'overwrite';
  if (v === 'overwrite' || v === 'append') return v;
  throw badRequest(`${field} must be "overwrite" or "append"`);
}

function statOrNull(abs: string): Stats | null {
  try {
    return statSync(abs);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw err;
  }
}

/**
 * Writes `content` at `shown` (volume-relative), creating parent folders.
 * Returns the file's size and line count AFTER the write (for append, the whole file).
 */
async function writeOne(dep: EmulatedDeployment, shown: string, content: string, mode: WriteMode): Promise<{ bytes: number; lines: number }> {
  const { abs } = dep.volume.resolve(shown);
  try {
    const st = statOrNull(abs);
    if (st?.isDirectory()) throw badRequest(`${shown} is a directory`, 'is_a_directory');
    if (st && !st.isFile()) throw badRequest(`${shown} is not a regular file`, 'not_a_file');
    if (st) await dep.history.save(dep.volume.relOf(abs), abs);
    await mkdir(path.dirname(abs), { recursive: true });
    if (mode === 'append' && st) {
      await appendFile(abs, content);
      const whole = await readFile(abs);
      const text = decodeText(whole);
      return { bytes: whole.length, lines: text === null ? 0 : countLines(text) };
    }
    await writeFile(abs, content);
    return { bytes: Buffer.byteLength(content), lines: countLines(content) };
  } catch (err) {
    throw fromFsError(err, shown);
  }
}

/** A JSON object is accepted and stored stringified (hosting-api.md, files.write). */
function contentOf(body: JsonObject): string {
  const c = body.content;
  if (c === undefined) throw badRequest('content is required; a call without content writes nothing');
  if (typeof c === 'string') return c;
  if (c !== null && typeof c === 'object') return JSON.stringify(c, null, 2);
  throw badRequest('content must be a string or a JSON object');
}

async function write(ctx: Ctx, dep: EmulatedDeployment): Promise<WriteResult> {
  const body = await ctx.body();
  const shown = reqString(body, 'path');
  const content = contentOf(body);
  const mode = writeModeOf(body.mode, 'mode');
  if (Buffer.byteLength(content) > WRITE_MANY_MAX_BYTES) {
    throw tooLarge(`content over ${WRITE_MANY_MAX_BYTES} bytes: write a first part with overwrite and the rest with append, or use files.uploadUrl`);
  }
  const r = await writeOne(dep, shown, content, mode);
  return {
    ok: true,
    path: shown,
    bytes: r.bytes,
    lines: r.lines,
    note: mode === 'append' ? 'appended; bytes and lines describe the whole file' : '',
    hint: '',
  };
}

async function writeMany(ctx: Ctx, dep: EmulatedDeployment): Promise<WriteManyResult> {
  const body = await ctx.body();
  const raw = body.files;
  if (!Array.isArray(raw) || raw.length === 0) throw badRequest('files must be a non-empty array of {path, content, mode}');
  // Shape errors refuse the whole call before anything is written.
  const files = raw.map((f, i) => {
    const o = asObjectAt(f, i);
    const p = o.path;
    if (typeof p !== 'string' || p === '') throw badRequest(`files[${i}].path must be a non-empty string`);
    if (typeof o.content !== 'string') throw badRequest(`files[${i}].content must be a string`);
    return { path: p, content: o.content, mode: writeModeOf(o.mode, `files[${i}].mode`) };
  });
  const total = files.reduce((n, f) => n + Buffer.byteLength(f.content), 0);
  if (total > WRITE_MANY_MAX_BYTES) {
    throw tooLarge(`files.writeMany content totals ${total} bytes, over the ${WRITE_MANY_MAX_BYTES}-byte cap; nothing was written`);
  }

  const stopAt = ctx.core.faults.roll('partial') ? ctx.core.faults.partialPrefix(files.length) : -1;
  const written: WriteManyResult['written'] = [];
  const failed: WriteManyResult['failed'] = [];
  for (let i = 0; i < files.length; i++) {
    const f = files[i]!;
    if (i === stopAt) {
      failed.push({ path: f.path, error: 'node write failed (injected)' });
      break;
    }
    try {
      const r = await writeOne(dep, f.path, f.content, f.mode);
      written.push({ path: f.path, bytes: r.bytes, lines: r.lines });
    } catch (err) {
      if (!(err instanceof ApiError)) throw err;
      failed.push({ path: f.path, error: err.message });
      break;
    }
  }
  const ok = failed.length === 0;
  return {
    ok,
    written,
    failed,
    note: ok ? '' : `stopped at ${failed[0]!.path}; ${written.length} of ${files.length} files landed, the rest were not attempted`,
    hint: ok ? '' : 'fix the failing file and send it and the files after it again',
  };
}

function asObjectAt(v: unknown, i: number): JsonObject {
  try {
    return asObject(v);
  } catch {
    throw badRequest(`files[${i}] must be an object {path, content, mode}`);
  }
}

interface EditSpec {
  oldString: string;
  newString: string;
  replaceAll: boolean;
}

function editSpecOf(o: JsonObject, label: string): EditSpec {
  const oldString = o.oldString;
  const newString = o.newString;
  if (typeof oldString !== 'string' || oldString === '') throw badRequest(`${label}oldString must be a non-empty string`);
  if (typeof newString !== 'string') throw badRequest(`${label}newString must be a string (empty deletes the snippet)`);
  return { oldString, newString, replaceAll: optBool(o, 'replaceAll') ?? false };
}

/** Applies one edit in memory; throws 409 naming why when the snippet is missing or ambiguous. */
function applyEdit(text: string, e: EditSpec, label: string): { text: string; replacements: number; at: number } {
  const n = countOccurrences(text, e.oldString);
  if (n === 0) throw conflict(`${label}oldString not found in the file`, 'snippet_not_found');
  if (n > 1 && !e.replaceAll) {
    throw conflict(`${label}oldString occurs ${n} times; make it unique or set replaceAll`, 'snippet_ambiguous');
  }
  const at = text.indexOf(e.oldString);
  return { text: text.split(e.oldString).join(e.newString), replacements: n, at };
}

async function loadForEdit(dep: EmulatedDeployment, shown: string): Promise<{ abs: string; text: string }> {
  const { abs } = dep.volume.resolve(shown);
  let bytes: Buffer;
  try {
    if (statSync(abs).isDirectory()) throw badRequest(`${shown} is a directory`, 'is_a_directory');
    bytes = await readFile(abs);
  } catch (err) {
    throw fromFsError(err, shown);
  }
  const text = decodeText(bytes);
  if (text === null) throw badRequest(`${shown} is a binary file and cannot be edited`, 'binary_file');
  return { abs, text };
}

/**
 * Edits of one file, one at a time: an edit is the service's exact-match compare-and-swap
 * (its read, match and write are one step to a caller), so two racing edits with the same
 * oldString must not both succeed. Without this, two requests interleaving across the awaits
 * of read and write both matched the old text and the later write won silently.
 */
const editing = new Map<string, Promise<unknown>>();
function oneAtATime<T>(abs: string, fn: () => Promise<T>): Promise<T> {
  const prev = editing.get(abs) ?? Promise.resolve();
  const run = prev.then(fn, fn);
  const settled = run.catch(() => undefined);
  editing.set(abs, settled);
  void settled.then(() => {
    if (editing.get(abs) === settled) editing.delete(abs);
  });
  return run;
}

async function saveEdited(dep: EmulatedDeployment, abs: string, text: string): Promise<void> {
  await dep.history.save(dep.volume.relOf(abs), abs);
  await writeFile(abs, text);
}

async function edit(ctx: Ctx, dep: EmulatedDeployment): Promise<EditResult> {
  const body = await ctx.body();
  const shown = reqString(body, 'path');
  const spec = editSpecOf(body, '');
  const { abs } = dep.volume.resolve(shown);
  const r = await oneAtATime(abs, async () => {
    const { text } = await loadForEdit(dep, shown);
    const applied = applyEdit(text, spec, '');
    await saveEdited(dep, abs, applied.text);
    return applied;
  });
  return {
    ok: true,
    path: shown,
    replacements: r.replacements,
    bytes: Buffer.byteLength(r.text),
    lines: countLines(r.text),
    context: contextAround(r.text, r.at),
    note: '',
  };
}

async function editMany(ctx: Ctx, dep: EmulatedDeployment): Promise<EditResult & { edits: number }> {
  const body = await ctx.body();
  const shown = reqString(body, 'path');
  const raw = body.edits;
  if (!Array.isArray(raw) || raw.length === 0) throw badRequest('edits must be a non-empty array of {oldString, newString, replaceAll}');
  const specs = raw.map((e, i) => {
    const label = `edit ${i + 1} of ${raw.length}: `;
    if (e === null || typeof e !== 'object' || Array.isArray(e)) throw badRequest(`${label}must be an object`);
    return editSpecOf(e as JsonObject, label);
  });
  const { abs } = dep.volume.resolve(shown);
  const { cur, replacements, firstAt } = await oneAtATime(abs, async () => {
    const { text } = await loadForEdit(dep, shown);
    // All or none: every edit is applied in memory first; the file is written only if all succeed.
    let cur = text;
    let replacements = 0;
    let firstAt = -1;
    specs.forEach((s, i) => {
      const r = applyEdit(cur, s, `edit ${i + 1} of ${specs.length}: `);
      cur = r.text;
      replacements += r.replacements;
      if (firstAt < 0) firstAt = r.at;
    });
    await saveEdited(dep, abs, cur);
    return { cur, replacements, firstAt };
  });
  return {
    ok: true,
    path: shown,
    edits: specs.length,
    replacements,
    bytes: Buffer.byteLength(cur),
    lines: countLines(cur),
    context: contextAround(cur, firstAt),
    note: '',
  };
}

async function restore(ctx: Ctx, dep: EmulatedDeployment): Promise<RestoreResult> {
  const body = await ctx.body();
  const shown = reqString(body, 'path');
  const versionId = reqString(body, 'versionId');
  const { abs } = dep.volume.resolve(shown);
  const rel = dep.volume.relOf(abs);
  const blob = await dep.history.blob(rel, versionId);
  if (!blob) throw notFound(`no version ${versionId} of ${shown}; list them with files.history`, 'version_not_found');
  try {
    const st = statOrNull(abs);
    if (st?.isDirectory()) throw badRequest(`${shown} is a directory`, 'is_a_directory');
    // What the restore replaces is itself saved, so a restore can be undone.
    if (st?.isFile()) await dep.history.save(rel, abs);
    await mkdir(path.dirname(abs), { recursive: true });
    await copyFile(blob, abs);
  } catch (err) {
    throw fromFsError(err, shown);
  }
  const bytes = await readFile(abs);
  const text = decodeText(bytes);
  return {
    ok: true,
    path: shown,
    bytes: bytes.length,
    lines: text === null ? 0 : countLines(text),
    context: text === null ? '' : contextAround(text, 0),
  };
}

export const fileWriteRoutes: Route[] = [
  depRoute('POST', '/deployments/:id/files/content', 'files.write', 'files:write', write),
  depRoute('POST', '/deployments/:id/files/writeMany', 'files.writeMany', 'files:write', writeMany),
  depRoute('POST', '/deployments/:id/files/edit', 'files.edit', 'files:write', edit),
  depRoute('POST', '/deployments/:id/files/editMany', 'files.editMany', 'files:write', editMany),
  depRoute('POST', '/deployments/:id/files/restore', 'files.restore', 'files:write', restore, { destructive: true }),
];
