import { pathsOf } from '../../model/change.js';
import type { Reconciliation, Snapshot } from '../../model/types.js';

/**
 * The base to store after a push, from a reconcile against the VERIFIED remote:
 * paths that agree (L = R) are in nextBase already; a change still pending (it did not
 * land, or failed) keeps its old base entry, so the next push plans it again rather
 * than mistaking it for remote drift.
 *
 * With nothing pending it is `verified.nextBase` itself, not a copy (a no-op push at 100k
 * files would make every entry of a base kept unmade, and then of the saved base to compare
 * them: ~0.5 s of CPU). The caller copies it before changing it.
 */
export function settleBase(oldBase: Snapshot | null, verified: Reconciliation): Snapshot {
  if (verified.changes.length === 0) return verified.nextBase;
  const base: Snapshot = new Map(verified.nextBase);
  for (const change of verified.changes) keepOldEntries(base, oldBase, pathsOf(change));
  return base;
}

/** Puts back the old base entries of `paths` (or removes them when they had none): they stay pending. */
export function keepOldEntries(base: Snapshot, oldBase: Snapshot | null, paths: readonly string[]): void {
  for (const p of paths) {
    const old = oldBase?.get(p);
    if (old) base.set(p, old);
    else base.delete(p);
  }
}
