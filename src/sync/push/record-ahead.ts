/**
 * Recording ahead (issue 45, item 3). A push records its batch with a compare-and-swap
 * before it writes, and its plan needs a read of the remote: read first, the record's round
 * trip sits between the read and the write, a window an edit on the deployment can slip
 * into, which a files.history request per overwritten file had to look for afterwards
 * (a one-file push: index, record, writeMany, history, verifying index = 5).
 *
 * A copy that knows the deployment as it last read it (state.bin's whole read with its
 * digest, and a copy of the base record that read listed) plans against that read, and
 * sends the record's compare-and-swap and the index read together. The compare-and-swap
 * landing says no machine recorded since; the index answer says what else changed. When
 * the plan made on that answer writes nothing the recorded batch does not hold (the common
 * case: the index answers `unchanged`), the writes follow the read with nothing in between,
 * as a first push's do, and no slip check is needed: index and record, writeMany, verifying
 * index = 4 requests, 3 round trips.
 *
 * When the batch does not cover the plan (the deployment changed where this push writes),
 * the plan's own batch is recorded on top, as before (and then checked for slips). When the
 * compare-and-swap is lost (another machine recorded since), the record is read and the push
 * goes on as a push without a copy does: one request more than before. A batch recorded for
 * paths the push then does not write is safe by the record's before/after rule: a path still
 * holding neither is read as changed on the deployment, never as permission to overwrite.
 */
import type { Snapshot } from '../../model/types.js';
import { diffBases, recEntriesEqual, recEntryOf, type BatchPath } from '../../state/base-record.js';
import type { RemoteCache } from '../../state/sync-state.js';
import type { RecordRead } from '../record/remote-record.js';
import { copyRead, currentCopyMeta } from '../record/remote-record.js';
import type { RecordCopyMeta } from '../../state/record-copy.js';
import { indexPatterns, indexRequestKey, type RemoteRead } from '../remote-read/remote-read.js';
import type { Session } from '../session.js';
import type { PushPlan } from './push-plan.js';

/** A batch recorded before the remote was read. */
export interface Ahead {
  id: string;
  batch: readonly BatchPath[];
  /** The record as the plan read it: before the batch. */
  record: RecordRead;
  /** The undo copy's folder the batch names (safety-copy.ts), when the plan overwrote files by upload or archive. */
  copy?: string;
}

/**
 * A push's batch: the paths whose base it changes, with what a watch's cycles wrote and have
 * not recorded yet (state/record-pending.ts). Those keep the before the record last knew
 * (the watch's cycles already moved this machine's base past it) and take what this push
 * leaves as their after.
 */
export function pushBatch(base: Snapshot | null, next: Snapshot, unrecorded: ReadonlyMap<string, BatchPath>): BatchPath[] {
  const batch = diffBases(base, next);
  if (unrecorded.size === 0) return batch;
  const out = new Map(batch.map((p) => [p.path, p]));
  for (const [p, u] of unrecorded) {
    const after = out.get(p)?.after ?? recEntryOf(next.get(p));
    out.set(p, { path: p, before: u.before ?? null, after });
  }
  return [...out.values()].filter((p) => !recEntriesEqual(p.before ?? null, p.after));
}

/** Every path of `batch` is in `ahead` with the same before and after: recording it again would say nothing new. */
export function coveredBy(batch: readonly BatchPath[], ahead: readonly BatchPath[]): boolean {
  const byPath = new Map(ahead.map((p) => [p.path, p]));
  return batch.every((p) => {
    const a = byPath.get(p.path);
    return a !== undefined && recEntriesEqual(a.before ?? null, p.before ?? null) && recEntriesEqual(a.after, p.after);
  });
}

/** What knownRead asks, without reading the record copy's text: the copy's description, or null. */
export async function plannableCopy(session: Pick<Session, 'matcher' | 'stateDir'>, known: RemoteCache | null): Promise<RecordCopyMeta | null> {
  if (known === null || known.record === undefined || known.record === null || known.leftovers.length > 0) return null;
  if (known.requestKey !== indexRequestKey(indexPatterns(session.matcher.patterns))) return null;
  return currentCopyMeta(session, known.record);
}

/**
 * The last whole read as a read made now, and the record copy it listed, when a push may
 * plan on them before reading: a base of its own, a read with a digest the next index can be
 * asked with (same ignore list), no leftovers, and a copy of the record that read listed.
 */
export async function knownRead(session: Pick<Session, 'matcher' | 'stateDir'>, known: RemoteCache | null): Promise<{ remote: RemoteRead; record: RecordRead } | null> {
  const meta = await plannableCopy(session, known);
  const record = meta === null ? null : await copyRead(session, meta);
  if (known === null || record === null) return null;
  return {
    remote: { snapshot: known.snapshot, symlinks: known.symlinks, leftovers: [], digest: known.digest, requestKey: known.requestKey, fromCache: true, record: known.record ?? null },
    record,
  };
}

/**
 * Whether a plan made on the last whole read may be recorded before the read: it writes
 * something, with nothing in its way (no conflict, no held or refused deletion, no
 * unverified write of a killed watch to fold, no position refusal).
 */
export function mayRecordAhead(plan: PushPlan, batch: readonly BatchPath[]): boolean {
  const { decision, guard, held } = plan.guarded;
  return (
    batch.length > 0 &&
    decision.plan.steps.length > 0 &&
    decision.rec.conflicts.length === 0 &&
    !guard.refuse &&
    held.length === 0 &&
    plan.folded.covered.length === 0 &&
    plan.positionRefused === null
  );
}
