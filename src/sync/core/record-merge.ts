/**
 * The base record (state/base-record.ts) read against the remote: what hostsync last left on
 * each path, and which paths another hostsync changed since this machine's base. Pure.
 *
 * Replay: per path, the NEWEST batch naming it decides (a snapshot states every path it
 * holds). Against the remote entry R:
 *   R = after             -> landed: hostsync left `after`;
 *   R = before (!= after) -> pending: the write has not landed (in flight, or failed): the base is `before`;
 *                            only while the batch is younger than PENDING_MAX_MS: older, no push
 *                            can still be sending it, so R = before is a write undone since (by
 *                            hand, or a push that failed for good): other;
 *   neither               -> other: changed since by something else; hostsync left `after`.
 * A pending path of another machine's batch is ambiguous (in flight, failed, or undone by hand
 * moments after it landed): reconcile never writes it (a conflict when local holds its after).
 * Older batches are not consulted: a path put back to an older content by hand is a change.
 * A landed path of a rollback batch (sync/two-way/rollback.ts) takes the rollback's after as its base
 * on every copy: the copy's files are then ahead of the deployment, never a change to pull.
 *
 * Merge, with this machine's base Bl (null: a fresh clone, CI, a new laptop):
 * - Bl null: the record's replayed base is the base. A pending path of a batch this machine
 *   had not seen is in flight elsewhere (ElsewhereChange, landed false).
 * - Bl present: Bl stays the base. A landed path whose recorded base differs from Bl was
 *   changed by a push from elsewhere since; a pending one of an unseen batch is in flight.
 * `own`: ids of the batches this machine recorded (its own pending write is no one else's).
 * `planned`: the batch ids of the copy of the record a push planned with before it lost the
 * compare-and-swap (null: a first attempt), so the retry tells what the winner just did: a
 * path of a batch it had not seen is elsewhere too (base: that batch's before).
 */
import type { BaseRecord, BatchHeader, RecEntry } from '../../state/base-record.js';
import { entriesEqual } from '../../model/snapshot.js';
import type { ElsewhereChange, Entry, RemoteOrigin, Snapshot } from '../../model/types.js';
import { PENDING_MAX_MS } from '../tunables.js';

export interface ReplayedPath {
  /** What hostsync last left there, as far as record and remote tell (null: absent). */
  base: Entry | null;
  state: 'landed' | 'pending' | 'other';
  before: Entry | null;
  after: Entry | null;
  header: BatchHeader;
  /** The oldest batch naming the path that is not in `seen` (null: all seen, or no `seen`). */
  firstUnseen: { before: Entry | null; header: BatchHeader } | null;
  /** The newest batch's writer had the path from its git commit (base-record.ts, `g`). */
  fromCommit: boolean;
}

/** A recorded entry at `path` as a snapshot's entry (null: absent). */
export const entryOf = (path: string, e: RecEntry | undefined): Entry | null =>
  e ? { path, hash: e.hash, size: e.size, executable: e.executable } : null;

/** Does the remote entry hold the recorded one? A remote listed without a hash (too big to hash) is taken by size, as resolveRemote does. */
export function holdsRecorded(r: Entry | undefined, e: Entry | null): boolean {
  if (!r || !e) return !r && !e;
  if (r.executable !== e.executable || r.size !== e.size) return false;
  return r.hash === null ? e.hash !== null : r.hash === e.hash;
}

/** A batch recorded at `t` may still be in flight at `now` (an unreadable time never is). */
export const mayBeInFlight = (t: string, now: number): boolean => {
  const at = Date.parse(t);
  return Number.isFinite(at) && now - at < PENDING_MAX_MS;
};

export function replayRecord(record: BaseRecord, remote: Snapshot, seen: ReadonlySet<string> | null = null, now: number = Date.now()): Map<string, ReplayedPath> {
  // Newest batch first: a path's first sighting is its newest batch (one map, one pass).
  const out = new Map<string, ReplayedPath>();
  for (let i = record.batches.length - 1; i >= 0; i--) {
    const batch = record.batches[i]!;
    const young = mayBeInFlight(batch.header.t, now);
    for (const p of batch.paths) {
      if (out.has(p.path)) continue;
      const r = remote.get(p.path);
      const after = entryOf(p.path, p.after);
      const before = p.before === undefined ? null : entryOf(p.path, p.before);
      let state: ReplayedPath['state'];
      if (holdsRecorded(r, after)) state = 'landed';
      else if (young && p.before !== undefined && holdsRecorded(r, before)) state = 'pending';
      else state = 'other';
      out.set(p.path, { base: state === 'pending' ? before : after, state, before, after, header: batch.header, firstUnseen: null, fromCommit: p.after?.git === true });
    }
  }
  if (seen !== null) {
    // The oldest batch naming each path that the planning copy did not hold.
    for (const batch of record.batches) {
      if (seen.has(batch.header.id)) continue;
      for (const p of batch.paths) {
        const rp = out.get(p.path)!;
        rp.firstUnseen ??= { before: entryOf(p.path, p.before), header: batch.header };
      }
    }
  }
  return out;
}

export const originOf = (h: BatchHeader): RemoteOrigin => ({ time: h.t, host: h.host, dir: h.dir, by: h.kind });

export interface RecordMerge {
  /** The base to reconcile with. */
  base: Snapshot;
  elsewhere: Map<string, ElsewhereChange>;
  /** What the record says hostsync left on each path it names (for the next batch's befores). */
  recorded: Snapshot;
  /** Paths of `base` whose writer did not have them from its git commit (secrets sent on purpose, pulled data, a copy without git). */
  uncommitted: Set<string>;
}

export interface Seen {
  own: ReadonlySet<string>;
  planned: ReadonlySet<string> | null;
  /** The clock the pending window is measured on (tests pin it). */
  now?: number;
}

export function mergeRecord(record: BaseRecord, remote: Snapshot, localBase: Snapshot | null, seen: Seen): RecordMerge {
  const replayed = replayRecord(record, remote, seen.planned, seen.now);
  const foreign = (rp: ReplayedPath): boolean => !seen.own.has(rp.header.id);
  const elsewhere = new Map<string, ElsewhereChange>();
  const recorded: Snapshot = new Map();
  const uncommitted = new Set<string>();
  for (const [p, rp] of replayed) {
    if (!rp.base) continue;
    recorded.set(p, rp.base);
    if (!rp.fromCommit) uncommitted.add(p);
  }
  if (localBase === null) {
    // Changed below only for batches the planning copy had not seen (a retried push).
    const base: Snapshot = seen.planned === null ? recorded : new Map(recorded);
    for (const [p, rp] of replayed) {
      if (rp.firstUnseen !== null && rp.state !== 'other') {
        // Planned against a copy without this batch: merged against what that copy knew.
        const before = rp.firstUnseen.before;
        if (before) base.set(p, before);
        else base.delete(p);
        if (!entriesEqual(before, rp.after)) elsewhere.set(p, { before, after: rp.after, landed: rp.state === 'landed', origin: originOf(rp.header) });
      } else if (rp.state === 'pending' && foreign(rp) && !entriesEqual(rp.before, rp.after)) {
        elsewhere.set(p, { before: rp.before, after: rp.after, landed: false, origin: originOf(rp.header) });
      }
    }
    return { base, elsewhere, recorded, uncommitted };
  }
  // A landed rollback is the deployment put back on purpose, not a change to take: the base
  // takes its after, so this copy's files read as ahead of the deployment (a push re-applies them).
  let base: Snapshot = localBase;
  for (const [p, rp] of replayed) {
    const mine = localBase.get(p) ?? null;
    if (rp.header.kind === 'rollback' && rp.state === 'landed') {
      if (!entriesEqual(rp.after, mine)) {
        if (base === localBase) base = new Map(localBase);
        if (rp.after) base.set(p, rp.after);
        else base.delete(p);
      }
      continue;
    }
    if (rp.firstUnseen !== null && rp.state !== 'other' && !entriesEqual(rp.after, mine)) {
      elsewhere.set(p, { before: mine, after: rp.after, landed: rp.state === 'landed', origin: originOf(rp.header) });
    } else if (rp.state === 'landed' && !entriesEqual(rp.base, mine)) {
      elsewhere.set(p, { before: mine, after: rp.base, landed: true, origin: originOf(rp.header) });
    } else if (rp.state === 'pending' && foreign(rp) && !entriesEqual(rp.after, mine)) {
      elsewhere.set(p, { before: mine, after: rp.after, landed: false, origin: originOf(rp.header) });
    }
  }
  return { base, elsewhere, recorded, uncommitted };
}
