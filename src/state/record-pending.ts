/**
 * A watch's batches not yet in the deployment's base record: `.hostsync/<deployment>/
 * record-pending.json`, path -> {before, after} (base-record.ts BatchPath). A watch cycle no
 * longer records before it sends (one request a save); it adds its paths here, and the watch
 * records them in one batch at its next quiet moment (sync/watch-cycle/scoped-sync.ts recordPending), or
 * the next whole push folds them into its own batch (sync/push/push.ts). Until then other copies
 * see those writes as changes made on the deployment (drift or conflicts), never as
 * permission to overwrite: a batch recorded late is safe by the record's before/after rule.
 *
 * Written before the cycle's first byte is sent, beside the unverified record, without fsync:
 * lost to an OS crash, the writes it names are, to every other copy, hand edits; to this one,
 * part of its own base.
 */
import { readFile, rm } from 'node:fs/promises';
import path from 'node:path';
import { writeFileAtomic } from '../local/atomic-write.js';
import { recEntriesEqual, type BatchPath, type RecEntry } from './base-record.js';

const FILE = 'record-pending.json';

const entry = (v: unknown): v is RecEntry =>
  v === null || (typeof v === 'object' && typeof (v as { size?: unknown }).size === 'number' && ['string', 'object'].includes(typeof (v as { hash?: unknown }).hash));

export async function loadPendingRecord(stateDir: string): Promise<Map<string, BatchPath>> {
  const out = new Map<string, BatchPath>();
  try {
    const rows = JSON.parse(await readFile(path.join(stateDir, FILE), 'utf8')) as unknown;
    if (!Array.isArray(rows)) return out;
    for (const r of rows as Array<Partial<BatchPath>>) {
      if (typeof r?.path !== 'string' || !entry(r.before) || !entry(r.after)) continue;
      out.set(r.path, { path: r.path, before: r.before, after: r.after });
    }
  } catch {
    // None, or damaged: nothing pending (those writes read as hand edits elsewhere, never as permission).
  }
  return out;
}

export async function savePendingRecord(stateDir: string, pending: ReadonlyMap<string, BatchPath>): Promise<void> {
  const file = path.join(stateDir, FILE);
  if (pending.size === 0) {
    await rm(file, { force: true });
    return;
  }
  await writeFileAtomic(file, JSON.stringify([...pending.values()]), { durable: false });
}

/** `pending` with `batch` folded in: a path keeps its first before and takes the newest after; one back where it began drops out. */
export function foldBatch(pending: Map<string, BatchPath>, batch: readonly BatchPath[]): void {
  for (const p of batch) {
    const was = pending.get(p.path);
    const before = was ? (was.before ?? null) : (p.before ?? null);
    if (recEntriesEqual(before, p.after)) pending.delete(p.path);
    else pending.set(p.path, { path: p.path, before, after: p.after });
  }
}
