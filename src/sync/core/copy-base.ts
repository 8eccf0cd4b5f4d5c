/**
 * The base of a copy that has none of its own (a fresh clone, a CI job, a teammate who never
 * pushed, a second folder): what it derives from, never the deployment's latest state.
 *
 * - A git copy whose HEAD can be compared with the last push's commit (copy-position.ts):
 *   from `same` or `ahead`, the record's base (what hostsync last left there), less the
 *   paths this copy lacks and the record's writer did not have from its git commit (a secret
 *   sent with "sendSecrets", a pulled data file, a file a copy without git pushed): those are
 *   only on the deployment for it, never deleted by it. When the last push came from this
 *   same commit with uncommitted changes, a path this copy did not change itself and that
 *   differs is that push's uncommitted work: a conflict, never a write. `behind`,
 *   `diverged` or `unknown`: refused by the caller (exit 3) unless --force.
 * - Any other copy (no git, or a last push without a git stamp): the record as the copy first
 *   read it (its contact, state/contact.ts), less every path it did not hold as recorded then:
 *   those stay never-synced differences (conflicts) or only on the deployment, never silent
 *   writes or deletions; what other machines recorded since contact is "elsewhere".
 * Pure: the caller reads the record, git and the contact file.
 */
import type { Contact } from '../../state/contact.js';
import type { BaseRecord } from '../../state/base-record.js';
import { entriesEqual } from '../../model/snapshot.js';
import type { Snapshot } from '../../model/types.js';
import { mergeRecord, type RecordMerge } from './record-merge.js';
import { withoutPaths } from './guards.js';
import type { CopyPosition } from './copy-position.js';

export interface CopyBase {
  merged: RecordMerge;
  /** The contact to keep when this was the copy's first (null: kept already, or a git copy). */
  newContact: Contact | null;
  /** The base was adopted without a sync (reconcile's `adopted`). */
  adopted: boolean;
}

export interface CopyBaseInput {
  record: BaseRecord;
  recordPath: string;
  remote: Snapshot;
  /** The local tree as reconcile will compare it. */
  local: Snapshot;
  position: CopyPosition;
  /** The copy's contact with this record (null: none yet, or with another record). */
  contact: Contact | null;
  own: ReadonlySet<string>;
  /** With a git position: the paths this copy changed against its HEAD (git status), asked only when the last push was from the same commit with uncommitted changes. */
  ownChanges?: ReadonlySet<string> | null;
  /** A retried push: the batch ids the lost attempt planned with. */
  planned: ReadonlySet<string> | null;
  now?: number;
}


export function copyBase(input: CopyBaseInput): CopyBase {
  const { record, remote, local, position } = input;
  const clock = input.now === undefined ? {} : { now: input.now };
  if (position.comparable) {
    const merged = mergeRecord(record, remote, null, { own: input.own, planned: input.planned, ...clock });
    const drop = [...merged.uncommitted].filter((p) => !local.has(p));
    if (position.state === 'same' && position.against?.clean === false && input.ownChanges) {
      // The last push came from this very commit with uncommitted changes: where this copy
      // differs from it without having changed the file itself, the difference is that
      // push's uncommitted work, not this copy's change: never written over, a conflict.
      for (const [p, e] of merged.base) if (!entriesEqual(local.get(p), e) && !input.ownChanges.has(p)) drop.push(p);
      return { merged: { ...merged, base: withoutPaths(merged.base, new Set(drop)) }, newContact: null, adopted: true };
    }
    return { merged: { ...merged, base: withoutPaths(merged.base, new Set(drop)) }, newContact: null, adopted: false };
  }
  const contact = input.contact;
  const seen = contact !== null ? new Set(contact.seen) : input.planned;
  const merged = mergeRecord(record, remote, null, { own: input.own, planned: seen, ...clock });
  let differing: string[];
  let newContact: Contact | null = null;
  if (contact !== null) differing = contact.differing;
  else {
    differing = [];
    for (const [p, e] of merged.base) if (!entriesEqual(local.get(p), e)) differing.push(p);
    newContact = { record: input.recordPath, at: new Date(input.now ?? Date.now()).toISOString(), seen: record.batches.map((b) => b.header.id), differing };
  }
  return { merged: { ...merged, base: withoutPaths(merged.base, new Set(differing)) }, newContact, adopted: true };
}
