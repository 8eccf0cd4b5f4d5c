/**
 * Three-way reconcile: base B (what the last sync left on the remote), local L, remote R ->
 * what a push does (DESIGN.md "Sync semantics"; that table is the law). Pure: data in, data out.
 *
 * Per path, with "=" meaning entriesEqual (content and executable bit), after the remote
 * entry is resolved (snapshot.ts resolveRemote: hashless big files):
 *   on R only, never in B           -> remote-only: untouched; `mirror` deletes it
 *   L = R                           -> nothing; B takes L (adopted, or both deleted: dropped)
 *   no base at all, L and R differ  -> conflict 'first-push-differs' (L only: a plain write)
 *   L != B, R = B                   -> push L: write / delete / chmod
 *   L = B, R != B                   -> drift: untouched and reported
 *   L != B, R != B, L != R          -> conflict: untouched and reported
 * `force` turns conflicts and drift into pushes of L (listed in `overridden`). Ignored paths
 * never reach this function: the caller filters them out of L and R.
 *
 * Invariants: every path appears in at most one of changes / conflicts / drift / remoteOnly;
 * all lists are sorted by path (code units); nextBase holds exactly what the remote will hold
 * on every path we track once all changes land, and nothing remote-only.
 *
 * Renames are detected here (detectRenames runs on the changes before they are returned), so
 * callers get them already paired; the planner may still send a rename as delete + write
 * when that is cheaper.
 */
import { comparePaths, sortedUnion } from '../../model/paths.js';
import { detectRenames } from './renames.js';
import { entriesEqual, resolveRemote, sameContent, toBaseEntry } from '../../model/snapshot.js';
import { deltaOver, knownEqual, LazySnapshot, withDelta, type DeltaItem } from '../../model/lazy-snapshot.js';
import type {
  Change,
  Conflict,
  ConflictReason,
  Drift,
  Entry,
  PushedElsewhere,
  ReconcileOptions,
  Reconciliation,
  Snapshot,
} from '../../model/types.js';

export function reconcile(
  base: Snapshot | null,
  local: Snapshot,
  remote: Snapshot,
  opts: ReconcileOptions,
): Reconciliation {
  const changes: Change[] = [];
  const conflicts: Conflict[] = [];
  const drift: Drift[] = [];
  const remoteOnly: string[] = [];
  const elsewhere: PushedElsewhere[] = [];
  const overridden: Reconciliation['overridden'] = { conflicts: [], drift: [] };
  // Nothing changed anywhere (a no-op status or watch poll): every path would take the
  // "L = R" branch below, with L = B, so nextBase is the base. Skips sorting 100k paths,
  // and when the scan and the state file already know it (knownEqual), making any entry.
  // Only a few paths changed locally (the scan's delta over the base) and the remote is the
  // base: every other path is L = B = R, which the loop below would carry over unchanged.
  // Those paths alone are compared, and nextBase is the base with theirs changed.
  const delta = base instanceof LazySnapshot && knownEqual(remote, base) && !(opts.elsewhere && opts.elsewhere.size > 0) ? deltaOver(local, base) : null;
  if (base !== null && (delta?.size === 0 || (delta === null && allEqual(base, local, remote)))) {
    return { changes, conflicts, drift, remoteOnly, overridden, nextBase: base instanceof LazySnapshot ? base.copy() : new Map(base) };
  }
  let nextBase: Snapshot = new Map();
  let nextDelta: Map<string, DeltaItem> | null = null;
  let setNext = (path: string, e: Entry): void => void nextBase.set(path, e);
  if (delta !== null) {
    nextDelta = new Map();
    const after = nextDelta;
    setNext = (path, e) => void after.set(path, { local: e, base: after.get(path)!.base });
  }
  const paths: Iterable<string> = delta !== null ? delta.keys() : sortedUnion([local.keys(), remote.keys(), ...(base ? [base.keys()] : [])]);

  for (const path of paths) {
    const d = delta?.get(path);
    const l = d ? (d.local ?? undefined) : local.get(path);
    const b = d ? (d.base ?? undefined) : base?.get(path);
    const listed = d ? b : remote.get(path);
    if (d) nextDelta!.set(path, { local: null, base: b ?? null });
    const r = listed && resolveRemote(listed, b);
    const keepBase = (): void => {
      if (b) setNext(path, toBaseEntry(b));
    };
    const push = (): void => {
      changes.push(localWins(path, l, r));
      if (l) setNext(path, toBaseEntry(l));
    };

    if (r && !l && !b) {
      // Uploads, data, logs the app made: not ours to touch. Checked before "L = B" below,
      // which would otherwise call it drift.
      if (opts.mirror) changes.push({ kind: 'delete', path, base: r });
      else remoteOnly.push(path);
      continue;
    }
    if (entriesEqual(l, r)) {
      if (l) setNext(path, toBaseEntry(l));
      continue;
    }
    if (l && r && sameContent(l, r) && (!b || !sameContent(b, r) || l.executable !== b.executable)) {
      // Same bytes, only the executable bit differs, and the remote's content change (if
      // any) was ours: a write that landed without its chmod (a killed push, an upload
      // that replaced the file). The bit is not content worth a conflict: local's wins.
      // Only a remote that changed nothing but the bit is drift (handled below).
      push();
      continue;
    }
    const other = opts.force ? undefined : opts.elsewhere?.get(path);
    if (other) {
      if (entriesEqual(l, b)) {
        // Another hostsync changed it and this machine did not: theirs stands (a stale copy
        // never reverts it). Landed: reported apart from hand edits; in flight: nothing yet.
        // A write in flight when the record was read that has landed by this read (a push's
        // verifying read during a race) is that push's too, never drift (issue 44, item 13).
        if (entriesEqual(r, other.after)) {
          elsewhere.push({ path, kind: !r ? 'deleted' : b ? 'modified' : 'added', remote: listed ?? null, base: b ?? null, origin: other.origin });
          keepBase();
          continue;
        }
        if (entriesEqual(r, b)) {
          keepBase();
          continue;
        }
      } else if (!other.landed && entriesEqual(l, other.after) && entriesEqual(r, b) && !entriesEqual(l, r)) {
        // The other push's write is not on the deployment: in flight, failed, or landed and
        // undone by hand since. Which, the record cannot tell (record-merge.ts, PENDING_MAX_MS):
        // writing the same bytes could revert a hand revert. Never a write; a conflict.
        conflicts.push({ path, reason: 'pending-elsewhere', local: l ?? null, remote: listed ?? null, base: b ?? null });
        keepBase();
        continue;
      } else if (!entriesEqual(l, other.after) && (entriesEqual(r, b) || entriesEqual(r, other.after))) {
        // Both changed it: a conflict, also while the other push's write has not landed
        // (writing now would race it, and one of the two would be lost unseen).
        conflicts.push({ path, reason: l ? (other.after ? 'both-modified' : 'modify-delete') : 'delete-modify', local: l ?? null, remote: listed ?? null, base: b ?? null });
        keepBase();
        continue;
      }
    }
    const localChanged = base === null || !entriesEqual(l, b);
    const remoteChanged = base === null ? r !== undefined : !entriesEqual(r, b);
    if (!remoteChanged) {
      push();
      continue;
    }
    if (!localChanged) {
      // Never 'added': a remote addition has no base entry, so local (= base) is absent too,
      // and that path was remote-only above.
      const d: Drift = { path, kind: r ? 'modified' : 'deleted', remote: listed ?? null, base: b ?? null };
      if (opts.force) {
        overridden.drift.push(d);
        push();
      } else {
        drift.push(d);
        keepBase();
      }
      continue;
    }
    const c: Conflict = { path, reason: conflictReason(base === null || (opts.adopted === true && !b), l, r), local: l ?? null, remote: listed ?? null, base: b ?? null };
    // A lockfile the deployment's install rewrote, and a new one here: the local one goes up
    // (the install then installs what it locks), as --force would, safety copy included.
    if (opts.force || (l && r && opts.installRewrites?.(path))) {
      overridden.conflicts.push(c);
      push();
    } else {
      conflicts.push(c);
      keepBase();
    }
  }

  if (nextDelta !== null) nextBase = withDelta(base as LazySnapshot, nextDelta);
  return { changes: detectRenames(changes, remote), conflicts, drift, ...(elsewhere.length > 0 ? { elsewhere } : {}), remoteOnly, overridden, nextBase };
}


/**
 * Local and remote hold exactly the base's paths, each entry equal to the base's (a
 * remote entry without a hash is never equal: resolveRemote's presumption is left to
 * the full comparison). Base entries carry only what toBaseEntry keeps, in path order
 * (as the state file loads them), so a copy of the base is exactly the nextBase the
 * full comparison would build.
 */
function allEqual(base: Snapshot, local: Snapshot, remote: Snapshot): boolean {
  if (local.size !== base.size || remote.size !== base.size) return false;
  let prev: string | null = null;
  // A remote read from the state file lists the base's paths in the same order, sharing
  // its entries: walked alongside, it needs no lookup (any other order falls back to one).
  const alongside = remote.entries();
  for (const [path, b] of base) {
    if (prev !== null && comparePaths(prev, path) >= 0) return false;
    prev = path;
    if (b.path !== path || 'text' in b || !entriesEqual(local.get(path), b)) return false;
    const next = alongside.next().value;
    const r = next !== undefined && next[0] === path ? next[1] : remote.get(path);
    if (r !== b && !entriesEqual(r, b)) return false;
  }
  return true;
}

/** The change that makes the remote path equal to local. Precondition: local and remote differ. */
function localWins(path: string, l: Entry | undefined, r: Entry | undefined): Change {
  if (!l) {
    if (!r) throw new Error(`reconcile: nothing to change at ${path}`);
    return { kind: 'delete', path, base: r };
  }
  if (!r) return { kind: 'write', path, entry: l, create: true };
  if (sameContent(l, r)) return { kind: 'chmod', path, executable: l.executable, entry: l };
  return { kind: 'write', path, entry: l, create: false };
}

function conflictReason(firstPush: boolean, l: Entry | undefined, r: Entry | undefined): ConflictReason {
  if (firstPush) return 'first-push-differs';
  if (!l) return 'delete-modify';
  // Both present and different, including "both added, differently" (no base entry).
  return r ? 'both-modified' : 'modify-delete';
}
