import { createHash, randomBytes } from 'node:crypto';
import type { HostingClient } from '../../remote/client.js';
import type { FileIndexEntry, IndexResult } from '../../api/types.js';
import { ApiError } from '../../remote/errors.js';
import { INDEX_GROUP_READS_AT_ONCE, INDEX_HASH_MAX_BYTES, LEFTOVER_MIN_AGE_MS } from '../tunables.js';
import { anchoredPath, planIndexGroups, type IndexGroupsPlan } from './index-groups.js';
import { createIgnoreMatcher, type IgnoreMatcher } from '../../local/ignore.js';
import type { RemoteCache } from '../../state/store.js';
import { RECORD_NAME } from '../../state/base-record.js';
import type { Entry, Snapshot } from '../../model/types.js';

/** The remote tree R as of one files.index. */
export interface RemoteRead {
  /** Regular files only. */
  snapshot: Snapshot;
  /**
   * Symlinks on the remote. A write to one, or below one, would go wherever the link
   * points (another file, a folder of uploads): the engine never writes there.
   */
  symlinks: string[];
  /**
   * hostsync's own upload archives left behind by a push killed between upload and
   * decompress. They are ours by name, so a push removes them; never in the snapshot.
   * One younger than LEFTOVER_MIN_AGE_MS is in neither: a push may still be using it.
   */
  leftovers: string[];
  digest: string;
  requestKey: string;
  /** True when the server said `unchanged` and the snapshot came from the cache. */
  fromCache: boolean;
  /**
   * The base record (state/base-record.ts) as the index listed it: never in `snapshot`. With
   * several (two first pushes racing), the first by name; null: none, or not read (a scoped read).
   */
  record: Entry | null;
}

/**
 * files.index's ignore list: the matcher's, then the one file of the root `.hostsync/` the
 * index must list, the base record, so its hash comes with the answer hostsync reads anyway
 * (gitignore rules: the folder is let in, everything in it out, then the records back in;
 * anchored, so a `.hostsync/` deeper in the tree stays ignored).
 */
export const indexPatterns = (patterns: readonly string[]): string[] => [...patterns, '!/.hostsync/', '/.hostsync/*', '!/.hostsync/base-*.rec'];

/**
 * The base record's listing alone: an index whose ignore patterns leave out everything at
 * the root but `.hostsync/`, and in it everything but the records. One request whatever the
 * tree's size (the index prunes an ignored folder without walking it): what `history` in a
 * fresh clone or CI pays before reading the record itself.
 */
export async function readRecordListing(client: HostingClient): Promise<Pick<RemoteRead, 'record'>> {
  const res = await client.files.index({ ignore: indexPatterns(['/*']), hashMaxBytes: INDEX_HASH_MAX_BYTES });
  const tree = new RemoteTree(createIgnoreMatcher([]));
  tree.add(res.entries);
  return { record: tree.result().record };
}

/**
 * What state.bin keeps of a whole read, as the cache the next files.index is compared
 * against; null when the read saw leftovers (their digest covers files about to go).
 */
export function remoteCacheOf(read: RemoteRead): RemoteCache | null {
  if (read.leftovers.length > 0) return null;
  return { digest: read.digest, requestKey: read.requestKey, snapshot: read.snapshot, symlinks: read.symlinks, leftovers: [], record: read.record };
}

/**
 * Name of the transient archive a push uploads; see RemoteRead.leftovers. It lies in the
 * volume (the API offers no place outside it), where a static or PHP runtime serves it for
 * as long as it exists, so the name carries 128 random bits: nobody can guess its URL.
 */
export const archiveName = (): string => `.hostsync-upload-${randomBytes(16).toString('hex')}.tar.gz`;
/** Ours by name: today's random names, and the pid-and-clock names of earlier versions. */
const LEFTOVER = /^\.hostsync-upload-(?:[0-9a-f]{32}|[0-9]+-[0-9a-z]+)\.tar\.gz$/;

/**
 * A digest only means something for the same ignore list and hashMaxBytes: the key
 * ties a cached remote snapshot to the request that produced it.
 */
export function indexRequestKey(patterns: readonly string[], hashMaxBytes = INDEX_HASH_MAX_BYTES): string {
  return createHash('sha256').update(JSON.stringify([patterns, hashMaxBytes])).digest('hex').slice(0, 16);
}

/** The path without its leading and trailing slashes (the index answers "/src/a.js"); 100k times per whole index, so no regular expression. */
export function stripSlash(p: string): string {
  let from = 0;
  let to = p.length;
  while (from < to && p.charCodeAt(from) === 0x2f) from++;
  while (to > from && p.charCodeAt(to - 1) === 0x2f) to--;
  return from === 0 && to === p.length ? p : p.slice(from, to);
}

export function entryFromIndex(e: FileIndexEntry, rel = stripSlash(e.path)): Entry {
  const mode = Number.parseInt(e.mode, 8);
  return {
    path: rel,
    hash: typeof e.hash === 'string' ? e.hash.toLowerCase() : null,
    size: e.sizeBytes,
    executable: Number.isFinite(mode) && (mode & 0o111) !== 0,
  };
}

/** A folder as an anchored gitignore pattern. */
const anchored = (rel: string): string => `${anchoredPath(rel)}/`;

/** The paths a read of the remote should find, from what the caller knows (readRemote's `expected`). */
export function expectedFiles(...trees: (Snapshot | null | undefined)[]): () => Iterable<string> {
  return function* () {
    for (const t of trees) if (t) yield* t.keys();
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
  /**
   * Files the caller expects on the remote (local tree, last remote read): lets a truncated
   * index complete in few reads. Asked only once the first answer is in, truncated; it may
   * be a scan still running (readRemoteBeside).
   */
  expected?: () => Iterable<string> | PromiseLike<Iterable<string>>,
): Promise<RemoteRead> {
  const ignore = indexPatterns(matcher.patterns);
  const requestKey = indexRequestKey(ignore);
  // A cache that does not say whether a base record was listed (an older version's) is not used.
  const useCache = cache !== null && cache.requestKey === requestKey && cache.record !== undefined;
  const first = await client.files.index({
    ignore,
    hashMaxBytes: INDEX_HASH_MAX_BYTES,
    ...(useCache ? { digest: cache.digest } : {}),
  });
  if (first.unchanged && useCache) {
    return { snapshot: cache.snapshot, symlinks: cache.symlinks, leftovers: cache.leftovers, digest: cache.digest, requestKey, fromCache: true, record: cache.record ?? null };
  }
  const tree = new RemoteTree(matcher);
  tree.add(first.entries);
  if (first.truncated) {
    const plan = expected ? planIndexGroups(first.entries.map((e) => ({ path: stripSlash(e.path), type: e.type })), await expected(), first.entries.length) : null;
    if (plan) await completeGrouped(client, tree, ignore, plan);
    else await completeTruncated(client, tree, ignore, '', first.entries);
  }
  return { ...tree.result(), digest: first.digest, requestKey, fromCache: false };
}

/**
 * readRemote started beside the local scan, which `scan` starts right after the index is
 * asked: the index's answer (and, for a tree past one answer, its first read) comes in
 * while the scan walks and hashes, instead of after it; the grouped reads wait for the
 * scan's tree (`snapshotOf` its result): the scan yields to the event loop between its
 * slices of walking (WALK_SLICE_MS) and of reading. The caller awaits `local` (the scan's
 * result or its error) then `read`; `read` is never left rejected unhandled.
 */
export function readRemoteBeside<T>(
  client: HostingClient,
  matcher: IgnoreMatcher,
  cache: RemoteCache | null,
  scan: () => Promise<T>,
  snapshotOf: (scanned: T) => Snapshot,
  ...known: (Snapshot | null | undefined)[]
): { local: Promise<T>; read: Promise<RemoteRead> } {
  let local: Promise<T> | undefined;
  const read = readRemote(client, matcher, cache, async () => expectedFiles(snapshotOf(await local!), ...known)());
  read.catch(() => undefined);
  local = scan();
  return { local, read };
}

/** Accumulates index entries, sorting them into files, symlinks and our leftovers. */
export class RemoteTree {
  private readonly files: Snapshot = new Map();
  private readonly links = new Set<string>();
  private readonly leftovers = new Set<string>();
  private readonly records: Entry[] = [];
  /** Our archives modified before this (ms since the epoch) are leftovers. */
  private readonly leftoverBefore: number;
  constructor(readonly matcher: IgnoreMatcher, now = Date.now()) {
    this.leftoverBefore = now - LEFTOVER_MIN_AGE_MS;
  }

  add(entries: FileIndexEntry[]): void {
    for (const raw of entries) {
      const rel = stripSlash(raw.path);
      if (rel === '') continue;
      if (raw.type === 'symlink') {
        this.links.add(rel);
        continue;
      }
      if (raw.type !== 'file') continue;
      // Both names start with ".hostsync": most paths are told apart by their first character.
      const ours = rel.charCodeAt(0) === 0x2e && rel.startsWith('.hostsync');
      if (ours && RECORD_NAME.test(rel)) {
        this.records.push(entryFromIndex(raw, rel));
        continue;
      }
      if (this.matcher.ignores(rel, false)) continue;
      if (!ours || !LEFTOVER.test(rel)) this.files.set(rel, entryFromIndex(raw, rel));
      // A time the server did not give in a form we read: old enough, as before ages were read.
      else if (!(Date.parse(raw.modifiedAt) >= this.leftoverBefore)) this.leftovers.add(rel);
    }
  }

  /** Reads only add: a grouped read covers part of a folder, never all of it. */
  grouped = false;

  /** Forgets everything at or below `dir` (before a fresh index of it replaces it). */
  forget(dir: string): void {
    if (this.grouped) return;
    const prefix = `${dir}/`;
    for (const set of [this.files, this.links, this.leftovers] as const) {
      for (const key of set.keys()) if (key.startsWith(prefix)) set.delete(key);
    }
  }

  has(rel: string): boolean {
    return this.files.has(rel) || this.links.has(rel);
  }

  result(): Pick<RemoteRead, 'snapshot' | 'symlinks' | 'leftovers' | 'record'> {
    const record = this.records.length === 0 ? null : this.records.reduce((a, b) => (b.path < a.path ? b : a));
    return { snapshot: this.files, symlinks: [...this.links].sort(), leftovers: [...this.leftovers].sort(), record };
  }
}

/**
 * The reads of a grouped plan (index-groups.ts), each of the root with the caller's ignore
 * list and the group's own patterns, INDEX_GROUP_READS_AT_ONCE in flight: they do not
 * depend on each other. Their answers are added in the plan's order, whatever order they
 * come back in. One that comes back truncated anyway (the remote holds more than
 * expected) is completed folder by folder under its own patterns.
 */
async function completeGrouped(client: HostingClient, tree: RemoteTree, ignore: string[], plan: IndexGroupsPlan): Promise<void> {
  tree.grouped = true;
  const reads = [...plan.groups, plan.rest].map((extra) => [...ignore, ...extra]);
  const answers: Promise<IndexResult>[] = [];
  let next = 0;
  let failed = false;
  const start = (): void => {
    if (failed || next >= reads.length) return;
    const at = next++;
    answers[at] = client.files.index({ ignore: reads[at]!, hashMaxBytes: INDEX_HASH_MAX_BYTES });
    // The next read starts when one ends; after a failure (thrown in order below) none does.
    answers[at].then(start, () => void (failed = true));
  };
  for (let i = 0; i < INDEX_GROUP_READS_AT_ONCE; i++) start();
  for (let at = 0; at < reads.length; at++) {
    const res = await answers[at]!;
    tree.add(res.entries);
    // Only the folders this read's patterns let in are completed: the others are another read's.
    if (res.truncated) await completeTruncated(client, tree, reads[at]!, '', res.entries, createIgnoreMatcher(reads[at]!));
  }
}

/**
 * A truncated index of `dir` is completed by listing `dir`, indexing each subdirectory
 * on its own (recursively when those are truncated too), and indexing `dir` once more
 * with every subdirectory excluded, for the files directly in it. A file still missing
 * after that (a folder with more direct files than the cap) is indexed on its own.
 */
export async function completeTruncated(
  client: HostingClient,
  tree: RemoteTree,
  ignore: string[],
  dir: string,
  partial: FileIndexEntry[],
  /** Decides which subfolders `ignore` lets in (the caller's matcher unless a read added patterns). */
  enters: IgnoreMatcher = tree.matcher,
): Promise<void> {
  const listing = await client.files.list(dir === '' ? '/' : dir);
  const subdirs: string[] = [];
  const files: string[] = [];
  for (const child of listing.entries) {
    const rel = dir === '' ? child.name : `${dir}/${child.name}`;
    const isDir = child.type === 'directory' || child.type === 'dir' || child.type === 'folder';
    if (isDir) {
      if (!enters.ignores(rel, true)) subdirs.push(rel);
    } else files.push(rel);
  }
  for (const sub of subdirs) {
    const res = await client.files.index({ path: sub, ignore, hashMaxBytes: INDEX_HASH_MAX_BYTES });
    tree.forget(sub);
    tree.add(res.entries);
    if (res.truncated) await completeTruncated(client, tree, ignore, sub, res.entries, enters);
  }
  const known = new Set(partial.map((e) => stripSlash(e.path)));
  if (files.every((f) => known.has(f) || tree.has(f))) return;
  const direct = await client.files.index({
    ...(dir === '' ? {} : { path: dir }),
    ignore: [...ignore, ...subdirs.map(anchored)],
    hashMaxBytes: INDEX_HASH_MAX_BYTES,
  });
  tree.add(direct.entries);
  if (!direct.truncated) return;
  for (const f of files) {
    if (tree.has(f) || enters.ignores(f, false)) continue;
    const one = await client.files.index({ path: f, ignore, hashMaxBytes: INDEX_HASH_MAX_BYTES });
    tree.add(one.entries);
  }
}

/** The deepest folder holding every path ('' for the root), or the path itself when there is one. */
export function scopeOf(paths: readonly string[]): string {
  if (paths.length === 1) return paths[0]!;
  let common = paths[0]?.split('/').slice(0, -1) ?? [];
  for (const p of paths) {
    const parts = p.split('/').slice(0, -1);
    let n = 0;
    while (n < common.length && n < parts.length && common[n] === parts[n]) n++;
    common = common.slice(0, n);
  }
  return common.join('/');
}

/**
 * What the remote holds at `paths` now, by one files.index scoped to their deepest common
 * folder (completed like a full read when truncated). A scope that does not exist means
 * none of the paths exists. Symlinks come back apart, as in readRemote. When the scope is
 * the root and `expected` is given, a truncated answer is completed by grouped reads, as
 * readRemote's (ceil(files / cap) + 2 reads at most), not folder by folder: the re-check
 * before each later part of a 100k-file push would otherwise cost a read per folder.
 */
export async function readRemoteScope(
  client: HostingClient,
  matcher: IgnoreMatcher,
  paths: readonly string[],
  expected?: () => Iterable<string>,
): Promise<Pick<RemoteRead, 'snapshot' | 'symlinks'>> {
  const scope = scopeOf(paths);
  if (scope === '' && expected) {
    const { snapshot, symlinks } = await readRemote(client, matcher, null, expected);
    return { snapshot, symlinks };
  }
  const ignore = [...matcher.patterns];
  const tree = new RemoteTree(matcher);
  try {
    const res = await client.files.index({ ...(scope === '' ? {} : { path: scope }), ignore, hashMaxBytes: INDEX_HASH_MAX_BYTES });
    tree.add(res.entries);
    if (res.truncated) await completeTruncated(client, tree, ignore, scope, res.entries);
  } catch (err) {
    if (!(err instanceof ApiError && err.status === 404)) throw err;
  }
  const { snapshot, symlinks } = tree.result();
  return { snapshot, symlinks };
}

/** The remote side of a command scoped to named paths (pull, diff, resolve). */
export interface ScopedRemoteRead {
  snapshot: Snapshot;
  symlinks: string[];
}

/**
 * R restricted to `paths` (root-relative, normalised), one files.index with `path` per
 * named path, so a named file on a 100k-file tree costs one request, not a walk of the
 * whole remote. Each path is read with the matcher `matcherFor` gives it (the ignore
 * rules, or only the enforced ones for a path the user named although it is ignored).
 * A named path missing on the remote contributes nothing.
 */
export async function readRemotePaths(
  client: HostingClient,
  paths: readonly string[],
  matcherFor: (path: string) => IgnoreMatcher,
): Promise<ScopedRemoteRead> {
  const snapshot: Snapshot = new Map();
  const symlinks = new Set<string>();
  for (const p of paths) {
    const matcher = matcherFor(p);
    const ignore = [...matcher.patterns];
    let res: IndexResult;
    try {
      res = await client.files.index({ ...(p === '' ? {} : { path: p }), ignore, hashMaxBytes: INDEX_HASH_MAX_BYTES });
    } catch (err) {
      if (err instanceof ApiError && err.status === 404) continue;
      throw err;
    }
    const tree = new RemoteTree(matcher);
    tree.add(res.entries);
    if (res.truncated) await completeTruncated(client, tree, ignore, p, res.entries);
    const part = tree.result();
    for (const [k, v] of part.snapshot) snapshot.set(k, v);
    for (const s of part.symlinks) symlinks.add(s);
  }
  return { snapshot, symlinks: [...symlinks].sort() };
}
