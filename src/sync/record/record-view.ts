/**
 * The deployment's record as `history` reads it from any machine: one files.index listing
 * only the record (remote-read.ts readRecordListing), then the record itself (one readMany,
 * or a download past its budget; nothing when this machine's copy is current), and what
 * this machine's audit trail (push.log) says of the health after the batches it recorded.
 */
import type { BaseRecord } from '../../state/base-record.js';
import { readRecordListing } from '../remote-read/remote-read.js';
import { parsedRecord, readRecord } from './remote-record.js';
import type { Session } from '../session.js';

export interface RecordView {
  record: BaseRecord | null;
  /** Where it lives on the deployment (null: no record there yet). */
  path: string | null;
  warning: string | null;
  /** Batch id -> healthy after it, for the batches this machine logged with a verdict. */
  healthy: Map<string, boolean>;
}

export async function readRecordView(session: Pick<Session, 'client' | 'stateDir' | 'store'>): Promise<RecordView> {
  const listing = await readRecordListing(session.client);
  // No lock is held: what is read is not kept as this machine's copy (readRecord's `keep`).
  const read = await readRecord(session, listing, false);
  return { record: parsedRecord(read), path: read.path, warning: read.warning, healthy: await healthFromLog(session) };
}

/** Batch id -> the newest health verdict logged for it (push.log lines carry `batch` since issue 48). */
export async function healthFromLog(session: Pick<Session, 'store'>): Promise<Map<string, boolean>> {
  const out = new Map<string, boolean>();
  for (const line of await session.store.readLog()) {
    if (typeof line.batch === 'string' && typeof line.healthy === 'boolean') out.set(line.batch, line.healthy);
  }
  return out;
}
