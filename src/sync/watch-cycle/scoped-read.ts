/**
 * R inside a Scope (cycle-scope.ts) in one files.index request: `path` is the scope's common
 * folder, `ignore` the scope's allow-list followed by the user's patterns. A truncated
 * answer is completed folder by folder (remote-read.ts completeTruncated), never taken
 * as the whole scope. A repeated request for the same scope sends the digest of the last
 * answer, so an unchanged scope costs one request and no entries.
 */
import { INDEX_HASH_MAX_BYTES, SCOPED_READ_CACHE_ENTRIES } from '../tunables.js';
import { createIgnoreMatcher, type IgnoreMatcher } from '../../local/ignore.js';
import type { HostingClient } from '../../remote/client.js';
import { ApiError } from '../../remote/errors.js';
import type { Snapshot } from '../../model/types.js';
import { completeTruncated, RemoteTree } from '../remote-read/remote-read.js';
import { aboveScope, allowListPatterns, inScope, restrict, type Scope } from './cycle-scope.js';

export interface ScopedRead {
  /** Regular files inside the scope. */
  snapshot: Snapshot;
  /** Symlinks inside the scope or on a folder above one of its roots. */
  symlinks: string[];
}

interface Cached {
  digest: string;
  read: ScopedRead;
}

export class ScopedReader {
  /** Request (path + patterns) -> its last answer; insertion order is the LRU order. */
  private readonly cache = new Map<string, Cached>();

  constructor(
    private readonly client: HostingClient,
    private readonly matcher: IgnoreMatcher,
  ) {}

  async read(scope: Scope): Promise<ScopedRead> {
    if (scope.roots.length === 0) return { snapshot: new Map(), symlinks: [] };
    const ignore = [...allowListPatterns(scope), ...this.matcher.patterns];
    try {
      return await this.readAt(scope, scope.dir, ignore);
    } catch (err) {
      // The common folder is new (not on the remote yet) or a file there: read from the
      // root, through the same allow-list, which never names a missing path.
      if (scope.dir === '' || !(err instanceof ApiError) || (err.status !== 404 && err.status !== 400)) throw err;
      return this.readAt(scope, '', ignore);
    }
  }

  private async readAt(scope: Scope, dir: string, ignore: string[]): Promise<ScopedRead> {
    const key = JSON.stringify([dir, ignore]);
    const cached = this.cache.get(key);
    const res = await this.client.files.index({
      ...(dir === '' ? {} : { path: dir }),
      ignore,
      hashMaxBytes: INDEX_HASH_MAX_BYTES,
      ...(cached ? { digest: cached.digest } : {}),
    });
    if (res.unchanged && cached) {
      this.remember(key, cached);
      return cached.read;
    }
    // The tree filters with the user's patterns AND the allow-list, so completing a
    // truncated answer never descends into folders outside the scope.
    const tree = new RemoteTree(createIgnoreMatcher(ignore));
    tree.add(res.entries);
    if (res.truncated) await completeTruncated(this.client, tree, ignore, dir, res.entries);
    const all = tree.result();
    // The user's own `!` patterns come last and may re-include paths outside the scope: dropped here.
    const snapshot = restrict(all.snapshot, scope);
    for (const [p] of snapshot) if (this.matcher.ignores(p, false)) snapshot.delete(p);
    const read: ScopedRead = { snapshot, symlinks: all.symlinks.filter((l) => inScope(scope, l) || aboveScope(scope, l)) };
    this.remember(key, { digest: res.digest, read });
    return read;
  }

  private remember(key: string, value: Cached): void {
    this.cache.delete(key);
    this.cache.set(key, value);
    while (this.cache.size > SCOPED_READ_CACHE_ENTRIES) this.cache.delete(this.cache.keys().next().value!);
  }
}
