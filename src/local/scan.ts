/**
 * The local snapshot: walk (walk.ts; in slices for a command, ScanOptions.walkSliceMs),
 * then for each file either the stat cache's hash or a fresh read: small files
 * synchronously in time slices that yield to the event loop, large ones streamed with a
 * bounded number in flight (see HASH_CONCURRENCY).
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
import { LazySnapshot, withDelta, type DeltaItem, type ExpectedCursor } from '../model/lazy-snapshot.js';
import { setImmediate as yieldToEventLoop } from 'node:timers/promises';
import { HASH_CONCURRENCY, HASH_POOL_SEGMENT_FILES, HASH_STREAM_THRESHOLD_BYTES, HASH_SYNC_SLICE_MS, HASH_WORKERS_MIN_FILES, SCAN_DELTA_MAX_PATHS, SCAN_READS_IN_PLACE_MAX } from './tunables.js';
import { FAILED, GONE, HashPool, LARGE, NOT_DONE, READ_UNSTABLE as POOL_READ_UNSTABLE, hashWorkersFor } from './hash-pool.js';
import { digestLargeFile, digestSmallFileSync, hashWordLE, hexOfWords, xxhashApi, type FileDigest } from './hash.js';
import { StatRows } from './stat-rows.js';
import { isExecutableMode, nowMs } from './filestat.js';
import { NPMRC, npmrcHoldsCredential } from './credentials.js';
import type { IgnoreMatcher } from './ignore.js';
import type { StatCache } from './statcache.js';
import { describeSkipped, lstatKind, notUtf8, walkTree, walkTreeInSlices, type WalkedFile, type WalkOptions } from './walk.js';
import { wireName } from './names.js';
import type { FileStat } from './filestat.js';

export interface ScanOptions {
  root: string;
  matcher: IgnoreMatcher;
  cache?: StatCache;
  /** Large (streamed) files hashed at once; default HASH_CONCURRENCY. Small files are read one by one, synchronously. */
  hashConcurrency?: number;
  /** Worker threads reading small files beside the main thread (hash-pool.ts); default: one per further core. */
  hashWorkers?: number;
  /** Fewest files to read for worker threads to start; default HASH_WORKERS_MIN_FILES. */
  hashWorkersMinFiles?: number;
  /** Files the walk hands started workers at once; default HASH_POOL_SEGMENT_FILES. */
  hashSegmentFiles?: number;
  /** Called with each directory's relative path before it is read ('' is the root). */
  onDirectory?: (relDir: string) => void;
  /**
   * Walk in slices of this many ms, the event loop running between them (why: WALK_SLICE_MS).
   * Unset: the walk is one synchronous piece (a watch's scans: nothing of theirs waits on
   * the network meanwhile, and its cycles were built around an uninterrupted walk).
   */
  walkSliceMs?: number;
  /**
   * The tree this scan expects to find (the sync base). When its entries are still unmade
   * (a LazySnapshot), every file the stat cache answers for is checked against its next
   * entry in place, and no entry is made while they agree: a scan that finds exactly that
   * tree returns a LazySnapshot known equal to it (see ScanResult.snapshot). A few files
   * that differ (SCAN_DELTA_MAX_PATHS) are carried as a delta over it: the result is then
   * a LazySnapshot known to be that tree with those paths changed (LazySnapshot.markDelta).
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
  /** Entries carry `text`. A LazySnapshot (entries made when read) when it equals ScanOptions.expect or is a small delta over it. */
  snapshot: Snapshot;
  warnings: string[];
  /**
   * Paths not read (links, special files, unreadable files and folders; a folder ends
   * in "/"): unknown rather than absent, so a push must not delete them remotely.
   */
  skipped: string[];
  /** hostsync's own temp files found (WalkResult.temps): never in the snapshot. */
  temps: string[];
  stats: ScanStats;
}

/**
 * Snapshot of the whole tree under opts.root. Prunes cache entries of files no longer present.
 * A file the stat cache answers for becomes its entry as the walk finds it: at 100k files a
 * warm scan holds no list of walked files, and (StatCache.keptBy) asks the ignore matcher
 * only about the files the cache does not know and the folders it holds no file under.
 *
 * Against ScanOptions.expect: while the walk meets stat cache hits that are expect's next
 * files, they are checked in place (no entry made). From the first file to read on, every
 * file is kept as a slot in walk order and checked against expect once read; a Map of
 * entries is built (once, in walk order) only when something differs, so a cold scan of an
 * unchanged tree builds none.
 */
export async function scanTree(opts: ScanOptions): Promise<ScanResult> {
  const t0 = performance.now();
  const root = path.resolve(opts.root);
  const { cache, matcher } = opts;
  const known = cache !== undefined && matcher.key !== undefined && cache.keptBy === matcher.key ? cache : null;
  /** The files found after the in-place check, in walk order: see Slot. */
  const slots: Slot[] = [];
  const toRead: ToRead[] = [];
  const npmrcs: ToRead[] = [];
  let cached = 0;
  const expected = expectedTree(opts);
  /** While the files found may still be exactly `opts.expect`. */
  let same = expected !== null;
  /** While stat cache hits are checked against `expected` as the walk meets them (nothing in `slots` yet). */
  let inPlace = same && cache !== undefined && cache.onlyLoaded;
  /**
   * Paths found to differ from `expected` while checking in place, in walk order (which is
   * path order while the delta is kept: see inDelta), and how many base records were
   * passed over for them (changed or deleted; their text flags are placeholders).
   */
  const delta = new Map<string, DeltaItem>();
  let taken = 0;
  let lastDelta = '';
  /** Files the cache did not answer for, read and checked in place (recorded in the cache after the walk). */
  const readInPlace: { rel: string; d: FileDigest; recordedMs: number }[] = [];
  let readsLeft = SCAN_READS_IN_PLACE_MAX;
  const cursor = expected?.cursor;
  const deltaCapable = cursor?.peek !== undefined && cursor.take !== undefined;
  const xxInPlace = inPlace && deltaCapable ? await xxhashApi() : null;
  /**
   * Takes `local` (found at `rel`, which is not the next expected file; its hash as the
   * cursor compares it) into the delta: the expected files before it are deleted; the one
   * at `rel`, if any, is met or changed; else `rel` is added. False when it cannot be kept
   * as a delta (too many paths, a name that is not its wire form, or a walk not in path
   * order): the caller falls back to making entries.
   */
  const inDelta = (rel: string, local: Entry, hashLo: number, hashHi: number): boolean => {
    if (!deltaCapable || wireName(rel) !== rel || delta.has(rel) || (delta.size > 0 && rel <= lastDelta)) return false;
    const c = cursor!;
    let next = c.peek!();
    // The expected files before `rel` were not found: deleted. (Taken even when the delta
    // then overflows: the fallback builds its entries from the delta as it stands.)
    while (next !== null && next < rel) {
      if (delta.size >= SCAN_DELTA_MAX_PATHS) return false;
      same = false;
      delta.set(next, { local: null, base: c.take!() });
      expected!.flags.push(false);
      taken++;
      next = c.peek!();
    }
    if (next === rel && c.next(rel, hashLo, hashHi, local.size, local.executable)) {
      expected!.flags.push(local.text === true);
      return true;
    }
    if (delta.size >= SCAN_DELTA_MAX_PATHS) return false;
    same = false;
    if (next === rel) {
      delta.set(rel, { local, base: c.take!() });
      expected!.flags.push(false);
      taken++;
    } else delta.set(rel, { local, base: null });
    lastDelta = rel;
    return true;
  };
  /** Reads a file the cache did not answer for as the walk meets it; null: leave it to hashFiles (large, changing, gone or unreadable). */
  const readNow = (rel: string, abs: string, stat: FileStat | undefined, xx: Awaited<ReturnType<typeof xxhashApi>>): FileDigest | null => {
    if (stat !== undefined && stat.size >= HASH_STREAM_THRESHOLD_BYTES) return null;
    readsLeft--;
    const recordedMs = nowMs();
    let d: FileDigest | null | 'large';
    try {
      d = digestSmallFileSync(abs, xx, stat);
    } catch {
      return null; // hashFiles reads it again, and reports it
    }
    if (d === null || d === 'large' || !d.stable) return null;
    readInPlace.push({ rel, d, recordedMs });
    return d;
  };
  /**
   * Started once the walk has found enough files to read: the workers boot while it goes
   * on, and read what it finds from then on, a segment at a time (`fed`: the files given).
   */
  let pool: HashPool | null = null;
  let fed = 0;
  const minFiles = opts.hashWorkersMinFiles ?? HASH_WORKERS_MIN_FILES;
  const segmentFiles = opts.hashSegmentFiles ?? HASH_POOL_SEGMENT_FILES;
  const slotToRead = (rel: string, abs: string, stat: FileStat | undefined): void => {
    inPlace = false;
    slots.push(toRead.length);
    toRead.push({ rel, abs, stat });
    if (pool === null && toRead.length >= minFiles) pool = HashPool.start(hashWorkersFor(toRead.length, minFiles, opts.hashWorkers));
    if (pool !== null && toRead.length - fed >= segmentFiles) {
      pool.feed(toRead.slice(fed));
      fed = toRead.length;
    }
  };
  const walking: WalkOptions = {
    ...walkOptions(opts),
    ...(known ? { kept: (rel: string) => known.has(rel), keptDir: (rel: string) => known.holdsUnder(rel) } : {}),
    // A file the cache does not hold is read whatever its stat: taken then, from the open file.
    statNow: (rel: string) => cache !== undefined && cache.has(rel),
    onFile: (rel, abs, stat) => {
      if (isNpmrc(rel)) npmrcs.push({ rel, abs, stat });
      if (inPlace) {
        const c = cache!;
        const at = stat === undefined ? -1 : c.hitAt(rel, stat);
        let local: Entry;
        if (at >= 0) {
          cached++;
          const executable = isExecutableMode(stat!.mode);
          if (cursor!.next(rel, c.hashLoAt(at), c.hashHiAt(at), stat!.size, executable)) {
            expected!.flags.push(c.textAt(at));
            return;
          }
          local = { path: rel, hash: c.hashAt(at), size: stat!.size, executable, text: c.textAt(at) };
          if (inDelta(rel, local, c.hashLoAt(at), c.hashHiAt(at))) return;
        } else {
          const d = readsLeft > 0 && xxInPlace !== null ? readNow(rel, abs, stat, xxInPlace) : null;
          if (d === null) return slotToRead(rel, abs, stat);
          const executable = isExecutableMode(d.stat.mode);
          if (cursor!.next(rel, d.hashLo, d.hashHi, d.size, executable)) {
            expected!.flags.push(d.text);
            return;
          }
          local = { path: rel, hash: d.hash, size: d.size, executable, text: d.text };
          if (inDelta(rel, local, d.hashLo, d.hashHi)) return;
        }
        // Not the next expected file, and no delta over it can be kept: the tree differs.
        inPlace = same = false;
        return void slots.push(local);
      }
      if (stat === undefined) return slotToRead(rel, abs, stat);
      const hit = cache?.lookup(rel, stat);
      if (hit === undefined) return slotToRead(rel, abs, stat);
      cached++;
      slots.push({ path: rel, hash: hit.hash, size: stat.size, executable: isExecutableMode(stat.mode), text: hit.text });
    },
  };
  const walked = await closingOnThrow(() => pool, () =>
    opts.walkSliceMs === undefined ? walkTree(root, matcher, '', walking) : walkTreeInSlices(root, matcher, '', walking, opts.walkSliceMs),
  );
  // Still in place with a delta, or short of the end: what was not found is deleted.
  if (inPlace && deltaCapable && (delta.size > 0 || !cursor!.done)) {
    for (let next = cursor!.peek!(); next !== null; next = cursor!.peek!()) {
      if (delta.size >= SCAN_DELTA_MAX_PATHS) {
        inPlace = same = false;
        break;
      }
      same = false;
      delta.set(next, { local: null, base: cursor!.take!() });
      expected!.flags.push(false);
      taken++;
    }
  }
  /** Met in place or passed over for the delta: `opts.expect`'s first records, before every slot. */
  const consumed = expected === null ? 0 : expected.cursor.met + taken;
  // Recorded before hashFiles records its files: the cache's log stays in walk order.
  if (cache && readInPlace.length > 0) {
    const rows = new StatRows(readInPlace.length);
    readInPlace.forEach(({ d, recordedMs }, i) => {
      rows.set(i, d.stat, d.hashLo, d.hashHi, d.text, recordedMs);
      rows.size[i] = d.size;
    });
    readInPlace.forEach(({ rel }, i) => cache.record(rel, rows, i));
  }
  const read = await hashFiles(toRead, opts, pool);
  // An .npmrc is read for credentials, which may drop its entry: entries are made.
  if (same && (npmrcs.length > 0 || !restAsExpected(expected!, slots, toRead, read))) same = false;
  let result: Snapshot;
  if (same) {
    result = sameAsExpected(opts.expect as LazySnapshot, expected!.expected, expected!.flags.view());
  } else if (inPlace && delta.size > 0 && npmrcs.length === 0) {
    result = overDelta(opts.expect as LazySnapshot, expected!.expected, expected!.flags.view(), delta);
  } else {
    const snapshot: Snapshot = new Map();
    if (consumed > 0 || delta.size > 0) {
      // `opts.expect` itself while nobody changed it since the scan began (it would no longer
      // be lazy): its entries are then made here once, and reconcile reads the same ones.
      // The delta's paths come in their place (both are in path order).
      const expect = opts.expect as LazySnapshot;
      const order = [...delta.keys()];
      const put = (item: DeltaItem): void => void (item.local !== null && snapshot.set(item.local.path, item.local));
      let i = 0;
      let k = 0;
      for (const e of expect.lazy ? expect.values() : expected!.expected()) {
        if (i === consumed) break;
        const text = expected!.flags.at(i++);
        while (k < order.length && order[k]! <= e.path) put(delta.get(order[k++]!)!);
        if (delta.has(e.path)) continue;
        snapshot.set(e.path, { path: e.path, hash: e.hash, size: e.size, executable: e.executable, text });
      }
      while (k < order.length) put(delta.get(order[k++]!)!);
    }
    for (const slot of slots) {
      const e = typeof slot === 'number' ? entryOf(toRead[slot]!.rel, read, slot) : slot;
      if (e !== null) snapshot.set(e.path, e);
    }
    const npmrcEntries = npmrcs.map((f) => snapshot.get(f.rel) ?? null);
    withoutCredentialFiles(npmrcs, npmrcEntries, read.warnings, read.skipped);
    npmrcs.forEach((f, i) => npmrcEntries[i] === null && snapshot.delete(f.rel));
    result = snapshot;
  }
  if (cache) {
    // (A LazySnapshot `result` is asked only when the cache cannot tell by itself that it
    // holds exactly the files found: see StatCache.retain.)
    cache.retain((rel) => result.has(rel), { order: () => result.keys(), hits: cached, recorded: read.recorded + readInPlace.length });
    // Everything cached now is a file this matcher kept (and found): see StatCache.keptBy.
    cache.markKept(matcher.key);
  }
  return {
    snapshot: result,
    warnings: [...walked.warnings, ...read.warnings],
    skipped: [...walked.skipped, ...read.skipped],
    temps: walked.temps,
    stats: { files: result.size, hashed: read.hashed + readInPlace.length, cached, dirs: walked.dirs, ms: performance.now() - t0 },
  };
}

/** `fn()`, ending the workers of the pool started meanwhile if it throws or rejects (they would sit idle for good). */
async function closingOnThrow<T>(pool: () => HashPool | null, fn: () => T | Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    pool()?.close();
    throw err;
  }
}

/** A file found, in scanTree's walk order: its entry (a stat cache hit), or its index among the files read. */
type Slot = Entry | number;

/**
 * Whether `slots`, read, are exactly the rest of the expected tree (its cursor moved past
 * them, their text flags pushed). A file gone or unreadable since the walk is not found.
 */
function restAsExpected(expected: Expected, slots: readonly Slot[], toRead: readonly ToRead[], read: Read): boolean {
  const { cursor, flags } = expected;
  const { rows } = read;
  for (const slot of slots) {
    if (typeof slot === 'number') {
      if (read.state[slot] === NOT_READ) continue;
      if (!cursor.next(toRead[slot]!.rel, rows.hashLo[slot]!, rows.hashHi[slot]!, rows.size[slot]!, isExecutableMode(rows.mode[slot]!))) return false;
      flags.push(rows.text[slot] === 1);
    } else {
      if (slot.hash === null || !cursor.next(slot.path, hashWordLE(slot.hash, 0), hashWordLE(slot.hash, 1), slot.size, slot.executable)) return false;
      flags.push(slot.text === true);
    }
  }
  return cursor.done;
}

/** File `i`'s entry as read (null: gone or unreadable). */
function entryOf(rel: string, read: Read, i: number): Entry | null {
  const { rows } = read;
  if (read.state[i] === NOT_READ) return null;
  return { path: rel, hash: hexOfWords(rows.hashLo[i]!, rows.hashHi[i]!), size: rows.size[i]!, executable: isExecutableMode(rows.mode[i]!), text: rows.text[i] === 1 };
}

/** Read.state of a file. */
const NOT_READ = 0;
const READ = 1;
const READ_UNSTABLE = 2;

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

/** What scanTree checks the files it finds against: ScanOptions.expect's entries, still unmade. */
interface Expected {
  cursor: ExpectedCursor;
  /** The entries as the cursor reads them, whatever happens to `expect` later. */
  expected: () => Iterable<Entry>;
  flags: TextFlags;
}

/** scanTree's check against ScanOptions.expect, when it can be made without making entries. */
function expectedTree(opts: ScanOptions): Expected | null {
  const { expect } = opts;
  if (!(expect instanceof LazySnapshot) || !expect.lazy || expect.cursor === null) return null;
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

/**
 * The local tree as `expect` with the paths of `delta` changed (`text`: the flags of
 * expect's records, placeholders where the delta replaced them): entries made when first
 * read, and known to be that delta over `expect` (model/lazy-snapshot.ts withDelta).
 */
function overDelta(expect: LazySnapshot, expected: () => Iterable<Entry>, text: Uint8Array, delta: ReadonlyMap<string, DeltaItem>): LazySnapshot {
  return withDelta(expect, delta, function* () {
    let i = 0;
    for (const e of expected()) yield { path: e.path, hash: e.hash, size: e.size, executable: e.executable, text: text[i++] === 1 };
  });
}

/** A file to read: a walked one, or one the walk did not lstat (WalkOptions.statNow). */
type ToRead = Omit<WalkedFile, 'stat'> & { stat: FileStat | undefined };

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
  for (let j = 0; j < misses.length; j++) entries[at[j]!] = entryOf(misses[j]!.rel, read, j);
  withoutCredentialFiles(files, entries, read.warnings, read.skipped);
  return { entries, warnings: read.warnings, skipped: read.skipped, hashed: read.hashed, cached };
}

interface Read {
  /** By index in the input: what was read of each file (see `state`). */
  rows: StatRows;
  /** By index in the input: NOT_READ (vanished or unreadable), READ or READ_UNSTABLE (changing while read: not cached). */
  state: Uint8Array;
  warnings: string[];
  skipped: string[];
  hashed: number;
  /** Files recorded in the stat cache (read, and stable while read). */
  recorded: number;
}

/**
 * Reads and hashes every one of `files` (recording each in the stat cache). Small files
 * synchronously, yielding every HASH_SYNC_SLICE_MS; large ones streamed after. The stat
 * cache records them at the end, in the order of `files` (a full scan's walk order, the
 * order the cache is saved and next met in), large ones included.
 */
async function hashFiles(files: readonly ToRead[], opts: ScanOptions, started: HashPool | null = null): Promise<Read> {
  const { cache } = opts;
  const rows = new StatRows(files.length);
  const state = new Uint8Array(files.length);
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
    rows.set(i, d.stat, d.hashLo, d.hashHi, d.text, recordedMs);
    rows.size[i] = d.size; // the bytes hashed (the stat's size too, unless the file was changing)
    state[i] = d.stable ? READ : READ_UNSTABLE;
    if (!d.stable) cache?.delete(f.rel);
  };
  const unreadable = (i: number, err: unknown): void => {
    warnings.push(`unreadable file skipped: ${files[i]!.rel} (${(err as NodeJS.ErrnoException).code ?? String(err)})`);
    skipped.push(files[i]!.rel);
  };

  if (files.length === 0) return { rows, state, warnings, skipped, hashed, recorded: 0 };
  let xx: Awaited<ReturnType<typeof xxhashApi>>;
  try {
    xx = await xxhashApi();
  } catch (err) {
    started?.close();
    throw err;
  }
  const large: number[] = [];
  const workers = started === null ? hashWorkersFor(files.length, opts.hashWorkersMinFiles ?? HASH_WORKERS_MIN_FILES, opts.hashWorkers) : 0;
  const pool = started ?? (workers > 0 ? HashPool.start(workers) : null);
  const pooled = pool === null ? null : await pool.hash(files, xx);
  let sliceStart = performance.now();
  for (let i = 0; i < files.length; i++) {
    const f = files[i]!;
    if (pooled !== null && pooled.columns.outcome[i] !== NOT_DONE) {
      const c = pooled.columns;
      const outcome = c.outcome[i]!;
      if (outcome === LARGE) large.push(i);
      else if (outcome === FAILED) unreadable(i, { code: pooled.errors.get(i) });
      else if (outcome === GONE) record(i, null, 0);
      else {
        hashed++;
        rows.copyColumns(i, c);
        state[i] = outcome === POOL_READ_UNSTABLE ? READ_UNSTABLE : READ;
        if (outcome === POOL_READ_UNSTABLE) cache?.delete(f.rel);
      }
      continue;
    }
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
  let recorded = 0;
  if (cache) {
    for (let i = 0; i < files.length; i++) {
      if (state[i] !== READ) continue;
      cache.record(files[i]!.rel, rows, i);
      recorded++;
    }
  }
  return { rows, state, warnings, skipped, hashed, recorded };
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
