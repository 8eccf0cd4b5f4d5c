/**
 * What a push should do, decided from three trees and nothing else: pure, no I/O.
 * push.ts decides once from the first remote read, again after every re-read (an
 * unknown outcome, the verifying read), and acts on each decision at its edges.
 */
import type { Plan, Reconciliation, ReconcileOptions, Snapshot } from '../../model/types.js';
import { guardRemoteSymlinks, keepUnholdable, protectSkipped, unholdable, withoutPaths } from './guards.js';
import { massDeleteGuard, planChanges } from './plan.js';
import { installRewrites } from './install-files.js';
import { reconcile } from './reconcile.js';
import { platformView } from './platform-view.js';
import type { Platform } from '../../local/platform.js';
import { CONFIG_FILE } from '../../config/config-file.js';
import { SYNCIGNORE_FILE } from '../../local/ignore.js';
import { ownedPaths, setAsideOwned, type RemoteOwned } from './remote-owned.js';

export interface DecideInput {
  base: Snapshot | null;
  /** The local scan, as read. */
  scanned: Snapshot;
  /** Paths the scan could not read (see ScanResult.skipped): unknown, never deletions. */
  skipped: readonly string[];
  remote: { snapshot: Snapshot; symlinks: readonly string[] };
  options: ReconcileOptions;
  /** What the local file system can hold (names and executable bits: platform-view.ts); Linux's when absent. */
  platform?: Platform;
  /** The base this copy synced itself (state.base), when `base` was derived from the record or differs: what it may rename by case. */
  ownBase?: Snapshot | null;
  /** The app's data (Session.remoteOwned): set aside on every side before the comparison. Absent: nothing is owned. */
  owned?: RemoteOwned;
}

export interface Decision {
  /** The local tree reconcile compared: the scan, with skipped paths given the remote's (or base's) entry. */
  local: Snapshot;
  rec: Reconciliation;
  plan: Plan;
}

export function decide(input: DecideInput): Decision {
  const view = platformView(input.scanned, input.base, input.remote.snapshot, input.platform);
  const local = protectSkipped(view, input.base, input.remote.snapshot, input.skipped);
  // The app's data is not compared at all, on any side: never written, deleted or moved
  // (not with --force, not with --mirror), its base entries kept, listed apart.
  const owned = input.owned ? ownedPaths(input.owned, [input.remote.snapshot, local, input.base]) : new Set<string>();
  const remote = withoutPaths(input.remote.snapshot, owned);
  const compared = withoutPaths(local, owned);
  // Names this file system cannot hold are not compared at all: never deleted, listed as only on the deployment.
  const hidden = unholdable(remote, compared, input.platform, input.ownBase === undefined ? input.base : input.ownBase);
  const base = input.base === null ? null : withoutPaths(withoutPaths(input.base, owned), hidden);
  const options = input.options.installRewrites ? input.options : { ...input.options, installRewrites: (p: string) => installRewrites(p, compared) };
  const rec0 = reconcile(base, compared, withoutPaths(remote, hidden), options);
  const rec1 = setAsideOwned(keepUnholdable(rec0, hidden, input.base), owned, input.base, input.remote.snapshot);
  const rec = guardRemoteSymlinks(rec1, input.remote.symlinks, input.base);
  return { local, rec, plan: planChanges(rec.changes, input.remote.snapshot) };
}

/**
 * The mass-delete guard's verdict on a decision. Tracked files are the base's (on a first
 * push the remote's), plus the remote-only files a --mirror push deletes: the count a
 * deletion is measured against always includes what it deletes.
 */
export function massDeleteVerdict(
  d: Decision,
  base: Snapshot | null,
  remote: Snapshot,
  /** Deletions already made within watch's window: they count as this plan's, against what was tracked before them. */
  recentDeletes = 0,
): { refuse: boolean; deletes: number; tracked: number } {
  const known = base ?? remote;
  const deleted = new Set(d.rec.changes.flatMap((c) => (c.kind === 'delete' ? [c.path] : [])));
  const extra = [...deleted].filter((p) => !known.has(p)).length;
  let keptConfig = 0;
  for (const p of OWN_CONFIG_NAMES) if (known.has(p) && !deleted.has(p)) keptConfig++;
  return massDeleteGuard(d.rec.changes, known.size + extra + recentDeletes, recentDeletes, keptConfig);
}

/**
 * Files at the synced root that configure hostsync rather than make up the app: what
 * stays of a project whose app was deleted. Env files are never synced, but the examples
 * a `.syncignore` may re-include are (the credential rules keep every other `.env*` local).
 */
const OWN_CONFIG_NAMES = [CONFIG_FILE, SYNCIGNORE_FILE, '.gitignore', '.env.example', '.env.sample', '.env.template'];

/** The guard's verdict, and the decision to act on: deletions it holds are left out of it. */
export interface GuardedDecision {
  decision: Decision;
  guard: { refuse: boolean; deletes: number; tracked: number };
  /** Deletions held back (watch mode); empty unless the guard tripped with `hold`. */
  held: string[];
}

/**
 * The mass-delete guard over a decision. A refusal is the caller's to throw, unless `hold`
 * (watch mode): then the deletions are held, protected like unreadable files (present as
 * they were, never deleted), and `again` decides once more with them protected.
 */
export function guardMassDelete(
  first: Decision,
  again: (protect: readonly string[]) => Decision,
  trees: { base: Snapshot | null; remote: Snapshot },
  opts: { recentDeletes?: number; allow?: boolean; hold?: boolean },
): GuardedDecision {
  const guard = massDeleteVerdict(first, trees.base, trees.remote, opts.recentDeletes ?? 0);
  if (!guard.refuse || opts.allow || !opts.hold) return { decision: first, guard, held: [] };
  const held = first.rec.changes.flatMap((c) => (c.kind === 'delete' ? [c.path] : []));
  return { decision: again(held), guard, held };
}
