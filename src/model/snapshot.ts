/**
 * Equality of entries as the sync semantics define it, and the shapes a base snapshot stores.
 *
 * Two entries are equal when their content is (same size and same known hash) and their
 * executable bit is. Other mode bits never travel, so they never make entries differ.
 */
import type { Entry, Snapshot } from './types.js';
import { knownEqual } from './lazy-snapshot.js';

/**
 * Same bytes. Size is the cheap pre-check (different sizes prove different content); a null
 * hash proves nothing, so content with an unknown hash is never "the same" as anything.
 */
export function sameContent(a: Entry, b: Entry): boolean {
  return a.size === b.size && a.hash !== null && a.hash === b.hash;
}

/** Both absent, or both present with the same content and executable bit. */
export function entriesEqual(a: Entry | null | undefined, b: Entry | null | undefined): boolean {
  if (!a || !b) return !a && !b;
  return a.executable === b.executable && sameContent(a, b);
}

/** What a base snapshot keeps of an entry: `text` is a local-only attribute. */
export function toBaseEntry(entry: Entry): Entry {
  return { path: entry.path, hash: entry.hash, size: entry.size, executable: entry.executable };
}

/**
 * The remote entry as reconcile compares it.
 *
 * files.index lists files above hashMaxBytes without a hash. Such a file whose size still
 * equals the base entry's, when the base knows its hash, is presumed unchanged since the last
 * sync and takes the base's hash: so it equals local exactly when local still equals the base,
 * and a local edit of it is a plain push rather than a conflict. Any other hashless remote
 * file (no base entry, base hash unknown, or a different size) keeps hash null and so
 * differs from every entry: it ends as a conflict or drift, never as a silent "equal".
 * The presumption misses only a same-size rewrite of a file too big to hash.
 */
export function resolveRemote(remote: Entry, base: Entry | undefined): Entry {
  if (remote.hash !== null || !base || base.hash === null || base.size !== remote.size) return remote;
  return { ...remote, hash: base.hash };
}

/** Two snapshots hold the same paths with equal entries (content, size and executable bit). */
export function snapshotsEqual(a: Snapshot | null, b: Snapshot | null): boolean {
  if (a === null || b === null) return a === b;
  if (a.size !== b.size) return false;
  if (knownEqual(a, b)) return true;
  for (const [p, e] of a) {
    const o = b.get(p);
    if (!o || o.size !== e.size || !entriesEqual(e, o)) return false;
  }
  return true;
}
