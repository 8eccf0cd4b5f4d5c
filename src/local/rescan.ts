/** Watch mode's rescan: the previous snapshot updated for the paths a batch of events touched, nothing else walked. */
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { entriesEqual } from '../model/snapshot.js';
import { countBelow } from '../model/tree-snapshot.js';
import type { Entry, Snapshot } from '../model/types.js';
import { isExecutableMode } from './filestat.js';
import { describeSkipped, lstatKind, walkTree, type WalkedFile } from './walk.js';

import type { ScanOptions, ScanResult } from './scan-types.js';
import { entryOf, hashFiles, withoutCredentialFiles } from './scan-read.js';
import { walkOptions } from './scan-types.js';

/**
 * `previous` updated for the touched relative paths only (watch mode): a touched path
 * that is now a directory is walked, a missing one is removed together with anything
 * `previous` held beneath it, a file is stat'ed and hashed (through the cache). A path
 * under an ignored directory, a symlink, or anything else not a real directory is
 * dropped. A path lstat cannot answer for (EACCES, EIO) is listed in `skipped` with a
 * warning, never thrown. Returns the whole updated snapshot: `previous` itself with
 * `inPlace` (watch mode's own snapshot, no copy of the tree per batch), else a copy.
 */
export async function rescanPaths(
  opts: ScanOptions, previous: Snapshot, touched: readonly string[], how: { inPlace?: boolean } = {},
): Promise<ScanResult & { changed: Map<string, Entry | undefined> }> {
  const t0 = performance.now();
  const root = path.resolve(opts.root);
  const { matcher, cache } = opts;
  // Files another matcher keeps may be recorded below: the cache no longer knows one key for all.
  if (cache && (matcher.key === undefined || cache.keptBy !== matcher.key)) cache.markKept(undefined);
  // In place (watch mode's own snapshot): no copy of the whole tree per batch.
  const next: Snapshot = how.inPlace ? previous : new Map(previous);
  /** What each path this call removed or set held before (undefined: absent). */
  const before = new Map<string, Entry | undefined>();
  const forget = (rel: string): boolean => {
    if (!before.has(rel)) before.set(rel, next.get(rel));
    return next.delete(rel);
  };
  const warnings: string[] = [];
  const skipped: string[] = [];
  const temps: string[] = [];
  const files: WalkedFile[] = [];
  /** Paths under which everything in `previous` is stale (the path was, or may have been, a directory). */
  const staleDirs = new Set<string>();
  const dirOk = new Map<string, boolean>();
  const removed: string[] = [];
  let dirs = 0;
  const queued = new Set<string>();
  /** A file reached both as a touched path and inside a touched directory is read once. */
  const queue = (f: WalkedFile): void => {
    if (queued.has(f.rel)) return;
    queued.add(f.rel);
    files.push(f);
  };

  /**
   * A path lstat could not answer for (EACCES, EIO) is unknown, not absent: skipped, so a
   * push leaves it alone, and never thrown (a throw would re-queue the whole batch forever).
   * A folder is skipped with everything beneath it, as is a path that may have been one.
   */
  const unreadable = (rel: string, code: string | undefined, mayBeFile: boolean): void => {
    warnings.push(describeSkipped('unreadable', rel || '.', path.join(root, rel), code));
    if (mayBeFile && rel !== '') skipped.push(rel);
    skipped.push(`${rel}/`);
  };

  /** Whether `dirRel` is a real (non-symlink) directory that is not ignored, all the way up. */
  const realDir = (dirRel: string): boolean => {
    if (dirRel === '') return true;
    let ok = dirOk.get(dirRel);
    if (ok === undefined) {
      const slash = dirRel.lastIndexOf('/');
      ok = realDir(slash === -1 ? '' : dirRel.slice(0, slash)) && !matcher.ignores(dirRel, true);
      if (ok) {
        const now = lstatKind(path.join(root, dirRel));
        if (now.kind === 'unreadable') unreadable(dirRel, now.code, false);
        else if (now.kind !== 'dir' && now.kind !== 'gone' && now.kind !== 'file') {
          // A link (or a special file) where a folder was named: not followed, and unknown
          // rather than absent, as the whole-tree walk has it, so nothing is written through it.
          warnings.push(describeSkipped(now.kind, dirRel, path.join(root, dirRel)));
          skipped.push(dirRel);
        }
        ok = now.kind === 'dir';
      }
      if (!ok) staleDirs.add(dirRel);
      dirOk.set(dirRel, ok);
    }
    return ok;
  };

  for (const rel of normaliseTouched(touched)) {
    if (rel === '') {
      staleDirs.add('');
    } else {
      // A path that was not a file may have been a directory: drop what it held.
      if (!next.has(rel)) staleDirs.add(rel);
      if (forget(rel)) removed.push(rel);
      const slash = rel.lastIndexOf('/');
      if (!realDir(slash === -1 ? '' : rel.slice(0, slash))) continue;
    }
    const abs = rel === '' ? root : path.join(root, rel);
    const now = lstatKind(abs);
    if (now.kind === 'gone') continue;
    if (now.kind === 'unreadable') {
      if (rel !== '' && matcher.ignores(rel, false)) continue;
      // Not known to be a file: whatever `previous` held beneath it is unknown now too.
      staleDirs.add(rel);
      unreadable(rel, now.code, true);
      continue;
    }
    if (now.kind === 'dir') {
      if (rel !== '' && matcher.ignores(rel, true)) continue;
      staleDirs.add(rel);
      const walked = walkTree(root, matcher, rel, walkOptions(opts));
      for (const f of walked.files) queue(f);
      for (const w of walked.warnings) warnings.push(w);
      skipped.push(...walked.skipped);
      temps.push(...walked.temps);
      dirs += walked.dirs;
    } else if (matcher.ignores(rel, false)) {
      continue;
    } else if (now.kind === 'file') {
      queue({ rel, abs, stat: now.stat! });
    } else {
      warnings.push(describeSkipped(now.kind, rel, abs));
      skipped.push(rel);
    }
  }

  // Only folders with something beneath them need the pass over the tree (a snapshot that
  // cannot say how much lies beneath a path is passed over whenever one is stale).
  for (const d of staleDirs) if (countBelow(next, d) === 0) staleDirs.delete(d);
  if (staleDirs.size > 0) {
    for (const rel of next.keys()) {
      if (underAny(rel, staleDirs)) {
        forget(rel);
        removed.push(rel);
      }
    }
  }

  const resolved = await resolveEntries(files, opts);
  for (const e of resolved.entries) {
    if (e === null) continue;
    if (!before.has(e.path)) before.set(e.path, next.get(e.path));
    next.set(e.path, e);
  }
  const changed = new Map<string, Entry | undefined>();
  for (const [p, was] of before) if (!entriesEqual(was, next.get(p))) changed.set(p, was);
  // After re-adding: a file that is still there keeps its cache entry (a re-walked
  // directory after a branch switch is mostly unchanged files).
  if (cache) for (const rel of removed) if (!next.has(rel)) cache.delete(rel);
  return {
    snapshot: next,
    changed,
    warnings: [...warnings, ...resolved.warnings],
    skipped: [...skipped, ...resolved.skipped],
    temps,
    stats: { files: next.size, hashed: resolved.hashed, cached: resolved.cached, dirs, ms: performance.now() - t0 },
  };
}

/** POSIX, relative, no "./", no trailing slash; paths escaping the root are dropped; '' is the root. */
function normaliseTouched(touched: readonly string[]): Set<string> {
  const out = new Set<string>();
  for (const t of touched) {
    let p = path.posix.normalize(t.replace(/^\/+/, ''));
    if (p === '.') p = '';
    if (p.endsWith('/')) p = p.slice(0, -1);
    if (p === '..' || p.startsWith('../')) continue;
    out.add(p);
  }
  return out;
}

/** Whether `rel` lies strictly beneath one of `dirs` ('' contains everything). */
function underAny(rel: string, dirs: ReadonlySet<string>): boolean {
  if (dirs.has('')) return true;
  for (let i = rel.indexOf('/'); i !== -1; i = rel.indexOf('/', i + 1)) {
    if (dirs.has(rel.slice(0, i))) return true;
  }
  return false;
}

interface Resolved {
  /** Parallel to the input; null where the file vanished or could not be read. */
  entries: (Entry | null)[];
  warnings: string[];
  skipped: string[];
  hashed: number;
  cached: number;
}

/** rescanPaths' files: the stat cache's entry where it has one, the others read; `.npmrc` checked. */
async function resolveEntries(files: readonly WalkedFile[], opts: ScanOptions): Promise<Resolved> {
  const { cache } = opts;
  const entries: (Entry | null)[] = new Array<Entry | null>(files.length).fill(null);
  const misses: WalkedFile[] = [];
  const at: number[] = [];
  let cached = 0;
  for (let i = 0; i < files.length; i++) {
    const f = files[i]!;
    const hit = cache?.lookup(f.rel, f.stat);
    if (hit === undefined) {
      misses.push(f);
      at.push(i);
      continue;
    }
    entries[i] = { path: f.rel, hash: hit.hash, size: f.stat.size, executable: isExecutableMode(f.stat.mode), text: hit.text };
    cached++;
  }
  const read = await hashFiles(misses, opts);
  for (let j = 0; j < misses.length; j++) entries[at[j]!] = entryOf(misses[j]!.rel, read, j);
  withoutCredentialFiles(files, entries, read.warnings, read.skipped);
  return { entries, warnings: read.warnings, skipped: read.skipped, hashed: read.hashed, cached };
}

