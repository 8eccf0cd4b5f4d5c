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
    const hit = this.entries.get(abs);
    if (hit && hit.ino === st.ino && hit.size === st.size && hit.mtimeNs === st.mtimeNs && hit.ctimeNs === st.ctimeNs) {
      return hit.hash;
    }
    const hashedAtNs = BigInt(Date.now()) * 1_000_000n;
    const hash = await xxh64File(abs, Number(st.size));
    if (st.mtimeNs < hashedAtNs - BigInt(EMULATOR_HASH_CACHE_RACY_MS) * 1_000_000n) {
      if (this.entries.size >= EMULATOR_HASH_CACHE_MAX_ENTRIES) this.entries.clear();
      this.entries.set(abs, { ino: st.ino, size: st.size, mtimeNs: st.mtimeNs, ctimeNs: st.ctimeNs, hash });
    } else {
      this.entries.delete(abs);
    }
    return hash;
  }
}
