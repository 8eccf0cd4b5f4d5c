/**
 * The stat fields hostsync trusts to say "this file has not changed" (git's index uses
 * the same idea), as Node's number Stats give them: lstat with `bigint: true` builds about
 * twenty BigInts and four Dates per call, and comparing them allocates again (measured at
 * 100k files: see FileStat).
 */
import type { Stats } from 'node:fs';
import { STAT_CACHE_RACY_WINDOW_MS } from './tunables.js';

/**
 * Times are milliseconds since the epoch as doubles (Stats.mtimeMs = sec * 1e3 + nsec / 1e6).
 * At today's epoch (~1.8e12 ms, between 2^40 and 2^41) a double resolves 2^-12 ms, about
 * 0.24 us: two stats taken around a change of the file differ in time by far more than
 * that (a hit needs an mtime STAT_CACHE_RACY_WINDOW_MS older than the moment it was
 * recorded; any later write moves mtime and ctime to the present). `ino` is exact up to
 * 2^53; above (overlayfs' xino high bits) it may round, and the identity then rests on
 * the times, size and mode, as it does on file systems that reuse inode numbers.
 */
export interface FileStat {
  mtimeMs: number;
  ctimeMs: number;
  size: number;
  ino: number;
  mode: number;
}

export function fileStatOf(st: Stats): FileStat {
  return { mtimeMs: st.mtimeMs, ctimeMs: st.ctimeMs, size: st.size, ino: st.ino, mode: st.mode };
}

/** Equal stat data: the file is assumed to hold the same bytes (modulo the racy window, see StatCache). */
export function sameFileStat(a: FileStat, b: FileStat): boolean {
  return a.mtimeMs === b.mtimeMs && a.ctimeMs === b.ctimeMs && a.size === b.size && a.ino === b.ino && a.mode === b.mode;
}

/** Any of the three execute bits: the only mode bit that travels (DESIGN.md). */
export function isExecutableMode(mode: number): boolean {
  return (mode & 0o111) !== 0;
}

/** Wall-clock now in milliseconds, the unit of mtimeMs. */
export function nowMs(): number {
  return Date.now();
}

/**
 * Whether a file whose mtime is `mtimeMs` may still have been changing at `atMs` without its
 * mtime moving (git's racy-git rule, widened by STAT_CACHE_RACY_WINDOW_MS for coarse file
 * system clocks): its stat data then cannot vouch for what was read at that moment.
 */
export function isRacy(mtimeMs: number, atMs: number): boolean {
  return mtimeMs + STAT_CACHE_RACY_WINDOW_MS >= atMs;
}
