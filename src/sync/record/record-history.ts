/**
 * The deployment's pushes as the base record holds them (state/base-record.ts): every batch
 * from every machine since the last compaction, which keeps at least the newest
 * RECORD_KEEP_PUSHES pushes. What `history` lists and `rollback` finds its target in. Pure.
 */
import type { BaseRecord, Batch, BatchKind, BatchPath } from '../../state/base-record.js';

export interface RecordedBatch {
  id: string;
  /** ISO time, the writer's clock. */
  time: string;
  /** `snapshot`: the record written whole, by the first push (or the push after a damaged record). */
  kind: BatchKind;
  host: string;
  /** The synced folder's name on the writing machine (a hint, not a path). */
  dir: string;
  git: { head: string; subject: string | null; clean: boolean } | null;
  /** Paths whose content the batch changed. */
  files: number;
  /** A rollback's target batch. */
  to: string | null;
  /**
   * Whether the app was healthy after it: known only for batches this machine recorded and
   * logged (push.log); null elsewhere.
   */
  healthy: boolean | null;
}

export interface RecordedPath {
  path: string;
  before: { hash: string | null; size: number; executable: boolean } | null;
  after: { hash: string | null; size: number; executable: boolean } | null;
}

/** Shortest id prefix `history <id>` and `rollback <id>` accept: 4 hex digits of a 16-digit id. */
export const MIN_ID_PREFIX = 4;

export function recordedBatch(b: Batch, healthy: ReadonlyMap<string, boolean> = new Map()): RecordedBatch {
  const h = b.header;
  return {
    id: h.id,
    time: h.t,
    kind: h.kind,
    host: h.host,
    dir: h.dir,
    git: h.git ? { head: h.git.head, subject: h.git.subject ?? null, clean: h.git.clean } : null,
    files: b.paths.length,
    to: h.to ?? null,
    healthy: healthy.get(h.id) ?? null,
  };
}

/**
 * A compaction's snapshot (remote-record.ts names it `<id>-s`) folds older pushes: it is no
 * push of its own. A first push's snapshot is one: it states the whole tree it left.
 */
export const isPush = (b: Batch): boolean => !(b.snapshot && b.header.id.endsWith('-s'));

/** The record's pushes (every batch but a compaction's snapshot), newest first. */
export function listBatches(record: BaseRecord, healthy: ReadonlyMap<string, boolean> = new Map()): RecordedBatch[] {
  return record.batches.filter(isPush).map((b) => recordedBatch(b, healthy)).reverse();
}

const entryOut = (e: BatchPath['after'] | undefined): RecordedPath['after'] => (e ? { hash: e.hash, size: e.size, executable: e.executable } : null);

export const recordedPaths = (b: Batch): RecordedPath[] => b.paths.map((p) => ({ path: p.path, before: entryOut(p.before), after: entryOut(p.after) }));

export type Found = { index: number; batch: Batch } | { error: string };

/**
 * The batch `id` names: its whole id, or a unique prefix of MIN_ID_PREFIX or more characters.
 * The error says why none is, and what to do.
 */
export function findBatch(record: BaseRecord, id: string): Found {
  const want = id.trim().toLowerCase();
  if (want.length < MIN_ID_PREFIX) return { error: `"${id}" is too short to name a push: give at least ${MIN_ID_PREFIX} characters of an id hostsync history lists` };
  const hits: number[] = [];
  record.batches.forEach((b, i) => {
    if (isPush(b) && b.header.id.toLowerCase().startsWith(want)) hits.push(i);
  });
  if (hits.length === 1) return { index: hits[0]!, batch: record.batches[hits[0]!]! };
  if (hits.length > 1) return { error: `"${id}" names ${hits.length} pushes: give more of the id (hostsync history lists them)` };
  return { error: `no push "${id}" in the deployment's record: hostsync history lists the pushes it holds (the newest 50 at least; older ones were compacted)` };
}
