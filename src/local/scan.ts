/**
 * The local snapshot: walk (synchronous, see walk.ts), then for each file either the stat
 * cache's hash or a fresh read: small files synchronously in time slices that yield to the
 * event loop, large ones streamed with a bounded number in flight (see HASH_CONCURRENCY).
 *
 * Invariants:
 * - A snapshot entry's hash, size, text flag and executable bit all describe the same
 *   read of the file (stat taken on the open file, before and after reading; or after
 *   reading alone when the file's last change came a racy window before it was opened,
 *   see hash.ts readSettled).
 * - Only regular files that no ignore rule excludes appear; directories are implicit.
 * - A file that vanishes between walk and read is simply absent; an unreadable one is
 *   absent and reported in `warnings`. Neither is an error.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { entriesEqual } from '../model/snapshot.js';
import { countBelow } from '../model/tree-snapshot.js';
import type { Entry, Snapshot } from '../model/types.js';
import { LazySnapshot, type ExpectedCursor } from '../model/lazy-snapshot.js';
import { setImmediate as yieldToEventLoop } from 'node:timers/promises';
import { HASH_CONCURRENCY, HASH_STREAM_THRESHOLD_BYTES, HASH_SYNC_SLICE_MS } from './tunables.js';
import { digestLargeFile, digestSmallFileSync, hashWordLE, xxhashApi, type FileDigest } from './hash.js';
import { isExecutableMode, nowMs } from './filestat.js';
import { NPMRC, npmrcHoldsCredential } from './credentials.js';
import type { IgnoreMatcher } from './ignore.js';
import type { StatCache } from './statcache.js';
import { describeSkipped, lstatKind, notUtf8, walkTree, type WalkedFile } from './walk.js';
import type { FileStat } from './filestat.js';

export interface ScanOptions {
  root: string;
  matcher: IgnoreMatcher;
  cache?: StatCache;
  /** Large (streamed) files hashed at once; default HASH_CONCURRENCY. Small files are read one by one, synchronously. */
  hashConcurrency?: number;
  /** Called with each directory's relative path before it is read ('' is the root). */
  onDirectory?: (relDir: string) => void;
  /**
   * The tree this scan expects to find (the sync base). When its entries are still unmade
   * (a LazySnapshot), every file the stat cache answers for is checked against its next
   * entry in place, and no entry is made while they agree: a scan that finds exactly that
   * tree returns a LazySnapshot known equal to it (see ScanResult.snapshot).
   */
  expect?: Snapshot | null;
}

export interface ScanStats {
  /** Files in the resulting snapshot. */
  files: number;
  /** Files read and hashed. */
  hashed: number;
  /** Files whose hash came from the stat cache. */
  cached: number;
  /** Directories read. */
  dirs: number;
  ms: number;
}

export interface ScanResult {
  /** Entries carry `text`. A LazySnapshot (entries made when read) when it equals ScanOptions.expect. */
  snapshot: Snapshot;
  warnings: string[];
  /**
   * Paths not read (links, special files, unreadable files and folders; a folder ends
   * in "/"): unknown rather than absent, so a push must not delete them remotely.
   */
  skipped: string[];
  stats: ScanStats;
}

/**
 * Snapshot of the whole tree under opts.root. Prunes cache entries of files no longer present.
 * A file the stat cache answers for becomes its entry as the walk finds it: at 100k files a
 * warm scan holds no list of walked files, and (StatCache.keptBy) asks the ignore matcher
 * only about the files the cache does not know and the folders it holds no file under.
 */
export async function scanTree(opts: ScanOptions): Promise<ScanResult> {
  const t0 = performance.now();
  const root = path.resolve(opts.root);
  const { cache, matcher } = opts;
  const known = cache !== undefined && matcher.key !== undefined && cache.keptBy === matcher.key ? cache : null;
  /** In walk order; a file still to hash holds PENDING until it is read. */
  const snapshot: Snapshot = new Map();
  const toHash: ToRead[] = [];
  const npmrcs: ToRead[] = [];
  let cached = 0;
  /** While every file found is the next one `opts.expect` holds: see ScanOptions.expect. */
  let same = expectedTree(opts);
  /**
   * From here on entries are made: those met so far first (`opts.expect`'s first ones, with
   * the text flags the cache gave). Called before the scan's first await, so `opts.expect`
   * is as it was; its entries are made (reconcile needs them now), once.
   */
  const leaveSame = (): void => {
    const s = same!;
    same = null;
    if (s.cursor.met === 0) return; // a cold cache, or a difference at once: nothing to make yet
    let i = 0;
    for (const e of (opts.expect as LazySnapshot).values()) {
      if (i === s.cursor.met) break;
      snapshot.set(e.path, { path: e.path, hash: e.hash, size: e.size, executable: e.executable, text: s.flags.at(i++) });
    }
  };
  const walked = walkTree(root, matcher, '', {
    ...walkOptions(opts),
    ...(known ? { kept: (rel: string) => known.has(rel), keptDir: (rel: string) => known.holdsUnder(rel) } : {}),
    // A file the cache does not hold is read whatever its stat: taken then, from the open file.
    statNow: (rel: string) => cache !== undefined && cache.has(rel),
    onFile: (rel, abs, stat) => {
      if (isNpmrc(rel)) npmrcs.push({ rel, abs, stat });
      if (stat === undefined) {
        if (same !== null) leaveSame();
        snapshot.set(rel, PENDING);
        toHash.push({ rel, abs, stat });
        return;
      }
      if (same !== null) {
        const c = cache!;
        const at = c.hitAt(rel, stat);
        if (at >= 0 && same.cursor.next(rel, c.hashLoAt(at), c.hashHiAt(at), stat.size, isExecutableMode(stat.mode))) {
          same.flags.push(c.textAt(at));
          cached++;
          return;
        }
        leaveSame();
        if (at >= 0) {
          snapshot.set(rel, { path: rel, hash: c.hashAt(at), size: stat.size, executable: isExecutableMode(stat.mode), text: c.textAt(at) });
          cached++;
        } else {
          snapshot.set(rel, PENDING);
          toHash.push({ rel, abs, stat });
        }
        return;
      }
      const hit = cache?.lookup(rel, stat);
      if (hit === undefined) {
        snapshot.set(rel, PENDING);
        toHash.push({ rel, abs, stat });
        return;
      }
      snapshot.set(rel, { path: rel, hash: hit.hash, size: stat.size, executable: isExecutableMode(stat.mode), text: hit.text });
      cached++;
    },
  });
  // Files expected but not found, or an .npmrc to read for credentials: entries are made.
  if (same !== null && (!same.cursor.done || npmrcs.length > 0)) leaveSame();
  const read = await hashFiles(toHash, opts);
  for (let i = 0; i < toHash.length; i++) {
    const e = read.entries[i];
    if (e) snapshot.set(e.path, e);
    else snapshot.delete(toHash[i]!.rel);
  }
  const npmrcEntries = npmrcs.map((f) => snapshot.get(f.rel) ?? null);
  withoutCredentialFiles(npmrcs, npmrcEntries, read.warnings, read.skipped);
  npmrcs.forEach((f, i) => npmrcEntries[i] === null && snapshot.delete(f.rel));
  const result = same !== null ? sameAsExpected(opts.expect as LazySnapshot, same.expected, same.flags.view()) : (foundAsExpected(opts.expect, snapshot) ?? snapshot);
  /** Every file found, as a Map that reading does not fill (`result` may be a LazySnapshot over `snapshot`). */
  const found = same !== null ? result : snapshot;
  if (cache) {
    cache.retain((rel) => found.has(rel), { order: () => found.keys(), hits: cached });
    // Everything cached now is a file this matcher kept (and found): see StatCache.keptBy.
    cache.markKept(matcher.key);
  }
  return {
    snapshot: result,
    warnings: [...walked.warnings, ...read.warnings],
    skipped: [...walked.skipped, ...read.skipped],
    stats: { files: result.size, hashed: read.hashed, cached, dirs: walked.dirs, ms: performance.now() - t0 },
  };
}

/** The text flags of the files met while they equal the expected tree, one byte each. */
class TextFlags {
  private bytes = new Uint8Array(1024);
  length = 0;
  push(text: boolean): void {
    if (this.length === this.bytes.length) {
      const bigger = new Uint8Array(this.bytes.length * 2);
      bigger.set(this.bytes);
      this.bytes = bigger;
    }
    this.bytes[this.length++] = text ? 1 : 0;
  }
  at(i: number): boolean {
    return this.bytes[i] === 1;
  }
  view(): Uint8Array {
    return this.bytes.subarray(0, this.length);
  }
}

/**
 * When the files read (a cold or partly cold stat cache) make exactly the tree
 * `expect` holds, while its entries are still unmade: `found` as a LazySnapshot known
 * equal to it, so nothing downstream makes and compares the expected entries (at 100k
 * files ~0.2 s). Checked with expect's cursor, `found` in walk (path) order; null when
 * anything differs, or `found` is in another order (it is then compared the long way).
 */
function foundAsExpected(expect: Snapshot | null | undefined, found: Snapshot): LazySnapshot | null {
  if (!(expect instanceof LazySnapshot) || !expect.lazy || expect.cursor === null || found.size !== expect.size) return null;
  const cursor = expect.cursor();
  for (const e of found.values()) {
    if (e.hash === null || !cursor.next(e.path, hashWordLE(e.hash, 0), hashWordLE(e.hash, 1), e.size, e.executable)) return null;
  }
  if (!cursor.done) return null;
  const local = new LazySnapshot(found.size, () => found.values());
  local.markEqual(expect);
  return local;
}

/** scanTree's check against ScanOptions.expect, when it can be made without making entries. */
function expectedTree(opts: ScanOptions): { cursor: ExpectedCursor; expected: () => Iterable<Entry>; flags: TextFlags } | null {
  const { expect, cache } = opts;
  if (!(expect instanceof LazySnapshot) || !expect.lazy || expect.cursor === null || cache === undefined || !cache.onlyLoaded) return null;
  // The entries as the cursor reads them, whatever happens to `expect` later.
  return { cursor: expect.cursor(), expected: expect.entriesNow(), flags: new TextFlags() };
}

/** The local tree when it is exactly `expect`: its entries (with `text`) made when first read. */
function sameAsExpected(expect: LazySnapshot, expected: () => Iterable<Entry>, text: Uint8Array): LazySnapshot {
  const local = new LazySnapshot(expect.size, function* () {
    let i = 0;
    for (const e of expected()) yield { path: e.path, hash: e.hash, size: e.size, executable: e.executable, text: text[i++] === 1 };
  });
  local.markEqual(expect);
  return local;
}

/** A file to read: a walked one, or one the walk did not lstat (WalkOptions.statNow). */
type ToRead = Omit<WalkedFile, 'stat'> & { stat: FileStat | undefined };

/** scanTree's placeholder for a file found but not read yet; never returned. */
const PENDING: Entry = Object.freeze({ path: '', hash: null, size: -1, executable: false });

const isNpmrc = (rel: string): boolean => rel === NPMRC || rel.endsWith(`/${NPMRC}`);

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
    stats: { files: next.size, hashed: resolved.hashed, cached: resolved.cached, dirs, ms: performance.now() - t0 },
  };
}

function walkOptions(opts: ScanOptions): { onDirectory?: (relDir: string) => void } {
  return opts.onDirectory ? { onDirectory: opts.onDirectory } : {};
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
  for (let j = 0; j < misses.length; j++) entries[at[j]!] = read.entries[j]!;
  withoutCredentialFiles(files, entries, read.warnings, read.skipped);
  return { ...read, entries, cached };
}

/**
 * Reads and hashes every one of `files` (recording each in the stat cache). Small files
 * synchronously, yielding every HASH_SYNC_SLICE_MS; large ones streamed after.
 */
async function hashFiles(files: readonly ToRead[], opts: ScanOptions): Promise<Resolved> {
  const { cache } = opts;
  const entries: (Entry | null)[] = new Array<Entry | null>(files.length).fill(null);
  const warnings: string[] = [];
  const skipped: string[] = [];
  let hashed = 0;
  const record = (i: number, d: FileDigest | null, recordedMs: number): void => {
    const f = files[i]!;
    if (d === null) {
      cache?.delete(f.rel);
      // Not lstat'ed by the walk: the warning it would have given (see walkTree).
      const why = f.stat === undefined ? notUtf8(f.rel) : null;
      if (why !== null) warnings.push(why);
      return;
    }
    hashed++;
    entries[i] = { path: f.rel, hash: d.hash, size: d.size, executable: isExecutableMode(d.stat.mode), text: d.text };
    if (d.stable) cache?.update(f.rel, d.stat, d.hash, d.text, recordedMs);
    else cache?.delete(f.rel);
  };
  const unreadable = (i: number, err: unknown): void => {
    warnings.push(`unreadable file skipped: ${files[i]!.rel} (${(err as NodeJS.ErrnoException).code ?? String(err)})`);
    skipped.push(files[i]!.rel);
  };

  if (files.length === 0) return { entries, warnings, skipped, hashed, cached: 0 };
  const xx = await xxhashApi();
  const large: number[] = [];
  let sliceStart = performance.now();
  for (let i = 0; i < files.length; i++) {
    const f = files[i]!;
    if (f.stat !== undefined && f.stat.size >= HASH_STREAM_THRESHOLD_BYTES) {
      large.push(i);
      continue;
    }
    if (performance.now() - sliceStart >= HASH_SYNC_SLICE_MS) {
      await yieldToEventLoop();
      sliceStart = performance.now();
    }
    // Taken before the read: an earlier time can only make the cache entry "racy" sooner.
    const recordedMs = nowMs();
    let d: FileDigest | null | 'large';
    try {
      d = digestSmallFileSync(f.abs, xx, f.stat);
    } catch (err) {
      unreadable(i, err);
      continue;
    }
    if (d === 'large') large.push(i); // grew past the threshold since the walk
    else record(i, d, recordedMs);
  }
  await runBounded(large, opts.hashConcurrency ?? HASH_CONCURRENCY, async (i) => {
    const recordedMs = nowMs();
    try {
      record(i, await digestLargeFile(files[i]!.abs, xx), recordedMs);
    } catch (err) {
      unreadable(i, err);
    }
  });
  return { entries, warnings, skipped, hashed, cached: 0 };
}

/**
 * An `.npmrc` holding a registry token is never uploaded: skipped with a warning (so a copy
 * already on the deployment is left alone, not deleted). Read on every scan, cached or not:
 * the stat cache knows the hash, not whether the content is a secret.
 */
function withoutCredentialFiles(files: readonly ToRead[], entries: (Entry | null)[], warnings: string[], skipped: string[]): void {
  for (let i = 0; i < files.length; i++) {
    const f = files[i]!;
    if (entries[i] === null || path.posix.basename(f.rel) !== NPMRC) continue;
    let text: string;
    try {
      text = readFileSync(f.abs, 'utf8');
    } catch {
      continue; // vanished since: the next scan sees what is there
    }
    if (!npmrcHoldsCredential(text)) continue;
    entries[i] = null;
    skipped.push(f.rel);
    warnings.push(`${f.rel} holds a registry token (_authToken, _auth or _password): not uploaded. Write the value as \${NPM_TOKEN} (npm expands it) and set NPM_TOKEN on the deployment to sync the file`);
  }
}

/** Runs `fn` over `items` with at most `limit` calls in flight (never unbounded: EMFILE). */
async function runBounded<T>(items: readonly T[], limit: number, fn: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) await fn(items[next++]!);
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(limit, items.length)) }, worker));
}
