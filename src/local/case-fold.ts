/**
 * Names that are one file on a case-insensitive file system (macOS and Windows defaults).
 * A deployment (Linux) may hold `A.txt` and `a.txt`; pulled there, one would overwrite the
 * other. Found before a pull writes anything, folders included (`Docs/x` and `docs/y`
 * would merge into one folder that the next push could not map back).
 */
import { ancestors } from '../model/paths.js';

/** The key two names share when a case-insensitive file system takes them for one. */
export const foldName = (rel: string): string => rel.normalize('NFC').toLowerCase();

/** Pairs of distinct paths (files or their folders) among `paths` that fold to one name, each pair once, sorted. */
export function caseCollisions(paths: Iterable<string>): [string, string][] {
  const seen = new Map<string, string>();
  const pairs = new Map<string, [string, string]>();
  const add = (p: string): void => {
    const k = foldName(p);
    const first = seen.get(k);
    if (first === undefined) seen.set(k, p);
    else if (first !== p) {
      const pair: [string, string] = first < p ? [first, p] : [p, first];
      pairs.set(pair.join('\0'), pair);
    }
  };
  for (const p of paths) {
    add(p);
    for (const d of ancestors(p)) add(d);
  }
  return [...pairs.values()].sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
}

/**
 * Removals a pull must make before its fetches: on a case-insensitive file system a remote
 * case-only rename (Readme.md -> README.md) is a fetch of README.md, which lands on the
 * same file, and a removal of Readme.md, which made after the fetch would delete it.
 */
export function removalsFirst(remove: readonly string[], fetch: readonly string[]): string[] {
  const fetched = new Set(fetch.map(foldName));
  return remove.filter((p) => fetched.has(foldName(p)));
}
