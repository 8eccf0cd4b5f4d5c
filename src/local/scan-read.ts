/**
 * Reading the files a scan could not take from the stat cache: small ones synchronously in
 * time slices (or in the hash pool's workers), large ones streamed with a bounded number in
 * flight; each recorded in the stat cache when it held still while read. And the one
 * content check a cached hash cannot answer: an `.npmrc` holding a registry token.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import type { Entry } from '../model/types.js';
import { setImmediate as yieldToEventLoop } from 'node:timers/promises';
import { HASH_CONCURRENCY, HASH_STREAM_THRESHOLD_BYTES, HASH_SYNC_SLICE_MS, HASH_WORKERS_MIN_FILES } from './tunables.js';
import { FAILED, GONE, HashPool, LARGE, NOT_DONE, READ_UNSTABLE as POOL_READ_UNSTABLE, hashWorkersFor } from './hash-pool.js';
import { digestLargeFile, digestSmallFileSync, hexOfWords, xxhashApi, type FileDigest } from './hash.js';
import { StatRows } from './stat-rows.js';
import { isExecutableMode, nowMs } from './filestat.js';
import { NPMRC, npmrcHoldsCredential } from './credentials.js';
import { notUtf8, type WalkedFile } from './walk.js';
import type { FileStat } from './filestat.js';

import type { ScanOptions } from './scan-types.js';

/** File `i`'s entry as read (null: gone or unreadable). */
export function entryOf(rel: string, read: Read, i: number): Entry | null {
  const { rows } = read;
  if (read.state[i] === NOT_READ) return null;
  return { path: rel, hash: hexOfWords(rows.hashLo[i]!, rows.hashHi[i]!), size: rows.size[i]!, executable: isExecutableMode(rows.mode[i]!), text: rows.text[i] === 1 };
}

/** Read.state of a file. */
export const NOT_READ = 0;
export const READ = 1;
export const READ_UNSTABLE = 2;

/** A file to read: a walked one, or one the walk did not lstat (WalkOptions.statNow). */
export type ToRead = Omit<WalkedFile, 'stat'> & { stat: FileStat | undefined };

export const isNpmrc = (rel: string): boolean => rel === NPMRC || rel.endsWith(`/${NPMRC}`);

export interface Read {
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
export async function hashFiles(files: readonly ToRead[], opts: ScanOptions, started: HashPool | null = null): Promise<Read> {
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
export function withoutCredentialFiles(files: readonly ToRead[], entries: (Entry | null)[], warnings: string[], skipped: string[]): void {
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

