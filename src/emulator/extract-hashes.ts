/**
 * The hashes of what files.decompress writes, taken from the bytes as they are extracted
 * and handed to the deployment's hash cache, so the files.index that follows (a client
 * verifying its upload) need not read every file back. This is the per-volume index the
 * emulator's own writes keep up to date; the service can do the same while it unpacks.
 *
 * Invariant: a hash is handed over only for a file that is, after the extraction ended,
 * still the one extracted: a regular file of the entry's size and the entry's mtime (tar
 * sets it last, from the archive; any later write moves it to the present). A file tar
 * did not write (skipped, refused, failed) or that changed since is left to be hashed from
 * disk. The cache's own racy rule still applies (HashCache.remember).
 */
import { lstatSync, type BigIntStats } from 'node:fs';
import { Transform } from 'node:stream';
import type { ReadEntry } from 'tar';
import type { HashCache } from './hash-cache.js';
import { newHasher64 } from './hash.js';

/** The largest gap between the mtime tar was given (a Date: whole ms) and the one the filesystem keeps. */
const MTIME_SLACK_NS = 1_000_000n;

interface Extracted {
  size: number;
  mtimeMs: number | null;
  hash: string;
}

export class ExtractedHashes {
  private readonly extracted = new Map<string, Extracted>();

  private constructor(private readonly hasher: () => { update(b: Uint8Array): void; digest(): string }) {}

  static async create(): Promise<ExtractedHashes> {
    const make = await newHasher64();
    return new ExtractedHashes(make);
  }

  /**
   * For tar's `transform` option: the stream tar writes the entry's file from, passing the
   * bytes through unchanged and hashing them on the way.
   */
  tap(entry: ReadEntry): Transform {
    const abs = String(entry.absolute);
    const state = this.hasher();
    let bytes = 0;
    // The entry was written to this path again (an archive listing a path twice): only the last counts.
    this.extracted.delete(abs);
    return new Transform({
      transform: (chunk: Buffer, _enc, done) => {
        state.update(chunk);
        bytes += chunk.length;
        done(null, chunk);
      },
      flush: (done) => {
        if (bytes === entry.size) this.extracted.set(abs, { size: bytes, mtimeMs: entry.mtime ? entry.mtime.getTime() : null, hash: state.digest() });
        done();
      },
    });
  }

  /** After the extraction ended: every file still as extracted goes into `cache`. Returns how many. */
  commit(cache: HashCache): number {
    let n = 0;
    for (const [abs, e] of this.extracted) {
      let st: BigIntStats;
      try {
        st = lstatSync(abs, { bigint: true });
      } catch {
        continue;
      }
      if (!st.isFile() || st.size !== BigInt(e.size) || e.mtimeMs === null) continue;
      const gap = st.mtimeNs - BigInt(e.mtimeMs) * 1_000_000n;
      if (gap > MTIME_SLACK_NS || gap < -MTIME_SLACK_NS) continue;
      if (cache.remember(abs, st, e.hash)) n++;
    }
    this.extracted.clear();
    return n;
  }
}
