/** Read-only file operations: files.list, tree, read, readMany, downloadUrl, history. */
import { lstatSync, readdirSync, statSync, type Stats } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { EMULATOR_TEXT_FILE_MAX_BYTES } from './tunables.js';
import { READ_DEFAULT_LIMIT_LINES, READ_MANY_DEFAULT_MAX_BYTES, TREE_DEFAULT_DEPTH, TREE_DEFAULT_MAX_ENTRIES } from '../api/limits.js';
import type {
  FileEntry, HistoryResult, ListResult, ReadManyResult, ReadResult, SignedUrl, TreeResult,
} from '../api/types.js';
import { depRoute, type Ctx, type Route } from './context.js';
import type { EmulatedDeployment } from './deployment.js';
import { badRequest, fromFsError, tooLarge } from './errors.js';
import { indexFiles, modeString, typeOf } from './index-tree.js';
import { decodeText, splitLinesKeepEnds } from './text.js';
import { queryBool, queryInt, reqStringArray, optInt } from './validate.js';
import { Volume } from './volume.js';

/** Folders files.tree lists but does not walk unless includeVendor (the document: "node_modules, vendor, .git and similar"). */
const VENDOR_DIRS = new Set(['node_modules', 'vendor', '.git', '.venv', 'venv', '__pycache__', '.cache', '.next', 'bower_components']);

function reqQuery(ctx: Ctx, name: string): string {
  const v = ctx.query.get(name);
  if (v === null || v === '') throw badRequest(`${name} is required`);
  return v;
}

function statOf(abs: string, shown: string, follow = true): Stats {
  try {
    return follow ? statSync(abs) : lstatSync(abs);
  } catch (err) {
    throw fromFsError(err, shown);
  }
}

function fileEntry(name: string, st: Stats): FileEntry | null {
  const type = typeOf(st);
  if (!type) return null;
  return { name, type, sizeBytes: st.size, modifiedAt: st.mtime.toISOString(), mode: modeString(st.mode) };
}

/** A regular file's text, or a 400 naming why it cannot be read as text. */
async function readText(abs: string, shown: string): Promise<string> {
  const st = statOf(abs, shown);
  if (st.isDirectory()) throw badRequest(`${shown} is a directory`, 'is_a_directory');
  if (st.size > EMULATOR_TEXT_FILE_MAX_BYTES) throw tooLarge(`${shown} is too large to read as text; use files.downloadUrl`);
  const text = decodeText(await readFile(abs));
  if (text === null) throw badRequest(`${shown} is a binary file; use files.downloadUrl`, 'binary_file');
  return text;
}

export function humanSize(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  const units = ['KB', 'MB', 'GB', 'TB'];
  let v = bytes / 1024;
  let u = 0;
  while (v >= 1024 && u < units.length - 1) {
    v /= 1024;
    u++;
  }
  return `${v < 10 ? v.toFixed(1) : Math.round(v)} ${units[u]}`;
}

async function list(ctx: Ctx, dep: EmulatedDeployment): Promise<ListResult> {
  const shown = ctx.query.get('path') || '/';
  const { rel, abs } = dep.volume.resolve(shown);
  const st = statOf(abs, shown);
  if (!st.isDirectory()) throw badRequest(`${shown} is not a directory`, 'not_a_directory');
  const entries: FileEntry[] = [];
  for (const name of readdirSync(abs)) {
    let est: Stats;
    try {
      est = lstatSync(path.join(abs, name));
    } catch {
      continue;
    }
    const e = fileEntry(name, est);
    if (e) entries.push(e);
  }
  // Wings lists folders first, then files, each by name.
  entries.sort((a, b) => Number(b.type === 'directory') - Number(a.type === 'directory') || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  return { path: Volume.show(rel), entries };
}

async function tree(ctx: Ctx, dep: EmulatedDeployment): Promise<TreeResult> {
  const shown = ctx.query.get('path') || '/';
  const depth = queryInt(ctx.query, 'depth', TREE_DEFAULT_DEPTH, 1, 64);
  const maxEntries = queryInt(ctx.query, 'maxEntries', TREE_DEFAULT_MAX_ENTRIES, 1, 100_000);
  const includeVendor = queryBool(ctx.query, 'includeVendor', false);
  const { rel, abs } = dep.volume.resolve(shown);
  if (!statOf(abs, shown).isDirectory()) throw badRequest(`${shown} is not a directory`, 'not_a_directory');

  const lines: string[] = [];
  let files = 0;
  let directories = 0;
  let truncated = false;
  const skippedVendor = new Set<string>();
  const visit = (dirAbs: string, level: number): void => {
    const names = readdirSync(dirAbs).sort();
    for (const name of names) {
      if (lines.length >= maxEntries) {
        truncated = true;
        return;
      }
      let st: Stats;
      try {
        st = lstatSync(path.join(dirAbs, name));
      } catch {
        continue;
      }
      const indent = '  '.repeat(level);
      if (st.isDirectory()) {
        directories++;
        const vendor = !includeVendor && VENDOR_DIRS.has(name);
        lines.push(`${indent}${name}/${vendor ? ' (not expanded)' : ''}`);
        if (vendor) skippedVendor.add(name);
        else if (level + 1 < depth) visit(path.join(dirAbs, name), level + 1);
      } else if (st.isSymbolicLink()) {
        files++;
        lines.push(`${indent}${name} -> (symlink)`);
      } else if (st.isFile()) {
        files++;
        lines.push(`${indent}${name} (${humanSize(st.size)})`);
      }
    }
  };
  visit(abs, 0);
  const notes: string[] = [];
  if (truncated) notes.push(`stopped at maxEntries=${maxEntries}; narrow path or raise maxEntries`);
  if (skippedVendor.size) notes.push(`not expanded: ${[...skippedVendor].sort().join(', ')} (includeVendor=true walks them)`);
  return { root: Volume.show(rel), tree: lines.join('\n'), files, directories, truncated, note: notes.join('; ') };
}

async function read(ctx: Ctx, dep: EmulatedDeployment): Promise<ReadResult> {
  const shown = reqQuery(ctx, 'path');
  const offset = queryInt(ctx.query, 'offset', 0, 0, Number.MAX_SAFE_INTEGER);
  const limit = queryInt(ctx.query, 'limit', READ_DEFAULT_LIMIT_LINES, 1, 1_000_000);
  const { abs } = dep.volume.resolve(shown);
  const all = splitLinesKeepEnds(await readText(abs, shown));
  const page = all.slice(offset, offset + limit);
  const hasMore = offset + page.length < all.length;
  return {
    path: shown,
    content: page.join(''),
    offset,
    lines: page.length,
    totalLines: all.length,
    hasMore,
    note: hasMore ? `more lines follow: read again with offset=${offset + page.length}` : '',
  };
}

async function readMany(ctx: Ctx, dep: EmulatedDeployment): Promise<ReadManyResult> {
  const body = await ctx.body();
  const paths = reqStringArray(body, 'paths');
  const maxBytes = optInt(body, 'maxBytes', 0) ?? READ_MANY_DEFAULT_MAX_BYTES;
  let budget = maxBytes;
  let truncated = false;
  const files: ReadManyResult['files'] = [];
  for (const p of paths) {
    let abs: string;
    let st: Stats;
    try {
      abs = dep.volume.resolve(p).abs;
      st = statSync(abs);
    } catch {
      files.push({ path: p, content: null, bytes: 0, skipped: 'not found' });
      continue;
    }
    if (!st.isFile()) {
      files.push({ path: p, content: null, bytes: 0, skipped: 'not a file' });
      continue;
    }
    // "files past it come back unread": once one file does not fit, no later file is read.
    if (truncated || st.size > budget) {
      truncated = true;
      files.push({ path: p, content: null, bytes: st.size, skipped: 'budget' });
      continue;
    }
    const bytes = await readFile(abs);
    const text = decodeText(bytes);
    if (text === null) {
      files.push({ path: p, content: null, bytes: bytes.length, skipped: 'binary' });
      continue;
    }
    budget -= bytes.length;
    files.push({ path: p, content: text, bytes: bytes.length, skipped: null });
  }
  return {
    files,
    truncated,
    note: truncated ? `budget of ${maxBytes} bytes reached; read the remaining files in another call` : '',
  };
}

async function downloadUrl(ctx: Ctx, dep: EmulatedDeployment): Promise<SignedUrl> {
  const shown = reqQuery(ctx, 'path');
  const { abs } = dep.volume.resolve(shown);
  if (!statOf(abs, shown).isFile()) throw badRequest(`${shown} is not a file`, 'not_a_file');
  const { token, expiresAt } = ctx.core.signed.issue({ kind: 'download', deploymentId: dep.id, rel: dep.volume.relOf(abs) });
  return { url: `${ctx.core.baseUrl}/__node/download/${token}`, expiresAt };
}

async function history(ctx: Ctx, dep: EmulatedDeployment): Promise<HistoryResult> {
  const shown = reqQuery(ctx, 'path');
  // History is keyed by the file's real location; a deleted file still has one.
  const { abs } = dep.volume.resolve(shown);
  return { path: shown, versions: await dep.history.list(dep.volume.relOf(abs)) };
}

export const fileReadRoutes: Route[] = [
  depRoute('GET', '/deployments/:id/files', 'files.list', 'files:read', list),
  depRoute('POST', '/deployments/:id/files/index', 'files.index', 'files:read', async (ctx, dep) =>
    indexFiles(dep, await ctx.body(), ctx.core.indexMaxEntries)),
  depRoute('GET', '/deployments/:id/files/tree', 'files.tree', 'files:read', tree),
  depRoute('GET', '/deployments/:id/files/content', 'files.read', 'files:read', read),
  depRoute('POST', '/deployments/:id/files/read-many', 'files.readMany', 'files:read', readMany),
  depRoute('GET', '/deployments/:id/files/download-url', 'files.downloadUrl', 'files:read', downloadUrl),
  depRoute('GET', '/deployments/:id/files/history', 'files.history', 'files:read', history),
];
