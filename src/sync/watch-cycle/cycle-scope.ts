/**
 * The part of the tree one watch cycle looks at: the paths its batch touched plus the
 * writes still waiting for verification. Pure path logic; remote-read.ts turns a Scope
 * into one files.index request.
 *
 * A scope is a set of roots (files or folders, relative POSIX paths, never ''); a path is
 * in scope when it is a root or lies below one. The remote is read through the smallest
 * folder holding every root (`dir`), and inside it only the roots are entered: the index
 * request carries gitignore "allow-list" patterns (ignore everything, re-include the
 * roots and their parent folders), so a one-file edit reads one file and its parents'
 * listings, whatever the size of the tree around it.
 */
import { ancestors, comparePaths, parentDir } from '../../model/paths.js';
import { countBelow } from '../../model/tree-snapshot.js';
import type { Snapshot } from '../../model/types.js';

export interface Scope {
  /** Sorted; none lies below another. */
  roots: string[];
  /** The deepest folder holding every root ('' = the volume root). */
  dir: string;
}

const clean = (p: string): string => p.replace(/^\/+/, '').replace(/\/+$/, '');

/** The scope covering `paths`; null when one of them is the root itself (the whole tree). */
export function scopeOf(paths: Iterable<string>): Scope | null {
  const sorted = [...new Set([...paths].map(clean))].sort(comparePaths);
  if (sorted.length === 0) return { roots: [], dir: '' };
  if (sorted.includes('')) return null;
  const roots: string[] = [];
  for (const p of sorted) {
    // Sorted by code unit, a path's descendants follow it, possibly after siblings such as
    // "a-b" sorting between "a" and "a/x": test against every kept root's prefix.
    if (roots.some((r) => p.startsWith(`${r}/`))) continue;
    roots.push(p);
  }
  return { roots, dir: commonDir(roots) };
}

function commonDir(roots: readonly string[]): string {
  let dir = parentDir(roots[0]!);
  for (const r of roots) {
    while (dir !== '' && r !== dir && !r.startsWith(`${dir}/`)) dir = parentDir(dir);
  }
  // A single root that is itself a folder is still read through its parent: whether it is
  // a file or a folder (or missing) on the remote is what the read finds out.
  return dir;
}

export function inScope(scope: Scope, path: string): boolean {
  return scope.roots.some((r) => path === r || path.startsWith(`${r}/`));
}

/** True for a folder above some root: a symlink there would redirect writes into the scope. */
export function aboveScope(scope: Scope, path: string): boolean {
  return scope.roots.some((r) => r.startsWith(`${path}/`));
}

/** The entries of `snapshot` inside the scope. */
export function restrict(snapshot: Snapshot | null, scope: Scope): Snapshot {
  const out: Snapshot = new Map();
  if (!snapshot) return out;
  if (scope.roots.length * 8 < snapshot.size) {
    // Few roots, big tree: probe the roots, then pass over the tree only for roots with
    // something beneath them (a TreeSnapshot knows; for a file root it is nothing).
    for (const r of scope.roots) {
      const e = snapshot.get(r);
      if (e) out.set(r, e);
    }
    const prefixes = scope.roots.filter((r) => countBelow(snapshot, r) !== 0).map((r) => `${r}/`);
    if (prefixes.length > 0) for (const [p, e] of snapshot) if (prefixes.some((x) => p.startsWith(x))) out.set(p, e);
    return out;
  }
  for (const [p, e] of snapshot) if (inScope(scope, p)) out.set(p, e);
  return out;
}

/** Escapes a path for a gitignore pattern: glob characters, and trailing spaces (which gitignore trims). */
function escapeGlob(rel: string): string {
  return rel.replace(/([\\*?[\]])/g, '\\$1').replace(/ (?= *$)/g, '\\ ');
}

/**
 * Gitignore patterns (volume-relative, anchored) that leave only the scope's roots
 * visible: "ignore every child of each parent folder, re-include the one on the way".
 * Later patterns win, so the caller appends the user's ignore list after these, and an
 * ignored folder inside a root is still not entered.
 */
export function allowListPatterns(scope: Scope): string[] {
  const parents = new Set<string>();
  for (const r of scope.roots) for (const a of ancestors(r)) parents.add(a);
  const byDepth = [...parents].sort((a, b) => a.split('/').length - b.split('/').length || comparePaths(a, b));
  const out = ['/*'];
  for (const d of byDepth) out.push(`!/${escapeGlob(d)}/`, `/${escapeGlob(d)}/*`);
  for (const r of scope.roots) out.push(`!/${escapeGlob(r)}`);
  return out;
}
