/**
 * The paths a user names on the command line (`hostsync pull data/db.json src`): where
 * they point inside the root, and which ignore rules apply beneath them.
 *
 * A named path that the ignore rules exclude (itself or a folder above it) is "lifted":
 * the user asked for it by name, so only the enforced rules (`.hostsync/`, credentials
 * not listed in "sendSecrets", the env file) apply at and below it. A named path the
 * rules do not exclude keeps them for everything beneath it.
 */
import path from 'node:path';
import { usageError } from '../errors.js';
import { ancestors } from '../model/paths.js';
import { NAMED_PATH_PATTERNS, createIgnoreMatcher, type IgnoreMatcher } from '../local/ignore.js';
import { wireRelative } from '../local/platform-paths.js';
import type { Snapshot } from '../model/types.js';

/**
 * Root-relative POSIX paths ('' for the root itself), deduplicated, a path inside another
 * named one dropped. A relative path is taken from `cwd` when that lies inside the root
 * (as git does), else from the root. A path outside the root is a usage error.
 */
export function namedPaths(root: string, cwd: string, raw: readonly string[]): string[] {
  const absRoot = path.resolve(root);
  const base = isInside(absRoot, path.resolve(cwd)) ? path.resolve(cwd) : absRoot;
  const rels = raw.map((p) => {
    const rel = wireRelative(absRoot, path.resolve(base, p));
    if (rel === null) throw usageError(`${p} is outside the project directory ${absRoot}: name a path inside it`);
    return rel;
  });
  const sorted = [...new Set(rels)].sort((a, b) => a.length - b.length);
  const kept: string[] = [];
  for (const r of sorted) if (!kept.some((k) => within(r, k))) kept.push(r);
  return kept.sort();
}

function isInside(root: string, p: string): boolean {
  const rel = path.relative(root, p);
  return rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel));
}

/** `rel` is `scope` or lies beneath it ('' is the whole tree). */
export function within(rel: string, scope: string): boolean {
  return scope === '' || rel === scope || rel.startsWith(`${scope}/`);
}

export const inScope = (rel: string, scopes: readonly string[]): boolean => scopes.some((s) => within(rel, s));

/** The entries of `snap` inside the scopes. */
export function restrict(snap: Snapshot, scopes: readonly string[]): Snapshot {
  const out: Snapshot = new Map();
  for (const [k, v] of snap) if (inScope(k, scopes)) out.set(k, v);
  return out;
}

/** The named path is excluded by the ignore rules, itself or through a folder above it. */
export function isLifted(matcher: IgnoreMatcher, named: string): boolean {
  if (named === '') return false;
  return matcher.ignores(named, false) || matcher.ignores(named, true) || ancestors(named).some((a) => a !== '' && matcher.ignores(a, true));
}

const enforcedDefault = createIgnoreMatcher(NAMED_PATH_PATTERNS);
const enforcedOf = (matcher: IgnoreMatcher): IgnoreMatcher => matcher.enforced ?? enforcedDefault;

/** The matcher a named path is read with, locally and remotely. */
export const matcherFor = (matcher: IgnoreMatcher, named: string): IgnoreMatcher => (isLifted(matcher, named) ? enforcedOf(matcher) : matcher);

/**
 * One matcher for a local walk of the named paths: enforced rules only below a lifted
 * path, never excluding a folder on the way to a named path, the usual rules elsewhere.
 */
export function scopedMatcher(matcher: IgnoreMatcher, scopes: readonly string[]): IgnoreMatcher {
  const lifted = scopes.filter((s) => isLifted(matcher, s));
  const enforcedOnly = enforcedOf(matcher);
  return {
    patterns: matcher.patterns,
    ignores(rel, isDir) {
      if (lifted.some((s) => within(rel, s))) return enforcedOnly.ignores(rel, isDir);
      if (isDir && scopes.some((s) => s !== rel && within(s, rel))) return enforcedOnly.ignores(rel, isDir);
      return matcher.ignores(rel, isDir);
    },
  };
}
