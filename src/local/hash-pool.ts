/**
 * A cold scan's small files hashed on every core: the main thread and HashPool's worker
 * threads (hash-worker.ts, each with its own xxhash-wasm instance) claim batches of file
 * indexes from shared counters and write what they read into shared typed-array columns,
 * never objects (no structured clone per file, nothing for the scavenger). The files come
 * in segments: a scan hands the workers each segment as its walk finds it (`feed`), so
 * they read while the walk goes on, and the main thread joins in once the walk is done
 * (`hash`). Each segment's paths are cloned to each worker once.
 *
 * Invariants:
 * - Every file is read by exactly one thread, with digestSmallFileSync: the same digests,
 *   stats and outcomes as the serial loop, whichever thread read it and whenever.
 * - A file no thread finished (a worker that failed to start or died) is left NOT_DONE
 *   and the caller reads it itself: a broken worker costs speed, never an answer.
 * - The main thread yields to the event loop every HASH_SYNC_SLICE_MS, as the serial loop does.
 */
import os from 'node:os';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { performance } from 'node:perf_hooks';
import { setImmediate as yieldToEventLoop } from 'node:timers/promises';
import type { XXHashAPI } from 'xxhash-wasm';
import { digestSmallFileSync } from './hash.js';
import { nowMs, type FileStat } from './filestat.js';
import { HASH_POOL_BATCH_FILES, HASH_STREAM_THRESHOLD_BYTES, HASH_SYNC_SLICE_MS, HASH_WORKERS_MAX } from './tunables.js';

/** PoolColumns.outcome of a file. */
export const NOT_DONE = 0;
export const READ = 1;
export const READ_UNSTABLE = 2;
/** Not (or no longer) a regular file: digestSmallFileSync answered null. */
export const GONE = 3;
/** At or above HASH_STREAM_THRESHOLD_BYTES: left to the streaming path. */
export const LARGE = 4;
/** Threw: the code is in PoolResult.errors. */
export const FAILED = 5;

/** What the threads share: the files to read (with the walk's lstat) and what was read of each. */
export interface PoolColumns {
  paths: readonly string[];
  /** 1 where the walk's lstat of the file is given (in the in* columns). */
  hasStat: Uint8Array;
  inMtimeMs: Float64Array;
  inCtimeMs: Float64Array;
  inSize: Float64Array;
  inIno: Float64Array;
  inMode: Uint32Array;
  /** The fstat taken after reading, the bytes hashed as `size`, as StatRows holds them. */
  mtimeMs: Float64Array;
  ctimeMs: Float64Array;
  ino: Float64Array;
  size: Float64Array;
  recordedMs: Float64Array;
  mode: Uint32Array;
  hashLo: Uint32Array;
  hashHi: Uint32Array;
  text: Uint8Array;
  outcome: Uint8Array;
  /** [0]: the next batch to claim. */
  next: Int32Array;
}

export interface PoolResult {
  columns: PoolColumns;
  /** Files that threw, by index: the error's code (or text). */
  errors: Map<number, string>;
}

/** How many worker threads a scan reading `files` small files starts (0: the serial loop). */
export function hashWorkersFor(files: number, minFiles: number, workers?: number): number {
  if (files < minFiles || files === 0) return 0;
  const cores = typeof os.availableParallelism === 'function' ? os.availableParallelism() : os.cpus().length;
  return Math.max(0, Math.min(workers ?? cores - 1, HASH_WORKERS_MAX));
}

/** Files of a pool given to its threads at once: `base` is the index of the first among all the pool's files. */
export interface PoolSegment {
  base: number;
  columns: PoolColumns;
}

/** What a worker is sent: a segment to read, or the end (it then posts its errors, by file index, and exits). */
export type PoolMessage = { segment: PoolSegment } | { end: true };

/**
 * Worker threads started ahead of the files they will read (a scan starts them as soon as
 * its walk has found enough files to read, so they boot while the walk goes on, and feeds
 * them what it finds from then on). Workers do not keep the process alive until `hash` waits
 * for them; `close` ends them all.
 */
export class HashPool {
  private workers: Worker[] = [];
  private segments: PoolSegment[] = [];
  private fed = 0;
  private readonly errors = new Map<number, string>();

  private constructor(workers: number) {
    const script = workerScript();
    for (let w = 0; w < workers && script !== null; w++) {
      try {
        const worker = new Worker(script);
        worker.on('error', () => {}); // a worker that fails leaves its files NOT_DONE (see hash)
        // One that failed while booting has already exited when it is given files: see runWorker.
        worker.once('exit', () => exited.add(worker));
        worker.unref();
        this.workers.push(worker);
      } catch {
        break;
      }
    }
  }

  static start(workers: number): HashPool {
    return new HashPool(workers);
  }

  /**
   * Gives the workers the next `files` (those after every file fed so far): they read them
   * while this thread goes on. Files past HASH_STREAM_THRESHOLD_BYTES by the walk's stat
   * are LARGE without being opened.
   */
  feed(files: readonly { abs: string; stat: FileStat | undefined }[]): void {
    if (files.length === 0) return;
    const segment: PoolSegment = { base: this.fed, columns: makeColumns(files) };
    this.fed += files.length;
    this.segments.push(segment);
    for (const worker of this.workers) if (!exited.has(worker)) worker.postMessage({ segment } satisfies PoolMessage);
  }

  /**
   * Reads `files` (absolute paths, with the walk's lstat where it took one; the first ones
   * those already fed, in the same order) on this thread and the pool's workers, and
   * answers for all of them. The workers are used up: a pool hashes once.
   */
  async hash(files: readonly { abs: string; stat: FileStat | undefined }[], xx: XXHashAPI, how: { mainThreadReads?: boolean } = {}): Promise<PoolResult> {
    this.feed(files.slice(this.fed));
    // Unreferenced until now: a scan that throws between its walk and this leaves nothing holding the process.
    const running = this.workers.map((worker) => runWorker(worker, this.errors));
    for (const worker of this.workers) if (!exited.has(worker)) worker.postMessage({ end: true } satisfies PoolMessage);
    this.workers = [];
    let sliceStart = performance.now();
    // (mainThreadReads false, for tests: the workers read every file they can.)
    for (const segment of how.mainThreadReads === false ? [] : this.segments) {
      while (readBatch(segment, xx, this.errors)) {
        if (performance.now() - sliceStart >= HASH_SYNC_SLICE_MS) {
          await yieldToEventLoop();
          sliceStart = performance.now();
        }
      }
    }
    await Promise.all(running);
    return { columns: joined(this.segments, files.length), errors: this.errors };
  }

  /** Ends the workers (a scan that threw, or found fewer to read than it started them for). */
  close(): void {
    for (const worker of this.workers) void worker.terminate();
    this.workers = [];
  }
}

/** HashPool.start(workers).hash(files, xx, how). */
export function hashInParallel(
  files: readonly { abs: string; stat: FileStat | undefined }[], xx: XXHashAPI, workers: number, how: { mainThreadReads?: boolean } = {},
): Promise<PoolResult> {
  return HashPool.start(workers).hash(files, xx, how);
}

/**
 * Claims the next batch of `segment` and reads it (errors by file index among all the
 * pool's files); false when every batch of it is claimed.
 */
export function readBatch(segment: PoolSegment, xx: XXHashAPI, errors: Map<number, string>): boolean {
  const claimed = claimBatch(segment.columns);
  if (claimed === null) return false;
  hashRange(segment.columns, claimed[0], claimed[1], xx, errors, segment.base);
  return true;
}

/** The next batch's [start, end), or null when every batch is claimed. */
export function claimBatch(c: PoolColumns): [number, number] | null {
  const start = Atomics.add(c.next, 0, 1) * HASH_POOL_BATCH_FILES;
  if (start >= c.paths.length) return null;
  return [start, Math.min(c.paths.length, start + HASH_POOL_BATCH_FILES)];
}

/** Reads files [start, end) into the columns (errors: index plus `base` to code). */
export function hashRange(c: PoolColumns, start: number, end: number, xx: XXHashAPI, errors: Map<number, string>, base = 0): void {
  for (let i = start; i < end; i++) {
    if (c.hasStat[i] === 1 && c.inSize[i]! >= HASH_STREAM_THRESHOLD_BYTES) {
      c.outcome[i] = LARGE;
      continue;
    }
    const statBefore: FileStat | undefined =
      c.hasStat[i] === 1 ? { mtimeMs: c.inMtimeMs[i]!, ctimeMs: c.inCtimeMs[i]!, size: c.inSize[i]!, ino: c.inIno[i]!, mode: c.inMode[i]! } : undefined;
    // Taken before the read: an earlier time can only make the cache entry "racy" sooner.
    const recordedMs = nowMs();
    let d: ReturnType<typeof digestSmallFileSync>;
    try {
      d = digestSmallFileSync(c.paths[i]!, xx, statBefore);
    } catch (err) {
      errors.set(base + i, (err as NodeJS.ErrnoException).code ?? String(err));
      c.outcome[i] = FAILED;
      continue;
    }
    if (d === null) c.outcome[i] = GONE;
    else if (d === 'large') c.outcome[i] = LARGE;
    else {
      c.mtimeMs[i] = d.stat.mtimeMs;
      c.ctimeMs[i] = d.stat.ctimeMs;
      c.ino[i] = d.stat.ino;
      c.mode[i] = d.stat.mode;
      c.size[i] = d.size;
      c.recordedMs[i] = recordedMs;
      c.hashLo[i] = d.hashLo;
      c.hashHi[i] = d.hashHi;
      c.text[i] = d.text ? 1 : 0;
      c.outcome[i] = d.stable ? READ : READ_UNSTABLE;
    }
  }
}

/** The shared columns for `files`, every outcome NOT_DONE (tests hand them to a worker directly). */
export function makeColumns(files: readonly { abs: string; stat: FileStat | undefined }[]): PoolColumns {
  const n = files.length;
  const c = emptyColumns(files.map((f) => f.abs), (bytes) => new SharedArrayBuffer(bytes));
  for (let i = 0; i < n; i++) {
    const s = files[i]!.stat;
    if (s === undefined) continue;
    c.hasStat[i] = 1;
    c.inMtimeMs[i] = s.mtimeMs;
    c.inCtimeMs[i] = s.ctimeMs;
    c.inSize[i] = s.size;
    c.inIno[i] = s.ino;
    c.inMode[i] = s.mode;
  }
  return c;
}

/** Columns for `paths`, zeroed, on buffers from `buffer`. */
function emptyColumns(paths: readonly string[], buffer: (bytes: number) => ArrayBufferLike): PoolColumns {
  const n = paths.length;
  const f64 = (): Float64Array => new Float64Array(buffer(8 * n));
  const u32 = (): Uint32Array => new Uint32Array(buffer(4 * n));
  const u8 = (): Uint8Array => new Uint8Array(buffer(n));
  return {
    paths,
    hasStat: u8(), inMtimeMs: f64(), inCtimeMs: f64(), inSize: f64(), inIno: f64(), inMode: u32(),
    mtimeMs: f64(), ctimeMs: f64(), ino: f64(), size: f64(), recordedMs: f64(), mode: u32(),
    hashLo: u32(), hashHi: u32(), text: u8(), outcome: u8(),
    next: new Int32Array(buffer(4)),
  };
}

/** The segments' columns as one, file i at index i (the segments themselves when there is one). */
function joined(segments: readonly PoolSegment[], n: number): PoolColumns {
  if (segments.length === 1) return segments[0]!.columns;
  const all = emptyColumns(segments.flatMap((s) => s.columns.paths), (bytes) => new ArrayBuffer(bytes));
  for (const { base, columns } of segments) {
    for (const key of Object.keys(all) as (keyof PoolColumns)[]) {
      const to = all[key];
      if (key !== 'next' && ArrayBuffer.isView(to)) (to as Float64Array).set(columns[key] as Float64Array, base);
    }
  }
  if (all.paths.length !== n) throw new Error(`hash pool: ${all.paths.length} files in its segments, ${n} asked for`);
  return all;
}

/**
 * hash-worker.js beside this module; under a TypeScript runner (tests run src/*.ts) the
 * built one in dist/, which `tsc` emits. Null when there is none: the main thread reads alone.
 */
function workerScript(): URL | null {
  const here = new URL('./hash-worker.js', import.meta.url);
  if (!import.meta.url.endsWith('.ts')) return here;
  const built = new URL('../../dist/local/hash-worker.js', import.meta.url);
  return existsSync(fileURLToPath(built)) ? built : null;
}

/** Workers that have exited (their 'exit' event will not come again). */
const exited = new WeakSet<Worker>();

/** Listens to `worker`, which is about to be sent the end; resolves when it is done or gone (never rejects). */
function runWorker(worker: Worker, errors: Map<number, string>): Promise<void> {
  if (exited.has(worker)) return Promise.resolve();
  return new Promise((resolve) => {
    let settled = false;
    const done = (): void => {
      if (settled) return;
      settled = true;
      resolve();
    };
    worker.on('message', (m: { errors: [number, string][] }) => {
      for (const [i, code] of m.errors) errors.set(i, code);
      done();
    });
    worker.on('error', done);
    worker.on('exit', done);
    // Referenced while it reads: the scan awaits it.
    worker.ref();
  });
}
