/**
 * Pure safety rules applied around reconcile, for what the three-way table cannot see:
 * paths the local scan could not read, and symlinks on the remote.
 */
import { pathsOf, targetOf } from '../../model/change.js';
import { ancestors, comparePaths } from '../../model/paths.js';
import { keepOldEntries } from './settle.js';
import type { Change, Conflict, Reconciliation, Snapshot } from '../../model/types.js';
import { foldName } from '../../local/case-fold.js';
import { windowsNameProblem } from '../../local/windows-names.js';
import type { Platform } from '../../local/platform.js';

/**
 * A path the scan skipped (a link, a special or unreadable file, an unreadable folder
 * ending in "/") is unknown, not deleted. It is given the remote's entry (or else the
 * base's), so reconcile sees nothing to do there and never deletes it, not even with
 * --mirror. Returns a new snapshot; `local` is not modified.
 */
export function protectSkipped(local: Snapshot, base: Snapshot | null, remote: Snapshot, skipped: readonly string[]): Snapshot {
  if (skipped.length === 0) return local;
  const files = new Set(skipped.filter((s) => !s.endsWith('/')));
  const dirs = skipped.filter((s) => s.endsWith('/'));
  const covered = (p: string): boolean => files.has(p) || dirs.some((d) => d === '/' || p.startsWith(d));
  const out: Snapshot = new Map(local);
  for (const source of [base ?? new Map(), remote] as Snapshot[]) {
    for (const [p, e] of source) if (covered(p)) out.set(p, e);
  }
  return out;
}

/** Where a change would write (delete and rename-from remove the link itself, which is safe). */
const writeTarget = (c: Change): string | null => (c.kind === 'delete' ? null : targetOf(c));

/**
 * A change that would write to a remote symlink, or below a symlinked folder, would land
 * wherever the link points: it becomes a conflict ('remote-symlink') and its base entry
 * stays as it was. A rename whose target is refused is dropped whole (its source stays).
 */
export function guardRemoteSymlinks(rec: Reconciliation, symlinks: readonly string[], base: Snapshot | null): Reconciliation {
  if (symlinks.length === 0) return rec;
  const links = new Set(symlinks);
  const blocked = (p: string): boolean => links.has(p) || ancestors(p).some((a) => links.has(a));
  const changes: Change[] = [];
  const conflicts: Conflict[] = [...rec.conflicts];
  const nextBase: Snapshot = new Map(rec.nextBase);
  for (const c of rec.changes) {
    const target = writeTarget(c);
    if (target === null || !blocked(target)) {
      changes.push(c);
      continue;
    }
    const local = c.kind === 'write' || c.kind === 'chmod' || c.kind === 'rename' ? c.entry : null;
    conflicts.push({ path: target, reason: 'remote-symlink', local, remote: null, base: base?.get(target) ?? null });
    keepOldEntries(nextBase, base, pathsOf(c));
  }
  conflicts.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  return { ...rec, changes, conflicts, nextBase };
}

/**
 * Deployment paths this copy's file system cannot hold (local/platform.ts): a Windows name
 * (reserved, forbidden characters, a trailing dot or space) on a copy that keeps Windows'
 * rules, and on a case-insensitive one a name that folds onto a different local name or onto
 * another deployment name, unless this copy's own base holds it (its own case-only rename).
 * The copy cannot have had them as they are, so their absence here
 * is no deletion: a push leaves them on the deployment (reported only there), as pull
 * already refuses to bring them down. Empty on Linux's rules.
 */
export function unholdable(remote: Snapshot, local: Snapshot, platform: Platform | undefined, ownBase: Snapshot | null = null): Set<string> {
  const out = new Set<string>();
  if (!platform?.caseInsensitive && !platform?.windowsNames) return out;
  let folded: Map<string, string[]> | null = null;
  if (platform.caseInsensitive) {
    folded = new Map();
    for (const p of [...local.keys(), ...remote.keys()]) {
      const k = foldName(p);
      const names = folded.get(k);
      if (names === undefined) folded.set(k, [p]);
      else if (!names.includes(p)) names.push(p);
    }
  }
  for (const p of remote.keys()) {
    if (local.has(p)) continue;
    if (platform.windowsNames && windowsNameProblem(p) !== null) out.add(p);
    // A name this copy synced itself and now holds in another case is its own case-only rename.
    else if (folded !== null && folded.get(foldName(p))!.length > 1 && !ownBase?.has(p)) out.add(p);
  }
  return out;
}

/** `snap` without `paths` (the same map when none of them is in it). */
export function withoutPaths(snap: Snapshot, paths: ReadonlySet<string>): Snapshot {
  if (paths.size === 0) return snap;
  let out: Snapshot | null = null;
  for (const p of paths) {
    if (!snap.has(p)) continue;
    out ??= new Map(snap);
    out.delete(p);
  }
  return out ?? snap;
}

/** A reconciliation that did not see `hidden` (unholdable): they are only on the deployment, their base entries kept. */
export function keepUnholdable(rec: Reconciliation, hidden: ReadonlySet<string>, base: Snapshot | null): Reconciliation {
  if (hidden.size === 0) return rec;
  const nextBase: Snapshot = new Map(rec.nextBase);
  keepOldEntries(nextBase, base, [...hidden]);
  const remoteOnly = [...rec.remoteOnly, ...hidden].sort(comparePaths);
  return { ...rec, remoteOnly, nextBase };
}
