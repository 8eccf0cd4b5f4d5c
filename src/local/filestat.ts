/**
 * The stat fields hostsync trusts to say "this file has not changed" (git's index uses
 * the same idea). Nanosecond times and inode numbers exceed 2^53, so they stay bigint.
 */
import type { BigIntStats } from 'node:fs';

export interface FileStat {
  mtimeNs: bigint;
  ctimeNs: bigint;
  size: number;
  ino: bigint;
  mode: number;
}

export function fileStatOf(st: BigIntStats): FileStat {
  return { mtimeNs: st.mtimeNs, ctimeNs: st.ctimeNs, size: Number(st.size), ino: st.ino, mode: Number(st.mode) };
}

/** Equal stat data: the file is assumed to hold the same bytes (modulo the racy window, see StatCache). */
export function sameFileStat(a: FileStat, b: FileStat): boolean {
  return a.mtimeNs === b.mtimeNs && a.ctimeNs === b.ctimeNs && a.size === b.size && a.ino === b.ino && a.mode === b.mode;
}

/** Any of the three execute bits: the only mode bit that travels (DESIGN.md). */
export function isExecutableMode(mode: number): boolean {
  return (mode & 0o111) !== 0;
}

/** Wall-clock now in nanoseconds, the unit of mtimeNs. */
export function nowNs(): bigint {
  return BigInt(Date.now()) * 1_000_000n;
}
