import { sameContent } from '../model/snapshot.js';
import { usageError } from '../errors.js';
import { findBatch, listBatches, recordedBatch, recordedPaths, type RecordedBatch, type RecordedPath } from '../sync/record/record-history.js';
import { readRecordView } from '../sync/record/record-view.js';
import type { Journal, JournalArchive } from '../state/journal.js';
import { journalStore } from '../sync/push/push-journal.js';
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
  /** `record`: the deployment's pushes from every machine (the base record); `local`: this folder's journal alone (`--local`). */
  source: 'record' | 'local';
  /** The deployment's pushes, newest first (empty with `--local`, or when it has no record yet). */
  batches: RecordedBatch[];
  /** `history <id>`: that push with each path's before and after. */
  batch: (RecordedBatch & { paths: RecordedPath[] }) | null;
  /** The record read: where it is, its size, how many batches it holds. */
  record: { path: string; bytes: number; batches: number } | null;
  warnings: string[];
  /** This folder's pushes `undo` can take back (its journal), newest first. */
  pushes: HistoryItem[];
  /** An undo was interrupted (undo-pending marker): what to run; null when none is. */
  interruptedUndo: string | null;
  requests: RequestsSummary;
  deployment: DeploymentRef | null;
}

export const emptyHistoryResult = (): HistoryResult => ({
  ok: false, source: 'record', batches: [], batch: null, record: null, warnings: [], pushes: [], interruptedUndo: null, requests: requestsOf(null), deployment: null,
});

export interface HistoryOptions extends ConnectionOptions {
  /** This folder's journal alone: no request. */
  local?: boolean;
  /** One push, with its paths' before and after (a unique id prefix of 4 or more characters). */
  id?: string;
}

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

/**
 * `hostsync history` as a function: the deployment's pushes from every machine (its base
 * record: two requests whatever the tree's size, none past the first when this machine's
 * copy is current), and this folder's pushes `undo` can take back. `local`: the latter
 * alone, from local files. Never rejects.
 */
export function runHistory(opts: HistoryOptions = {}): Promise<{ result: Outcome<HistoryResult>; thrown: boolean }> {
  if (opts.local && opts.id !== undefined) return Promise.resolve({ result: { ...emptyHistoryResult(), source: 'local', error: 'history <id> names a push of the deployment\'s record: drop --local', exitCode: 2 }, thrown: false });
  return runOnSession(
    opts,
    (known) => ({ ...emptyHistoryResult(), ...known, source: opts.local ? 'local' : 'record' }),
    async (session) => {
      const result: HistoryResult = {
        ...emptyHistoryResult(),
        ok: true,
        source: opts.local ? 'local' : 'record',
        pushes: (await journalStore(session).list()).map(historyItem),
        interruptedUndo: await undoPendingStore(session).load().then((p) => (p === null ? null : interruptedUndoMessage(p, 'status'))),
        deployment: deploymentRef(session.config),
      };
      if (!opts.local) {
        const view = await readRecordView(session);
        if (view.warning !== null) result.warnings.push(view.warning);
        if (view.record !== null && view.path !== null) {
          result.record = { path: view.path, bytes: view.record.totalBytes, batches: view.record.batches.length };
          result.batches = listBatches(view.record, view.healthy);
          if (opts.id !== undefined) {
            const found = findBatch(view.record, opts.id);
            if ('error' in found) throw usageError(found.error);
            result.batch = { ...recordedBatch(found.batch, view.healthy), paths: recordedPaths(found.batch) };
          }
        } else if (opts.id !== undefined) {
          throw usageError('the deployment has no base record yet (no push has recorded one): nothing to show');
        }
      }
      result.requests = requestsOf(session.client.stats());
      return result;
    },
  );
}

export async function history(opts: HistoryOptions = {}): Promise<HistoryResult> {
  return (await runHistory(opts)).result;
}
