/**
 * How large a tar.gz of some files can get, at worst: the planner keeps every streamed
 * archive under the node's upload limit by this bound (api/limits.ts), and the executor
 * builds the rest locally first to measure them. Format facts, not tunables.
 */
import type { Entry } from '../model/types.js';

/**
 * tar: a 512-byte header and up to 511 bytes of padding per file; a path over 100 bytes
 * adds a pax header block plus its records (the path and a few fields), padded to 512.
 */
const TAR_BLOCK = 512;
export const tarEntryBytes = (e: Entry): number => {
  const pathBytes = Buffer.byteLength(e.path);
  const pax = pathBytes > 100 ? TAR_BLOCK + Math.ceil((pathBytes + 64) / TAR_BLOCK) * TAR_BLOCK : 0;
  return TAR_BLOCK + Math.ceil(e.size / TAR_BLOCK) * TAR_BLOCK + pax;
};
/** Two zero blocks end a tar; tar pads the whole to a 10 KiB record. */
const TAR_RECORD = 10 * 1024;

/** zlib's deflateBound for the default settings, plus gzip's 18-byte wrapper: incompressible data grows by at most this. */
const gzipBound = (n: number): number => n + Math.floor(n / 4096) + Math.floor(n / 16384) + Math.floor(n / 33554432) + 7 + 18;

/** The largest a tar.gz can be whose entries take `entryBytes` (a sum of tarEntryBytes). */
export function archiveBoundOf(entryBytes: number): number {
  return gzipBound(Math.ceil((entryBytes + 2 * TAR_BLOCK) / TAR_RECORD) * TAR_RECORD);
}

/** The largest a tar.gz of `files` can be. */
export function archiveBound(files: readonly Entry[]): number {
  return archiveBoundOf(files.reduce((n, e) => n + tarEntryBytes(e), 0));
}
