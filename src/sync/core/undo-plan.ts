/**
 * What undoing one push does, from its journal and the remote as it is now. Pure.
 *
 * Per journaled path, with "=" meaning entriesEqual:
 *   now = after   -> take it back: delete what was new, rename back what moved, restore
 *                    (history version or undo copy) what was overwritten or deleted, chmod
 *                    back what only changed mode
 *   now = before  -> nothing (that part of the push never landed, or is already undone)
 *   otherwise     -> the remote changed since the push: the whole undo is refused
 * A path the app owns (hostsync.json "remoteOwned", remote-owned.ts) is none of these: left
 * as the app has it, listed in `owned`, never refusing the undo (the app writes it all the
 * time). So is the other end of a move with one, which would bring back only half of it.
 */
import { entriesEqual, resolveRemote, sameContent, toBaseEntry } from '../../model/snapshot.js';
import type { FileVersion } from '../../api/types.js';
import type { Change, Entry, Snapshot } from '../../model/types.js';
import type { JournalRecord } from '../../state/journal.js';
import { NOTHING_OWNED, type RemoteOwned } from './remote-owned.js';

export interface UndoPlan {
  /** Paths changed on the remote since the push, with what they are now. */
  changed: { path: string; now: 'modified' | 'deleted' | 'added' }[];
  /** Moved files to move back: `from` is where the push put it. */
  renames: { from: string; to: string }[];
  /** Files to bring back to `before` (overwritten or deleted by the push). */
  restores: { path: string; before: Entry }[];
  /** Files the push created. */
  deletes: string[];
  /** Same content, only the executable bit to set back. */
  chmods: { path: string; executable: boolean }[];
  /** Every path the undo settles, with the entry it should end with (null: absent). */
  expected: Map<string, Entry | null>;
  /** Journaled paths the app owns (or moved with one), left as they are: never settled, never a reason to refuse. */
  owned: string[];
}

export function planUndo(all: readonly JournalRecord[], now: Snapshot, owned: RemoteOwned = NOTHING_OWNED): UndoPlan {
  const plan: UndoPlan = { changed: [], renames: [], restores: [], deletes: [], chmods: [], expected: new Map(), owned: [] };
  const ownedRecord = (r: JournalRecord): boolean => [r.path, r.movedTo, r.movedFrom].some((p) => p !== undefined && owned.owns(p));
  const records = owned.patterns.length === 0 ? all : all.filter((r) => !ownedRecord(r));
  if (records.length < all.length) plan.owned = all.filter(ownedRecord).map((r) => r.path).sort();
  const byPath = new Map(records.map((r) => [r.path, r]));
  const current = (r: JournalRecord): Entry | undefined => {
    const cur = now.get(r.path);
    return cur && r.after ? resolveRemote(cur, r.after) : cur;
  };
  const state = (r: JournalRecord): 'after' | 'before' | 'changed' => {
    const cur = current(r);
    if (entriesEqual(cur, r.before)) return 'before';
    if (entriesEqual(cur, r.after)) return 'after';
    return 'changed';
  };
  for (const r of records) {
    const s = state(r);
    if (s === 'changed') {
      const cur = now.get(r.path);
      plan.changed.push({ path: r.path, now: !cur ? 'deleted' : r.after || r.before ? 'modified' : 'added' });
      continue;
    }
    plan.expected.set(r.path, r.before);
    if (s === 'before') continue;
    if (r.movedTo !== undefined) continue; // the target's record moves it back
    const source = r.movedFrom !== undefined ? byPath.get(r.movedFrom) : undefined;
    if (source && state(source) === 'after' && r.after && source.before && sameContent(r.after, source.before)) {
      plan.renames.push({ from: r.path, to: source.path });
      if (r.after.executable !== source.before.executable) plan.chmods.push({ path: source.path, executable: source.before.executable });
    } else if (!r.before) {
      plan.deletes.push(r.path);
    } else if (r.after && sameContent(r.before, r.after)) {
      plan.chmods.push({ path: r.path, executable: r.before.executable });
    } else {
      plan.restores.push({ path: r.path, before: r.before });
    }
  }
  // A moved file's source comes back by the rename, not from history.
  const renamedBack = new Set(plan.renames.map((r) => r.to));
  plan.restores = plan.restores.filter((r) => !renamedBack.has(r.path));
  return plan;
}

/** `now` with the plan's outcome applied: what the next (older) undo step starts from. */
export function afterUndo(now: Snapshot, plan: UndoPlan): Snapshot {
  const out: Snapshot = new Map(now);
  for (const [p, e] of plan.expected) {
    if (e) out.set(p, e);
    else out.delete(p);
  }
  return out;
}

/**
 * The journal records of a push about to run `changes` against `remote` from `base`: every
 * path it touches, with the remote entry before, the entry it expects after, and its base entry.
 */
export function journalRecords(changes: readonly Change[], remote: Snapshot, base: Snapshot | null): JournalRecord[] {
  const out: JournalRecord[] = [];
  const was = (p: string): Entry | null => {
    const e = remote.get(p);
    return e ? toBaseEntry(e) : null;
  };
  const synced = (p: string): Entry | null => base?.get(p) ?? null;
  for (const c of changes) {
    switch (c.kind) {
      case 'write':
        out.push({ path: c.path, before: was(c.path), after: toBaseEntry(c.entry), base: synced(c.path) });
        break;
      case 'delete':
        out.push({ path: c.path, before: was(c.path) ?? toBaseEntry(c.base), after: null, base: synced(c.path) });
        break;
      case 'chmod': {
        const before = was(c.path);
        out.push({ path: c.path, before, after: before ? { ...before, executable: c.executable } : toBaseEntry(c.entry), base: synced(c.path) });
        break;
      }
      case 'rename':
        out.push({ path: c.from, before: was(c.from) ?? toBaseEntry({ ...c.entry, path: c.from }), after: null, base: synced(c.from), movedTo: c.to });
        out.push({ path: c.to, before: was(c.to), after: toBaseEntry(c.entry), base: synced(c.to), movedFrom: c.from });
        break;
    }
  }
  return out;
}

/**
 * The history version a push saved of a file it overwrote or deleted: the oldest version
 * saved at or after the push began (on the server's clock, `since`) with the size the
 * file had before. Versions are listed newest first; later ones are from later changes
 * (a later push, another undo), older ones from before this push. With none since, the
 * newest fitting one saved up to `slackMs` earlier (a server clock slightly behind ours).
 * Null when none fits (an upload overwrote it, or the service dropped old versions).
 */
export function pickVersion(versions: readonly FileVersion[], since: number, before: Entry, slackMs = 0): FileVersion | null {
  let pick: { v: FileVersion; at: number } | null = null;
  let near: { v: FileVersion; at: number } | null = null;
  for (const v of versions) {
    const at = Date.parse(v.savedAt);
    if (!Number.isFinite(at) || v.bytes !== before.size) continue;
    if (at >= since) {
      if (pick === null || at <= pick.at) pick = { v, at };
    } else if (at >= since - slackMs && (near === null || at > near.at)) {
      near = { v, at };
    }
  }
  return (pick ?? near)?.v ?? null;
}
