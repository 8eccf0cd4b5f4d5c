/**
 * push's two journal calls: `recordPush` before the first remote change (with the copies
 * of what it will replace, safety-copy.ts), `finishPush` after the verifying read.
 */
import path from 'node:path';
import { JournalStore, type Journal, type JournalArchive } from '../../state/journal.js';
import { resolveRemote, toBaseEntry } from '../../model/snapshot.js';
import type { Change, Plan, Snapshot } from '../../model/types.js';
import { safetyCopyPaths, takeCopy, unversionedPaths } from './safety-copy.js';
import type { Session } from '../session.js';
import { journalRecords } from '../core/undo-plan.js';

export const journalStore = (session: Session): JournalStore => new JournalStore(path.join(session.stateDir, 'journal'));

/** Which copies a push takes: see PushOptions.copies. */
export type CopyPolicy = 'all' | 'safety' | 'none';

export interface RecordOptions {
  /** --force or --mirror: replaced content the base does not hold gets a safety copy. */
  destructive: boolean;
  copies: CopyPolicy;
  /** False for a watch cycle's journal (state/journal.ts says why). */
  durable?: boolean;
  /** Where the undo copy goes: the folder the push's batch header names (plannedCopies' undo paths, if any). */
  undoFolder?: string;
}

/**
 * The paths of the copies recordPush takes: `safety` (replaced content the base does not hold,
 * on --force or --mirror) and `undo` (other files the plan overwrites by upload or archive).
 * Known before anything is sent, so the record's batch can name the undo copy's folder.
 */
export function plannedCopies(changes: readonly Change[], plan: Plan, remote: Snapshot, base: Snapshot | null, opts: Pick<RecordOptions, 'destructive' | 'copies'>): { safety: string[]; undo: string[] } {
  if (changes.length === 0) return { safety: [], undo: [] };
  const safety = opts.copies !== 'none' && opts.destructive ? safetyCopyPaths(changes, remote, base) : [];
  const covered = new Set(safety);
  const undo = opts.copies === 'all' ? unversionedPaths(plan, remote).filter((p) => !covered.has(p)) : [];
  return { safety, undo };
}

/**
 * Journals a push about to run `changes` by `plan`. Returns null when there is nothing to
 * journal. Undo copies of pruned journals are deleted (one request); safety copies are the
 * user's to delete, since they may hold the only copy of someone else's work.
 */
export async function recordPush(
  session: Session,
  changes: readonly Change[],
  plan: Plan,
  remote: Snapshot,
  base: Snapshot | null,
  opts: RecordOptions,
): Promise<Journal | null> {
  if (changes.length === 0) return null;
  const startedAt = new Date();
  const archives: JournalArchive[] = [];
  const { safety, undo } = plannedCopies(changes, plan, remote, base, opts);
  if (safety.length > 0) archives.push({ kind: 'safety', archive: await takeCopy(session.client, safety), paths: safety });
  if (undo.length > 0) archives.push({ kind: 'undo', archive: await takeCopy(session.client, undo, opts.undoFolder), paths: undo });
  const { journal, pruned } = await journalStore(session).begin(journalRecords(changes, remote, base), archives, startedAt, { durable: opts.durable ?? true });
  const stale = pruned.flatMap((j) => j.archives.filter((a) => a.kind === 'undo').map((a) => a.archive));
  if (stale.length > 0) await session.client.files.delete(stale).catch(() => undefined);
  return journal;
}

/** After the verifying read: each record's `after` becomes what the remote really holds. */
export async function finishPush(session: Session, journal: Journal | null, remote: Snapshot): Promise<void> {
  if (!journal) return;
  for (const r of journal.records) {
    const now = remote.get(r.path);
    // A file too big for the index to hash is presumed to be what the push sent when its size says so.
    r.after = now ? toBaseEntry(resolveRemote(now, r.after ?? undefined)) : null;
  }
  journal.finishedAt = new Date().toISOString();
  journal.state = 'done';
  await journalStore(session).write(journal);
}
