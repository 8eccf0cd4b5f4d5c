/**
 * Pure safety rules applied around reconcile, for what the three-way table cannot see:
 * paths the local scan could not read, and symlinks on the remote.
 */
import { pathsOf, targetOf } from '../model/change.js';
import { ancestors } from '../model/paths.js';
import { keepOldEntries } from './settle.js';
import type { Change, Conflict, Reconciliation, Snapshot } from '../model/types.js';

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
