/**
 * App data is the app's. The paths hostsync.json "remoteOwned" names (gitignore-style: a
 * bot's `data/`, `*.sqlite`) belong to the deployment: the running app writes them, and
 * a copy on this machine is a developer's test data, never the deployment's. hostsync
 * never writes, deletes, reverts or moves them there: push (also --force and --mirror),
 * a watch cycle, undo and a later rollback leave them out of every comparison, and a
 * whole-tree pull leaves the local copy alone; a pull that names one brings it down.
 *
 * This module is the one answer to "is this path the deployment's?": the matcher is built
 * once per session (Session.remoteOwned) and every place that decides asks it (decide.ts,
 * undo-plan.ts, pull.ts). Matching is case-insensitive like the ignore rules (the `ignore`
 * package): a doubt falls on the side of leaving a file alone. Patterns are matched against
 * file paths relative to the synced folder ("dir" when set).
 *
 * files.index still lists these paths (status names them), and the reads that verify a push
 * see them change under the running app: set aside before the comparison, such a change is
 * never drift, a conflict, or a write that failed to verify.
 */
import { createIgnoreMatcher } from '../../local/ignore.js';
import type { Reconciliation, Snapshot } from '../../model/types.js';
import { keepOldEntries } from './settle.js';
import { withoutPaths } from './guards.js';
import { comparePaths } from '../../model/paths.js';
import { within } from '../scope.js';

export interface RemoteOwned {
  /** The patterns, as hostsync.json lists them (empty: nothing is owned). */
  readonly patterns: readonly string[];
  /** Whether the file at `path` (POSIX, relative to the synced folder) is the deployment's. */
  owns(path: string): boolean;
}

/** Nothing is the deployment's: no pattern, and no cost. */
export const NOTHING_OWNED: RemoteOwned = Object.freeze({ patterns: Object.freeze([]), owns: () => false });

/** The matcher over hostsync.json "remoteOwned" (validated by config.ts): build it once per session. */
export function remoteOwnedMatcher(patterns: readonly string[]): RemoteOwned {
  if (patterns.length === 0) return NOTHING_OWNED;
  const matcher = createIgnoreMatcher(patterns);
  return { patterns: Object.freeze([...patterns]), owns: (p) => matcher.ignores(p, false) };
}

const EMPTY: ReadonlySet<string> = new Set();

/** The paths of any of `trees` that `owned` owns (no tree walked when nothing is owned). */
export function ownedPaths(owned: RemoteOwned, trees: readonly (Snapshot | null | undefined)[]): ReadonlySet<string> {
  if (owned.patterns.length === 0) return EMPTY;
  const out = new Set<string>();
  for (const tree of trees) {
    if (!tree) continue;
    for (const p of tree.keys()) if (!out.has(p) && owned.owns(p)) out.add(p);
  }
  return out.size === 0 ? EMPTY : out;
}

/**
 * A reconciliation that did not see the owned paths (`set`): each keeps its base entry as it
 * was (the sync state never learns the app's writes, so nothing about them reaches the base
 * record either), and those on the deployment are listed in `remoteOwned`, never in
 * `remoteOnly` (which --mirror deletes).
 */
export function setAsideOwned(rec: Reconciliation, set: ReadonlySet<string>, base: Snapshot | null, remote: Snapshot): Reconciliation {
  if (set.size === 0) return rec;
  const nextBase: Snapshot = new Map(rec.nextBase);
  keepOldEntries(nextBase, base, [...set]);
  const remoteOwned = [...set].filter((p) => remote.has(p)).sort(comparePaths);
  return { ...rec, remoteOwned, nextBase };
}

/**
 * Whether a pull that names `named` (root-relative paths; null or '' for the whole tree)
 * brings the owned `path` down: only a named path at or above it, never the whole tree.
 */
export function pullNames(path: string, named: readonly string[] | null): boolean {
  return named !== null && named.some((n) => n !== '' && within(path, n));
}

/** The three trees a pull compares, without the owned paths it does not name, and those paths. */
export function leaveOwnedForPull<T extends { base: Snapshot | null; local: Snapshot; remote: Snapshot }>(
  trees: T,
  owned: RemoteOwned,
  named: readonly string[] | null,
): { trees: T; left: string[] } {
  const set = ownedPaths(owned, [trees.remote, trees.local, trees.base]);
  const left = [...set].filter((p) => !pullNames(p, named)).sort(comparePaths);
  if (left.length === 0) return { trees, left };
  const gone = new Set(left);
  const drop = (snap: Snapshot): Snapshot => withoutPaths(snap, gone);
  return { trees: { ...trees, base: trees.base && drop(trees.base), local: drop(trees.local), remote: drop(trees.remote) }, left };
}

/** Puts back in a pull's next base the base entries of the owned paths it left (`left`): the pull never saw them. */
export function keepLeftBase(nextBase: Snapshot, base: Snapshot | null, left: readonly string[]): void {
  keepOldEntries(nextBase, base, left);
}
