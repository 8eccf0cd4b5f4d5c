/**
 * Three-way reconcile for a pull: reconcile.ts in reverse. Base B, local L, remote R ->
 * what a pull does to the LOCAL tree. Pure: data in, data out.
 *
 * Per path, with "=" meaning entriesEqual (content and executable bit):
 *   L = R                           -> nothing; B takes R (adopted, or both deleted: dropped)
 *   on R only, never in B           -> fetch (a file the app or a hot-fix made)
 *   on L only, never in B           -> local-only: untouched (push sends it)
 *   L != B, R = B                   -> local change: untouched (push sends it)
 *   L = B, R != B                   -> take R: fetch, chmod, or remove the local file
 *   no base at all, L and R differ  -> conflict 'first-push-differs'
 *   L != B, R != B, L != R          -> conflict: untouched and reported
 * `force` turns conflicts into takes of R (listed in `overridden`).
 * A remote file below a folder that is a file here, which the pull does not remove (the
 * local file was edited, or never synced), cannot land: a conflict 'file-folder'.
 *
 * Invariants: every path appears in at most one of fetch / remove / chmod / conflicts /
 * localOnly; lists are sorted by path; nextBase holds, for every path considered, what
 * the remote holds once the pull lands, except where a conflict or local change keeps
 * the old base entry (so push still sees them as local changes).
 */
import { ancestors, sortedUnion } from '../../model/paths.js';
import { entriesEqual, resolveRemote, sameContent, toBaseEntry } from '../../model/snapshot.js';
import type { Conflict, ConflictReason, Entry, Snapshot } from '../../model/types.js';

export interface PullReconciliation {
  /** Remote files to bring down (new or changed content). */
  fetch: Entry[];
  /** Local files the remote deleted (and local did not change since the base). */
  remove: string[];
  /** Same content, the remote changed only the executable bit. */
  chmod: { path: string; executable: boolean }[];
  conflicts: Conflict[];
  /** With `force`: conflicts the remote side overrode (their actions are in fetch/remove/chmod). */
  overridden: Conflict[];
  /** Paths changed locally since the base, which a pull leaves for push. */
  localChanges: string[];
  nextBase: Snapshot;
}

export function reconcilePull(base: Snapshot | null, local: Snapshot, remote: Snapshot, opts: { force: boolean }): PullReconciliation {
  const out: PullReconciliation = { fetch: [], remove: [], chmod: [], conflicts: [], overridden: [], localChanges: [], nextBase: new Map() };
  for (const path of sortedUnion([local.keys(), remote.keys(), ...(base ? [base.keys()] : [])])) {
    const l = local.get(path);
    const b = base?.get(path);
    const listed = remote.get(path);
    const r = listed && resolveRemote(listed, b);
    const keepBase = (): void => {
      if (b) out.nextBase.set(path, toBaseEntry(b));
    };
    const take = (): void => {
      takeRemote(out, path, l, r);
      if (r) out.nextBase.set(path, toBaseEntry(r));
    };

    if (entriesEqual(l, r)) {
      if (r) out.nextBase.set(path, toBaseEntry(r));
      continue;
    }
    if (r && !l && !b) {
      take();
      continue;
    }
    if (l && !r && !b) {
      out.localChanges.push(path);
      continue;
    }
    const localChanged = base === null || !entriesEqual(l, b);
    const remoteChanged = base === null || !entriesEqual(r, b);
    if (!localChanged) {
      take();
      continue;
    }
    if (!remoteChanged) {
      out.localChanges.push(path);
      keepBase();
      continue;
    }
    const c: Conflict = { path, reason: conflictReason(base === null, l, r), local: l ?? null, remote: listed ?? null, base: b ?? null };
    if (opts.force) {
      out.overridden.push(c);
      take();
    } else {
      out.conflicts.push(c);
      keepBase();
    }
  }
  if (out.fetch.length > 0) blockedByLocalFiles(out, local, base);
  return out;
}

/** Moves each fetch whose folder is a local file that stays (see the header) to the conflicts. */
function blockedByLocalFiles(out: PullReconciliation, local: Snapshot, base: Snapshot | null): void {
  const removed = new Set(out.remove);
  const blocked = (p: string): boolean => ancestors(p).some((dir) => local.has(dir) && !removed.has(dir));
  if (!out.fetch.some((e) => blocked(e.path))) return;
  const kept: Entry[] = [];
  for (const e of out.fetch) {
    if (!blocked(e.path)) {
      kept.push(e);
      continue;
    }
    const b = base?.get(e.path);
    out.conflicts.push({ path: e.path, reason: 'file-folder', local: null, remote: e, base: b ?? null });
    out.overridden = out.overridden.filter((c) => c.path !== e.path);
    if (b) out.nextBase.set(e.path, toBaseEntry(b));
    else out.nextBase.delete(e.path);
  }
  out.fetch = kept;
  out.conflicts.sort((x, y) => (x.path < y.path ? -1 : x.path > y.path ? 1 : 0));
}

/** The local action that makes `path` equal to the remote. Precondition: they differ. */
function takeRemote(out: PullReconciliation, path: string, l: Entry | undefined, r: Entry | undefined): void {
  if (!r) out.remove.push(path);
  else if (l && sameContent(l, r)) out.chmod.push({ path, executable: r.executable });
  else out.fetch.push(r);
}

function conflictReason(firstSync: boolean, l: Entry | undefined, r: Entry | undefined): ConflictReason {
  if (firstSync) return 'first-push-differs';
  if (!l) return 'delete-modify';
  return r ? 'both-modified' : 'modify-delete';
}
