/**
 * The edge of copy-base.ts: for a copy without a base of its own, reads what the pure rule
 * needs (git's position, the contact file) and keeps a first contact. push, status and diff
 * take their base from here, so the three agree on every copy.
 */
import { gitChanged, gitHead, hasCommit, isAncestor, type GitHead } from '../../local/git.js';
import { GIT_ABBREV, type BatchHeader } from '../../state/base-record.js';
import { loadContact, saveContact } from '../../state/contact.js';
import type { Snapshot } from '../../model/types.js';
import { copyBase } from '../core/copy-base.js';
import { judgePosition, lastPushIn, type CopyPosition, type Relation } from '../core/copy-position.js';
import type { RecordMerge } from '../core/record-merge.js';
import { parsedRecord, type RecordRead } from './remote-record.js';
import type { Session } from '../session.js';

export interface Derived {
  merged: RecordMerge;
  adopted: boolean;
}

/** The copy's position against the last push (`last`: its header), asking git in `root` only what the judgement needs. */
export async function positionOf(root: string, last: BatchHeader | null, head?: Promise<GitHead | null>): Promise<CopyPosition> {
  const x = await (head ?? gitHead(root));
  const y = last?.git;
  let rel: Relation | null = null;
  const near = (a: string, list: readonly string[]): boolean => list.includes(a.slice(0, GIT_ABBREV));
  if (x !== null && y && x.head !== y.head && !near(x.head, y.anc) && !near(y.head, x.anc)) {
    const hasY = await hasCommit(root, y.head);
    rel = hasY ? { hasY, yBeforeX: await isAncestor(root, y.head, x.head), xBeforeY: await isAncestor(root, x.head, y.head) } : { hasY };
  }
  return judgePosition(x, last, rel);
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
