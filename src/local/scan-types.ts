/** What a scan of the local tree is asked (ScanOptions) and answers (ScanResult): scan.ts walks the whole tree, rescan.ts the paths a watch names. */
import type { Snapshot } from '../model/types.js';
import type { IgnoreMatcher } from './ignore.js';
import type { StatCache } from './statcache.js';

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

/** The walk's options a scan passes on. */
export function walkOptions(opts: ScanOptions): { onDirectory?: (relDir: string) => void } {
  return opts.onDirectory ? { onDirectory: opts.onDirectory } : {};
}

