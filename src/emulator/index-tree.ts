/**
 * files.index: the remote tree as entries with XXH64 hashes, plus a digest that
 * lets a client ask "anything changed?" in one request.
 *
 * Decisions (docs/emulator.md, docs/decisions.md): entries cover files, directories and symlinks (never
 * followed); `path` is volume-relative POSIX without a leading "/", whatever path
 * was indexed; `ignore` patterns are matched against those same volume-relative
 * paths (gitignore semantics, the `ignore` package) and a matching directory is
 * not entered. The digest covers the FULL result, so it is computed before any
 * truncation; it also covers the request's path, ignore list and hashMaxBytes.
 */
import { lstatSync, readdirSync, readlinkSync, type BigIntStats } from 'node:fs';
import path from 'node:path';
import ignore from 'ignore';
import { INDEX_DEFAULT_HASH_MAX_BYTES } from '../api/limits.js';
import type { FileIndexEntry, IndexResult } from '../api/types.js';
import type { EmulatedDeployment } from './deployment.js';
import { fromFsError } from './errors.js';
import { xxh64Lines } from './hash.js';
import { optInt, optString, optStringArray, type JsonObject } from './validate.js';

/** Files hashed at once when the cache misses: enough to overlap I/O, few enough for 2 cores and fd limits. */
const HASH_CONCURRENCY = 8;

interface Item {
  rel: string;
  abs: string;
  st: BigIntStats;
  type: 'file' | 'directory' | 'symlink';
  link?: string;
}

export function modeString(mode: number | bigint): string {
  return (Number(mode) & 0o7777).toString(8).padStart(4, '0');
}

export function typeOf(st: { isFile(): boolean; isDirectory(): boolean; isSymbolicLink(): boolean }): Item['type'] | null {
  if (st.isFile()) return 'file';
  if (st.isDirectory()) return 'directory';
  if (st.isSymbolicLink()) return 'symlink';
  return null; // sockets, fifos, devices: not files a deployment syncs
}

function itemOf(rel: string, abs: string, st: BigIntStats): Item | null {
  const type = typeOf(st);
  if (!type) return null;
  return type === 'symlink' ? { rel, abs, st, type, link: readlinkSync(abs) } : { rel, abs, st, type };
}

/**
 * Pre-order, names sorted, so a parent always precedes its children (truncation keeps whole prefixes).
 * `enter` is told of each directory (and its inode) before it is read; false from it means
 * the walk went unwatched somewhere (see VolumeWatch), which is returned.
 */
function walk(dirAbs: string, dirRel: string, matcher: ReturnType<typeof ignore>, out: Item[], enter: (abs: string, ino: bigint) => boolean, dirIno: bigint): boolean {
  let watched = enter(dirAbs, dirIno);
  const names = readdirSync(dirAbs).sort();
  for (const name of names) {
    const abs = path.join(dirAbs, name);
    const rel = dirRel === '' ? name : `${dirRel}/${name}`;
    let st: BigIntStats;
    try {
      st = lstatSync(abs, { bigint: true });
    } catch {
      continue; // vanished between readdir and lstat
    }
    const isDir = st.isDirectory();
    if (matcher.ignores(isDir ? `${rel}/` : rel)) continue;
    const item = itemOf(rel, abs, st);
    if (!item) continue;
    out.push(item);
    if (isDir && !walk(abs, rel, matcher, out, enter, st.ino)) watched = false;
  }
  return watched;
}

async function hashAll(dep: EmulatedDeployment, items: Item[], hashMaxBytes: number): Promise<Map<Item, string>> {
  const hashes = new Map<Item, string>();
  const todo = hashMaxBytes > 0 ? items.filter((i) => i.type === 'file' && i.st.size <= BigInt(hashMaxBytes)) : [];
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < todo.length) {
      const item = todo[next++]!;
      try {
        hashes.set(item, await dep.hashes.hash(item.abs, item.st));
      } catch {
        // Deleted mid-walk: listed without a hash, like an unhashed file.
      }
    }
  };
  await Promise.all(Array.from({ length: HASH_CONCURRENCY }, worker));
  return hashes;
}

export async function indexFiles(dep: EmulatedDeployment, body: JsonObject, maxEntries: number): Promise<IndexResult> {
  const reqPath = optString(body, 'path') ?? '/';
  const patterns = optStringArray(body, 'ignore') ?? [];
  const hashMaxBytes = optInt(body, 'hashMaxBytes', 0) ?? INDEX_DEFAULT_HASH_MAX_BYTES;
  const prevDigest = optString(body, 'digest');

  const start = dep.volume.resolve(reqPath, { follow: false });
  let st: BigIntStats;
  try {
    st = lstatSync(start.abs, { bigint: true });
  } catch (err) {
    throw fromFsError(err, reqPath);
  }
  const startRel = dep.volume.relOf(start.abs);
  // The digest this very request produced last time, if the volume has not changed since.
  const rememberKey = JSON.stringify([startRel, patterns, hashMaxBytes]);
  const generation = await dep.volumeWatch.settled();
  if (prevDigest !== undefined && st.isDirectory() && dep.volumeWatch.unchangedDigest(rememberKey, generation) === prevDigest) {
    return { unchanged: true, digest: prevDigest, truncated: false, entries: [] };
  }
  const items: Item[] = [];
  let watched = false;
  if (st.isDirectory()) {
    watched = walk(start.abs, startRel, ignore().add(patterns), items, (abs, ino) => dep.volumeWatch.watchDir(abs, ino), st.ino);
  } else {
    const item = itemOf(startRel, start.abs, st);
    if (item) items.push(item);
  }
  const hashes = await hashAll(dep, items, hashMaxBytes);

  const entries: FileIndexEntry[] = items.map((i) => ({
    path: i.rel,
    type: i.type,
    sizeBytes: Number(i.st.size),
    modifiedAt: new Date(Number(i.st.mtimeNs / 1_000_000n)).toISOString(),
    mode: modeString(i.st.mode),
    hash: hashes.get(i) ?? null,
  }));

  const lines = items
    .map((i, n) => {
      const e = entries[n]!;
      // Unhashed files fall back to size + mtime; a symlink's target is part of its identity.
      const content = e.hash ?? (i.type === 'file' ? `m${i.st.mtimeNs}` : i.type === 'symlink' ? `l${i.link}` : '-');
      return `${e.path}\t${e.type}\t${e.sizeBytes}\t${e.mode}\t${content}\n`;
    })
    .sort();
  const digest = await xxh64Lines([`v1\n${startRel}\n${JSON.stringify(patterns)}\n${hashMaxBytes}\n`, ...lines]);
  if (watched) dep.volumeWatch.remember(rememberKey, generation, digest);

  if (prevDigest !== undefined && prevDigest === digest) {
    return { unchanged: true, digest, truncated: false, entries: [] };
  }
  const truncated = entries.length > maxEntries;
  return { unchanged: false, digest, truncated, entries: truncated ? entries.slice(0, maxEntries) : entries };
}
