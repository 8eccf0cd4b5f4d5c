/**
 * A push's plan from one remote read and one copy of the base record: the base to merge
 * with (the local one, the record's, or one derived for a copy without its own), the
 * three-way decision and the mass-delete guard's verdict. push.ts runs it on the remote it
 * read, and, recording ahead (record-ahead.ts), first on the remote it last read, so the
 * two plans are made by the same rule and compare path by path.
 */
import type { GitHead } from '../../local/git.js';
import type { ElsewhereChange, Snapshot } from '../../model/types.js';
import { mayPushFrom, type CopyPosition } from '../core/copy-position.js';
import { decide, guardMassDelete, type Decision, type GuardedDecision } from '../core/decide.js';
import { mergeRecord, type RecordMerge } from '../core/record-merge.js';
import { copyPosition, deriveBase } from '../record/copy-derive.js';
import { positionRefusal } from '../record/position-refusal.js';
import { parsedRecord, type RecordRead } from '../record/remote-record.js';
import type { RemoteRead } from '../remote-read/remote-read.js';
import type { Session } from '../session.js';
import { foldUnverified, type FoldedBase } from '../unverified-fold.js';

/**
 * What a push retried after losing the base record's compare-and-swap carries over: the
 * local side as scanned (and the .gitignore answer), and the record it planned with.
 */
export interface Retry {
  tree: { scanned: Snapshot; skipped: readonly string[]; warnings: string[] };
  /** Batch ids of the record the lost attempt planned with (empty: there was none). */
  planned: Set<string>;
  /** The lost attempt's batch id: its edit's answer may have been lost after it landed. */
  own: string[];
  attempt: number;
}

export interface PlanInput {
  session: Session;
  /** state.bin's base. */
  stateBase: Snapshot | null;
  scanned: Snapshot;
  skipped: readonly string[];
  head: Promise<GitHead | null> | null;
  retry: Retry | undefined;
  force: boolean;
  mirror: boolean;
  holdMassDelete?: { recentDeletes: number };
  allowMassDelete: boolean;
}

export interface PushPlan {
  folded: FoldedBase;
  position: CopyPosition | null;
  positionRefused: string | null;
  /** The base the decision merged with. */
  base: Snapshot | null;
  guarded: GuardedDecision;
  /** The same decision made again on another read of the remote (after a transfer, a verifying read). */
  redecide: (remote: RemoteRead) => Decision;
}

/**
 * The base to merge with, from the local base and the base record (record-merge.ts). A
 * current copy with a local base costs nothing: it is parsed only when `needElsewhere`
 * (the plan found drift, which may be a push from elsewhere rather than a hand edit).
 */
function mergeWithRecord(read: RecordRead, remote: Snapshot, localBase: Snapshot | null, retry: Retry | undefined, needElsewhere: boolean): RecordMerge | null {
  if (read.current && localBase !== null && !needElsewhere && retry === undefined) return null;
  const record = parsedRecord(read);
  if (record === null) return null;
  return mergeRecord(record, remote, localBase, { own: new Set([...read.own, ...(retry?.own ?? [])]), planned: retry?.planned ?? null });
}

export async function planPush(input: PlanInput, remote: RemoteRead, record: RecordRead): Promise<PushPlan> {
  const { session, scanned, skipped, retry } = input;
  // Writes a killed watch left unverified that did land are ours, not a conflict (unverified-fold.ts).
  const folded = await foldUnverified(session, input.stateBase, remote.snapshot);
  const ownBase = folded.base;
  const position = input.head === null && ownBase !== null ? null : await copyPosition(session, record, input.head ?? undefined);
  let positionRefused: string | null = null;
  let adopted = false;
  // No base of its own: what this copy derives from (copy-base.ts), never the latest state.
  const derived = ownBase === null && position !== null ? await deriveBase(session, record, remote.snapshot, scanned, position, retry ?? null) : null;
  let merged: RecordMerge | null;
  if (derived !== null) {
    if (!mayPushFrom(position!) && !input.force) positionRefused = positionRefusal(position!);
    merged = derived.merged;
    adopted = derived.adopted;
  } else merged = mergeWithRecord(record, remote.snapshot, ownBase, retry, false);
  let base: Snapshot | null = merged?.base ?? ownBase;
  let elsewhere: ReadonlyMap<string, ElsewhereChange> | undefined = merged?.elsewhere;
  const options = { force: input.force, mirror: input.mirror, ...(adopted ? { adopted } : {}) };
  let protect = skipped;
  const redecide = (r: RemoteRead): Decision =>
    decide({ base, scanned, skipped: protect, remote: r, options: { ...options, ...(elsewhere ? { elsewhere } : {}) }, platform: session.platform, ownBase, owned: session.remoteOwned });
  const decideGuarded = (): GuardedDecision =>
    guardMassDelete(
      redecide(remote),
      (held) => {
        protect = [...skipped, ...held];
        return redecide(remote);
      },
      { base, remote: remote.snapshot },
      { recentDeletes: input.holdMassDelete?.recentDeletes ?? 0, allow: input.allowMassDelete, hold: input.holdMassDelete !== undefined },
    );
  let guarded = decideGuarded();
  if (merged === null && guarded.decision.rec.drift.length > 0 && !input.force) {
    // Drift a current copy of the record may explain as a push from elsewhere.
    merged = mergeWithRecord(record, remote.snapshot, ownBase, retry, true);
    if (merged !== null && merged.elsewhere.size > 0) {
      base = merged.base;
      elsewhere = merged.elsewhere;
      protect = skipped;
      guarded = decideGuarded();
    }
  }
  return { folded, position, positionRefused, base, guarded, redecide };
}
