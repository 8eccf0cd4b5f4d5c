/**
 * What `rollback <id>` does, planned from the base record and the remote alone. Pure.
 *
 * The target is the outcome of batch `<id>`: per path, the after of the newest batch up to
 * and including it (the compaction snapshot included). Only paths a later batch named can
 * differ from it; each whose recorded state now (the newest after) is not the target's is
 * put back: deleted when the target had no file there (added since), restored otherwise
 * (from the files.history version that holds the target's bytes: the content was saved when
 * the first later batch naming the path replaced it, so its savedAt is at or after that
 * batch's time and its size is the target's), or only chmod-ed when the bytes are already
 * the target's.
 *
 * Never touched: paths the app owns (remoteOwned), secrets sent on purpose (sendSecrets),
 * ignored paths. A path whose remote is not what the record says hostsync left there (an
 * edit by hand, by the app, or a push still in flight) is a conflict: the rollback is refused
 * unless forced (files.restore and files.delete keep what they replace, so a forced one
 * loses nothing either).
 */
import type { BaseRecord, BatchHeader, BatchPath, RecEntry } from '../../state/base-record.js';
import { sameContent } from '../../model/snapshot.js';
import type { Entry, Snapshot } from '../../model/types.js';
import { holdsRecorded } from './record-merge.js';

export type LeftAloneWhy = 'remoteOwned' | 'sendSecrets' | 'ignored';

export interface RollbackRestore {
  path: string;
  /** The target's entry. */
  want: Entry;
  /** When the target's content was replaced: the first later batch naming the path (ISO, its writer's clock). */
  replacedAt: string;
}

export interface RollbackPlan {
  target: BatchHeader;
  restores: RollbackRestore[];
  /** Files added since the target: deleted (the API keeps a copy of each). */
  deletes: string[];
  /** Same bytes as the target, other executable bit. */
  chmods: { path: string; executable: boolean }[];
  /** Paths the deployment changed since hostsync left them (or a push still in flight). */
  conflicts: { path: string; why: string }[];
  leftAlone: { path: string; why: LeftAloneWhy }[];
  /** The rollback's batch: before = what the record says hostsync left, after = the target's. */
  batch: BatchPath[];
  /** Every path the rollback settles, with the target's entry (null: absent): what verification expects. */
  expected: Map<string, Entry | null>;
}

const toEntry = (path: string, e: RecEntry | undefined): Entry | null => (e ? { path, hash: e.hash, size: e.size, executable: e.executable } : null);

function sameRec(a: RecEntry | undefined, b: RecEntry | undefined): boolean {
  if (!a || !b) return !a && !b;
  return a.hash === b.hash && a.size === b.size && a.executable === b.executable;
}

export interface PlanInput {
  record: BaseRecord;
  /** Index of the target batch in record.batches. */
  index: number;
  remote: Snapshot;
  /** Why a path is never touched, or null. */
  leftAlone: (path: string) => LeftAloneWhy | null;
  force: boolean;
  /** The clock the in-flight window is measured on (tests pin it). */
  now?: number;
}

export function planRollback(input: PlanInput): RollbackPlan {
  const { record, index, remote } = input;
  const target = new Map<string, RecEntry>();
  for (const b of record.batches.slice(0, index + 1)) for (const p of b.paths) target.set(p.path, p.after);
  // Per path named since: the newest after (what hostsync left) and the first later batch's time.
  const current = new Map<string, RecEntry>();
  const replacedAt = new Map<string, string>();
  for (const b of record.batches.slice(index + 1)) {
    for (const p of b.paths) {
      current.set(p.path, p.after);
      if (!replacedAt.has(p.path)) replacedAt.set(p.path, b.header.t);
    }
  }
  const plan: RollbackPlan = { target: record.batches[index]!.header, restores: [], deletes: [], chmods: [], conflicts: [], leftAlone: [], batch: [], expected: new Map() };
  for (const [path, now] of [...current].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
    const want = target.get(path) ?? null;
    if (sameRec(want ?? undefined, now ?? undefined)) continue;
    const why = input.leftAlone(path);
    if (why !== null) {
      plan.leftAlone.push({ path, why });
      continue;
    }
    const r = remote.get(path);
    const wantEntry = toEntry(path, want ?? undefined);
    const nowEntry = toEntry(path, now ?? undefined);
    if (!holdsRecorded(r, nowEntry) && !holdsRecorded(r, wantEntry)) {
      plan.conflicts.push({ path, why: r ? 'changed on the deployment since hostsync left it' : 'deleted on the deployment since hostsync left it' });
      if (!input.force) continue;
    }
    plan.batch.push({ path, before: now, after: want });
    plan.expected.set(path, wantEntry);
    if (holdsRecorded(r, wantEntry)) continue;
    if (wantEntry === null) plan.deletes.push(path);
    else if (r && r.hash !== null && sameContent(r, wantEntry)) plan.chmods.push({ path, executable: wantEntry.executable });
    else plan.restores.push({ path, want: wantEntry, replacedAt: replacedAt.get(path)! });
  }
  return plan;
}

/**
 * Requests the rollback's changes cost past the reads already made: one files.history and one
 * files.restore per restored file, a files.delete per DELETE_BATCH_PATHS, a chmod each, the
 * record's one compare-and-swap and the verifying index; the apply and its health wait come after.
 */
export function rollbackRequests(plan: RollbackPlan, deleteBatch: number): number {
  const changes = plan.restores.length * 2 + Math.ceil(plan.deletes.length / deleteBatch) + plan.chmods.length;
  return changes === 0 ? 0 : changes + 2;
}
