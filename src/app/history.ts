import { sameContent } from '../model/snapshot.js';
import type { Journal, JournalArchive } from '../state/journal.js';
import { journalStore } from '../sync/push-journal.js';
import { interruptedUndoMessage, undoPendingStore } from '../sync/undo-guard.js';
import type { ConnectionOptions, DeploymentRef } from './options.js';
import { deploymentRef } from './options.js';
import { requestsOf, type FailureFields, type Outcome, type RequestsSummary } from './result.js';
import { runOnSession } from './session-command.js';

/** One push from this directory, newest first. */
export interface HistoryItem {
  id: string;
  startedAt: string;
  finishedAt: string | null;
  /** pending: not verified (a push that never finished, or a watch cycle); undo still takes back whatever of it landed. */
  state: Journal['state'];
  undoneAt: string | null;
  changes: { written: number; deleted: number; moved: number; chmod: number };
  /** Every path the push touched (a rename's target). */
  paths: string[];
  /** Server-side copies taken before the push replaced content (`.hostsync/backups/`). */
  copies: JournalArchive[];
}

export interface HistoryResult extends Partial<FailureFields> {
  ok: boolean;
  pushes: HistoryItem[];
  /** An undo was interrupted (undo-pending marker): what to run; null when none is. */
  interruptedUndo: string | null;
  requests: RequestsSummary;
  deployment: DeploymentRef | null;
}

export const emptyHistoryResult = (): HistoryResult => ({ ok: false, pushes: [], interruptedUndo: null, requests: requestsOf(null), deployment: null });

export function historyItem(j: Journal): HistoryItem {
  const changes = { written: 0, deleted: 0, moved: 0, chmod: 0 };
  const paths: string[] = [];
  for (const r of j.records) {
    if (r.movedTo !== undefined) continue;
    paths.push(r.path);
    if (r.movedFrom !== undefined) changes.moved++;
    else if (!r.after) changes.deleted++;
    else if (r.before && sameContent(r.before, r.after)) changes.chmod++;
    else changes.written++;
  }
  return { id: j.id, startedAt: j.startedAt, finishedAt: j.finishedAt, state: j.state, undoneAt: j.undoneAt, changes, paths, copies: j.archives };
}

/** `hostsync history` as a function: the pushes `undo` can take back. Reads only local files. Never rejects. */
export function runHistory(opts: ConnectionOptions = {}): Promise<{ result: Outcome<HistoryResult>; thrown: boolean }> {
  return runOnSession(
    opts,
    (known) => ({ ...emptyHistoryResult(), ...known }),
    async (session) => ({
      ok: true,
      pushes: (await journalStore(session).list()).map(historyItem),
      interruptedUndo: await undoPendingStore(session).load().then((p) => (p === null ? null : interruptedUndoMessage(p, 'status'))),
      requests: requestsOf(session.client.stats()),
      deployment: deploymentRef(session.config),
    }),
  );
}

export async function history(opts: ConnectionOptions = {}): Promise<HistoryResult> {
  return (await runHistory(opts)).result;
}
