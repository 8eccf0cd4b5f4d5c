import { createHash } from 'node:crypto';
import type { HostingClient } from '../remote/client.js';
import type { FileIndexEntry } from '../remote/api-types.js';
import { INDEX_HASH_MAX_BYTES } from '../config/tunables.js';
import type { IgnoreMatcher } from '../local/ignore.js';
import type { RemoteCache } from '../state/store.js';
import type { Entry, Snapshot } from './types.js';

/** The remote tree R as of one files.index, plus what it cost. */
export interface RemoteRead {
  snapshot: Snapshot;
  digest: string;
  requestKey: string;
  /** True when the server said `unchanged` and the snapshot came from the cache. */
  fromCache: boolean;
  /**
   * hostsync's own upload archives left behind by a push killed between upload and
   * decompress. They are ours by name, so the next push removes them; they are never
   * part of the snapshot.
   */
  leftovers: string[];
}

/** Name of the transient archive a push uploads; see RemoteRead.leftovers. */
export const archiveName = (): string => `.hostsync-upload-${process.pid}-${Date.now().toString(36)}.tar.gz`;
const LEFTOVER = /^\.hostsync-upload-[0-9]+-[0-9a-z]+\.tar\.gz$/;

/**
 * A digest only means something for the same ignore list and hashMaxBytes: the key
 * ties a cached remote snapshot to the request that produced it.
 */
export function indexRequestKey(patterns: readonly string[], hashMaxBytes = INDEX_HASH_MAX_BYTES): string {
  return createHash('sha256').update(JSON.stringify([patterns, hashMaxBytes])).digest('hex').slice(0, 16);
}

const stripSlash = (p: string): string => p.replace(/^\/+/, '').replace(/\/+$/, '');

export function entryFromIndex(e: FileIndexEntry): Entry {
  const mode = Number.parseInt(e.mode, 8);
  return {
    path: stripSlash(e.path),
    hash: typeof e.hash === 'string' ? e.hash.toLowerCase() : null,
    size: e.sizeBytes,
    executable: Number.isFinite(mode) && (mode & 0o111) !== 0,
  };
}

/**
 * Read R. With a cache whose request key matches, the stored digest is sent and an
 * unchanged remote costs exactly one request. A `truncated` answer is never taken as
 * the whole tree: it is completed directory by directory.
 * Ignored paths are dropped here too, whatever the server did: they are always protected.
 */
export async function readRemote(
  client: HostingClient,
  matcher: IgnoreMatcher,
  cache: RemoteCache | null,
): Promise<RemoteRead> {
  const ignore = [...matcher.patterns];
  const requestKey = indexRequestKey(ignore);
  const useCache = cache !== null && cache.requestKey === requestKey;
  const first = await client.files.index({
    ignore,
    hashMaxBytes: INDEX_HASH_MAX_BYTES,
    ...(useCache ? { digest: cache.digest } : {}),
  });
  if (first.unchanged && useCache) {
    return { snapshot: cache.snapshot, digest: cache.digest, requestKey, fromCache: true, leftovers: [] };
  }
  const snapshot: Snapshot = new Map();
  const leftovers: string[] = [];
  const add = (entries: FileIndexEntry[]): void => {
    for (const raw of entries) {
      if (raw.type !== 'file') continue;
      const entry = entryFromIndex(raw);
      if (entry.path === '' || matcher.ignores(entry.path, false)) continue;
      if (LEFTOVER.test(entry.path)) {
        leftovers.push(entry.path);
        continue;
      }
      snapshot.set(entry.path, entry);
    }
  };
  add(first.entries);
  if (first.truncated) await completeTruncated(client, matcher, ignore, '', first.entries, add);
  return { snapshot, digest: first.digest, requestKey, fromCache: false, leftovers };
}

/**
 * A truncated index of `dir` is completed by listing `dir` and indexing each
 * subdirectory on its own (recursively, when those are truncated too). Files directly
 * in `dir` that the truncated answer did not carry are indexed one by one.
 */
async function completeTruncated(
  client: HostingClient,
  matcher: IgnoreMatcher,
  ignore: string[],
  dir: string,
  partial: FileIndexEntry[],
  add: (entries: FileIndexEntry[]) => void,
): Promise<void> {
  const seen = new Set(partial.filter((e) => e.type === 'file' && typeof e.hash === 'string').map((e) => stripSlash(e.path)));
  const listing = await client.files.list(dir === '' ? '/' : dir);
  for (const child of listing.entries) {
    const rel = dir === '' ? child.name : `${dir}/${child.name}`;
    const isDir = child.type === 'directory' || child.type === 'dir' || child.type === 'folder';
    if (matcher.ignores(rel, isDir)) continue;
    if (isDir) {
      const sub = await client.files.index({ path: rel, ignore, hashMaxBytes: INDEX_HASH_MAX_BYTES });
      add(sub.entries);
      if (sub.truncated) await completeTruncated(client, matcher, ignore, rel, sub.entries, add);
    } else if (child.type === 'file' && !seen.has(rel)) {
      const one = await client.files.index({ path: rel, ignore, hashMaxBytes: INDEX_HASH_MAX_BYTES });
      add(one.entries);
    }
  }
}
