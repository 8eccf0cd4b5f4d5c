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
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import type { Entry, Snapshot } from '../model/types.js';
import { LazySnapshot, type DeltaItem } from '../model/lazy-snapshot.js';
import { HASH_POOL_SEGMENT_FILES, HASH_STREAM_THRESHOLD_BYTES, HASH_WORKERS_MIN_FILES, SCAN_DELTA_MAX_PATHS, SCAN_READS_IN_PLACE_MAX } from './tunables.js';
import { HashPool, hashWorkersFor } from './hash-pool.js';
import { digestSmallFileSync, xxhashApi, type FileDigest } from './hash.js';
import { StatRows } from './stat-rows.js';
import { isExecutableMode, nowMs } from './filestat.js';
import { walkTree, walkTreeInSlices, type WalkOptions } from './walk.js';
import { wireName } from './names.js';
import type { FileStat } from './filestat.js';

import type { ScanOptions, ScanResult } from './scan-types.js';
import { entryOf, hashFiles, isNpmrc, withoutCredentialFiles, type ToRead } from './scan-read.js';
import { expectedTree, overDelta, restAsExpected, sameAsExpected, type Slot } from './scan-expect.js';
import { walkOptions } from './scan-types.js';

export type { ScanOptions, ScanResult, ScanStats } from './scan-types.js';
export { rescanPaths } from './rescan.js';

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

