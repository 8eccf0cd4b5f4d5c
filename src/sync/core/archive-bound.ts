/**
 * How large a tar.gz of some files can get, at worst. The planner estimates archive parts
 * by it; the executor cuts the parts it streams by it, applied to what is left to
 * compress after the output measured so far (partFits), and builds a file that cannot fit
 * an empty part locally first to measure it. Format facts, and the member size parts are
 * compressed in (remote/gzip-members.ts).
 */
import type { Entry } from '../../model/types.js';
import { ARCHIVE_GZIP_MEMBER_BYTES } from '../../remote/tunables.js';

/**
 * tar: a 512-byte header and up to 511 bytes of padding per file; a path over 100 bytes
 * adds a pax header block plus its records (the path and a few fields), padded to 512.
 */
const TAR_BLOCK = 512;
export const tarEntryBytesOf = (path: string, size: number): number => {
  const pathBytes = Buffer.byteLength(path);
  const pax = pathBytes > 100 ? TAR_BLOCK + Math.ceil((pathBytes + 64) / TAR_BLOCK) * TAR_BLOCK : 0;
  return TAR_BLOCK + Math.ceil(size / TAR_BLOCK) * TAR_BLOCK + pax;
};
export const tarEntryBytes = (e: Entry): number => tarEntryBytesOf(e.path, e.size);
/** Two zero blocks end a tar; tar pads the whole to a 10 KiB record. */
const TAR_RECORD = 10 * 1024;

/**
 * zlib's deflateBound for the default settings, plus gzip's 18-byte wrapper, for every
 * member: incompressible data grows by at most this. Parts are gzip members of at least
 * ARCHIVE_GZIP_MEMBER_BYTES each but the last (between two flushes, see partFits), so
 * n bytes make at most floor(n / member) + 1 members; the per-byte terms of the members
 * add up to no more than those of one stream of n bytes.
 */
export const gzipBound = (n: number, memberBytes = ARCHIVE_GZIP_MEMBER_BYTES): number =>
  n + Math.floor(n / 4096) + Math.floor(n / 16384) + Math.floor(n / 33554432) + (7 + 18) * (Math.floor(n / memberBytes) + 1);

/** The largest a tar.gz can be whose entries take `entryBytes` (a sum of tarEntryBytes). */
export function archiveBoundOf(entryBytes: number): number {
  return gzipBound(Math.ceil((entryBytes + 2 * TAR_BLOCK) / TAR_RECORD) * TAR_RECORD);
}

/** The largest a tar.gz of `files` can be. */
export function archiveBound(files: readonly Entry[]): number {
  return archiveBoundOf(files.reduce((n, e) => n + tarEntryBytes(e), 0));
}

/**
 * Whether an archive part whose gzip output was `flushedBytes` at its last flush (all
 * input so far compressed and out as complete members) stays within `limit` after
 * `tarBytes` more tar entries and the end of the archive, at worst, with `margin` to
 * spare. After a flush the rest is new members, none compressing worse than stored
 * blocks, which the bound (header and trailer of each member included) covers; the
 * margin covers any doubt about that reading of zlib.
 */
export function partFits(limit: number, flushedBytes: number, tarBytes: number, margin: number): boolean {
  return flushedBytes + archiveBoundOf(tarBytes) + margin <= limit;
}
