/**
 * Git-style rename detection: a delete of X plus a write creating Y with the same content
 * (hash and size) becomes one rename X -> Y, so the bytes are not sent again.
 *
 * Rules, and why:
 * - Content must be known on both sides (non-null hash) and non-empty: every empty file has
 *   the same hash, and writing one costs no bytes, so pairing empty files saves nothing.
 * - Each source is used at most once. Pairing is deterministic, in three passes over the
 *   targets in path order: same file name first (a moved folder), then same directory (an
 *   in-place rename, including case-only ones like Readme.md -> README.md), then anything;
 *   within a pass the lexicographically first free source wins.
 * - files.rename fails when the target exists, and renames run after the plan's deletes
 *   and before its writes, one by one in no promised order. So a target is refused when:
 *     it is a directory on the remote (deletes remove files, never folders, so the folder
 *     outlives its files), or
 *     one of its ancestors is a remote file the delete step does not remove.
 *   A deleted file X with a created path under X/ (file -> directory) is never a source: it
 *   must be gone, by the delete step, before anything lands under it.
 * - The executable bit is not compared: a rename keeps the source's remote mode and the
 *   planner adds the chmod when local differs.
 */
import { targetOf } from '../../model/change.js';
import { ancestors, baseName, comparePaths, parentDir } from '../../model/paths.js';
import type { Change, Snapshot } from '../../model/types.js';

type Delete = Extract<Change, { kind: 'delete' }>;
type Write = Extract<Change, { kind: 'write' }>;

/**
 * Returns `changes` with each pairable delete + create write replaced by one rename, sorted by
 * path (a rename by its target). Changes already renames pass through; calling it twice is
 * harmless. `remote` is the remote snapshot the changes were computed against.
 */
export function detectRenames(changes: Change[], remote: Snapshot): Change[] {
  const deletes = changes.filter((c): c is Delete => c.kind === 'delete');
  const creates = changes.filter((c): c is Write => c.kind === 'write' && c.create);
  // Nothing to pair: skip indexing every remote folder (100k paths on a no-op).
  if (deletes.length === 0 || creates.length === 0) return [...changes].sort((a, b) => comparePaths(changePath(a), changePath(b)));

  const deleted = new Set(deletes.map((d) => d.path));
  const underCreates = new Set(creates.flatMap((w) => ancestors(w.path)));
  // Every remote folder, made only for a create that has a source to pair with (a delete
  // and an unrelated create at 100k files would otherwise index 100k paths).
  let remoteDirs: Set<string> | null = null;

  const key = (hash: string, size: number): string => `${hash}:${size}`;
  const sourcesByKey = new Map<string, string[]>();
  for (const d of deletes) {
    // Empty sources need no check here: targets exclude empty files, so they never match.
    if (d.base.hash === null || underCreates.has(d.path)) continue;
    const k = key(d.base.hash, d.base.size);
    const list = sourcesByKey.get(k) ?? [];
    list.push(d.path);
    sourcesByKey.set(k, list);
  }
  for (const list of sourcesByKey.values()) list.sort(comparePaths);

  const targetFree = (path: string): boolean =>
    !remote.has(path) &&
    !(remoteDirs ??= new Set([...remote.keys()].flatMap(ancestors))).has(path) &&
    ancestors(path).every((dir) => !remote.has(dir) || deleted.has(dir));
  const targets = creates
    .filter((w) => w.entry.hash !== null && w.entry.size > 0 && sourcesByKey.has(key(w.entry.hash, w.entry.size)) && targetFree(w.path))
    .sort((a, b) => comparePaths(a.path, b.path));

  const used = new Set<string>();
  const pairs = new Map<string, string>(); // target -> source
  const passes: Array<(from: string, to: string) => boolean> = [
    (from, to) => baseName(from) === baseName(to),
    (from, to) => parentDir(from) === parentDir(to),
    () => true,
  ];
  for (const fits of passes) {
    for (const w of targets) {
      if (pairs.has(w.path)) continue;
      const candidates = sourcesByKey.get(key(w.entry.hash as string, w.entry.size)) ?? [];
      const from = candidates.find((src) => !used.has(src) && fits(src, w.path));
      if (from === undefined) continue;
      used.add(from);
      pairs.set(w.path, from);
    }
  }

  const out: Change[] = [];
  for (const c of changes) {
    if (c.kind === 'delete' && used.has(c.path)) continue;
    if (c.kind === 'write' && c.create && pairs.has(c.path)) {
      out.push({ kind: 'rename', from: pairs.get(c.path) as string, to: c.path, entry: c.entry });
      continue;
    }
    out.push(c);
  }
  return out.sort((a, b) => comparePaths(changePath(a), changePath(b)));
}

/** The remote path a change produces or removes: a rename sorts by its target. */
export const changePath = targetOf;
