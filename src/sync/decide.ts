/**
 * What a push should do, decided from three trees and nothing else: pure, no I/O.
 * push.ts decides once from the first remote read, again after every re-read (an
 * unknown outcome, the verifying read), and acts on each decision at its edges.
 */
import type { Plan, Reconciliation, ReconcileOptions, Snapshot } from '../model/types.js';
import { guardRemoteSymlinks, protectSkipped } from './guards.js';
import { massDeleteGuard, planChanges } from './plan.js';
import { reconcile } from './reconcile.js';

export interface DecideInput {
  base: Snapshot | null;
  /** The local scan, as read. */
  scanned: Snapshot;
  /** Paths the scan could not read (see ScanResult.skipped): unknown, never deletions. */
  skipped: readonly string[];
  remote: { snapshot: Snapshot; symlinks: readonly string[] };
  options: ReconcileOptions;
}

export interface Decision {
  /** The local tree reconcile compared: the scan, with skipped paths given the remote's (or base's) entry. */
  local: Snapshot;
  rec: Reconciliation;
  plan: Plan;
}

export function decide(input: DecideInput): Decision {
  const local = protectSkipped(input.scanned, input.base, input.remote.snapshot, input.skipped);
  const rec = guardRemoteSymlinks(reconcile(input.base, local, input.remote.snapshot, input.options), input.remote.symlinks, input.base);
  return { local, rec, plan: planChanges(rec.changes, input.remote.snapshot) };
}

/**
 * The mass-delete guard's verdict on a decision. Tracked files are the base's (on a first
 * push the remote's), plus the remote-only files a --mirror push deletes: the count a
 * deletion is measured against always includes what it deletes.
 */
export function massDeleteVerdict(d: Decision, base: Snapshot | null, remote: Snapshot): { refuse: boolean; deletes: number; tracked: number } {
  const known = base ?? remote;
  const extra = d.rec.changes.filter((c) => c.kind === 'delete' && !known.has(c.path)).length;
  return massDeleteGuard(d.rec.changes, known.size + extra);
}
