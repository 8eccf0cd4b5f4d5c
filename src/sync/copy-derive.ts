/**
 * The edge of copy-base.ts: for a copy without a base of its own, reads what the pure rule
 * needs (git's position, the contact file) and keeps a first contact. push, status and diff
 * take their base from here, so the three agree on every copy.
 */
import { gitChanged, type GitHead } from '../local/git.js';
import { loadContact, saveContact } from '../state/contact.js';
import type { Snapshot } from '../model/types.js';
import { copyBase } from './copy-base.js';
import { lastPushIn, positionOf, type CopyPosition } from './copy-position.js';
import type { RecordMerge } from './record-merge.js';
import { parsedRecord, type RecordRead } from './remote-record.js';
import type { Session } from './session.js';

export interface Derived {
  merged: RecordMerge;
  adopted: boolean;
}

/** The copy's position against the record's last push (git asked only here). */
export const copyPosition = (session: Pick<Session, 'config'>, read: RecordRead, head?: Promise<GitHead | null>): Promise<CopyPosition> =>
  positionOf(session.config.root, lastPushIn(read.text), head);

/** The base of a copy without one of its own; null when the record cannot be used (none, damaged). */
export async function deriveBase(
  session: Pick<Session, 'stateDir' | 'client' | 'config'>,
  read: RecordRead,
  remote: Snapshot,
  local: Snapshot,
  position: CopyPosition,
  retry: { own: readonly string[]; planned: ReadonlySet<string> | null } | null = null,
): Promise<Derived | null> {
  const record = parsedRecord(read);
  if (record === null || read.path === null) return null;
  const stored = position.comparable ? null : await loadContact(session.stateDir);
  const ownChanges = position.comparable && position.state === 'same' && position.against?.clean === false ? await gitChanged(session.config.root) : null;
  const derived = copyBase({
    record,
    recordPath: read.path,
    remote,
    local,
    position,
    contact: stored?.record === read.path ? stored : null,
    ownChanges,
    own: new Set([...read.own, ...(retry?.own ?? [])]),
    planned: retry?.planned ?? null,
  });
  // Kept by any command, a dry run too: what another machine records after it is "elsewhere" here.
  if (derived.newContact !== null) await saveContact(session.stateDir, derived.newContact);
  return { merged: derived.merged, adopted: derived.adopted };
}
