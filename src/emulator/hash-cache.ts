/**
 * Remembers file hashes between files.index calls, like git's index: a no-op index
 * of a large volume should cost a walk and stats, not a re-read of every byte.
 *
 * Invariant: an entry is used only when (ino, size, mtimeNs, ctimeNs) all match AND
 * the file's mtime was older than its hashing time by EMULATOR_HASH_CACHE_RACY_MS
 * (a rewrite inside the same timestamp tick would otherwise go unnoticed).
 */
import type { BigIntStats } from 'node:fs';
import { EMULATOR_HASH_CACHE_MAX_ENTRIES, EMULATOR_HASH_CACHE_RACY_MS } from './tunables.js';
import { xxh64File } from './hash.js';

interface Entry {
  ino: bigint;
  size: bigint;
  mtimeNs: bigint;
  ctimeNs: bigint;
  hash: string;
}

export class HashCache {
  private readonly entries = new Map<string, Entry>();

  async hash(abs: string, st: BigIntStats): Promise<string> {
    const hit = this.known(abs, st);
    if (hit !== undefined) return hit;
    const hashedAtNs = BigInt(Date.now()) * 1_000_000n;
    const hash = await xxh64File(abs, Number(st.size));
    this.keep(abs, st, hash, hashedAtNs);
    return hash;
  }

  /**
   * Takes the hash of content the emulator itself just wrote at `abs` (`st`: the file's
   * lstat once written), under the same racy rule as a hash read from disk. True when kept.
   */
  remember(abs: string, st: BigIntStats, hash: string): boolean {
    return this.keep(abs, st, hash, BigInt(Date.now()) * 1_000_000n);
  }

  /** The hash held for `abs` while it is still `st` (tests look without reading the file). */
  known(abs: string, st: BigIntStats): string | undefined {
    const hit = this.entries.get(abs);
    return hit && hit.ino === st.ino && hit.size === st.size && hit.mtimeNs === st.mtimeNs && hit.ctimeNs === st.ctimeNs ? hit.hash : undefined;
  }

  private keep(abs: string, st: BigIntStats, hash: string, hashedAtNs: bigint): boolean {
    if (st.mtimeNs >= hashedAtNs - BigInt(EMULATOR_HASH_CACHE_RACY_MS) * 1_000_000n) {
      this.entries.delete(abs);
      return false;
    }
    if (this.entries.size >= EMULATOR_HASH_CACHE_MAX_ENTRIES) this.entries.clear();
    this.entries.set(abs, { ino: st.ino, size: st.size, mtimeNs: st.mtimeNs, ctimeNs: st.ctimeNs, hash });
    return true;
  }
}
