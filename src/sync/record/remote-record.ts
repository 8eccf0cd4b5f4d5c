/**
 * The base record's edges (format: state/base-record.ts; meaning: record-merge.ts):
 * reading it (free when the local copy's hash is the one files.index listed), and recording
 * a batch as ONE files.edit of its tail line, an exact-match compare-and-swap: when another
 * machine recorded since we read, the edit finds no tail and fails, and the caller re-reads
 * and re-plans (what the other push changed is then a conflict or left alone, never silently
 * overwritten). No record yet: the first batch writes a snapshot with files.write.
 *
 * A record that is damaged, of another version, or unreadable is treated as absent, with one
 * warning, and the next batch rewrites it whole: never a permission to overwrite files.
 */
import { randomBytes } from 'node:crypto';
import { mkdir, mkdtemp, readFile, rm } from 'node:fs/promises';
import { hostname } from 'node:os';
import path from 'node:path';
import { ApiError, OutcomeUnknownError } from '../../remote/errors.js';
import { EXIT, HostsyncError } from '../../errors.js';
import { xxh64Bytes } from '../../local/hash.js';
import {
  appendedRecord,
  appendedText,
  batchText,
  diffBases,
  foldedBytes,
  keptFrom,
  markedFromCommit,
  newNonce,
  newRecordPath,
  parseRecord,
  RecordFormatError,
  snapshotText,
  tailLine,
  type BaseRecord,
  type BatchHeader,
  type BatchKind,
  type BatchPath,
  type GitStamp,
} from '../../state/base-record.js';
import { RecordCopyStore, type RecordCopyMeta } from '../../state/record-copy.js';
import type { Entry } from '../../model/types.js';
import type { RemoteRead } from '../remote-read/remote-read.js';
import type { Session } from '../session.js';
import { WRITE_MANY_MAX_BYTES } from '../../api/limits.js';
import { READ_MANY_BUDGET_BYTES, RECORD_COMPACT_MIN_BYTES, RECORD_KEEP_BATCHES, RECORD_KEEP_PUSHES } from '../tunables.js';

/** hostsync's version as batch headers carry it. */
const TOOL_VERSION = '0.1.0';

export interface RecordRead {
  /** Where the record lives on the deployment (null: none there yet). */
  path: string | null;
  /** Its text, when intact and known (read now, or the local copy was current). */
  text: string | null;
  record: BaseRecord | null;
  /** Batch ids this machine recorded. */
  own: string[];
  /** The local copy was the one listed: nothing was read. */
  current: boolean;
  /** Requests reading it cost (0 when current). */
  requests: number;
  /** Set when a record exists but could not be used (the next batch rewrites it). */
  warning: string | null;
  /**
   * The text of a record that was read but does not parse: the next batch replaces it with a
   * compare-and-swap on exactly this text (files.edit), never a blind write over whatever is
   * there by then. Absent otherwise.
   */
  damagedText?: string;
  /**
   * The record the index listed is binary (readMany reports, never returns, binary files): not
   * a record, and no text to match. The one record replaced by a write, since an edit cannot
   * match bytes that are not text.
   */
  damagedBinary?: true;
}

export const copyStore = (session: Pick<Session, 'stateDir'>): RecordCopyStore => new RecordCopyStore(session.stateDir);

/** Whether the record listed is the local copy's: same place, size and hash (a hashless listing never is). */
function isCurrent(listed: Entry, meta: RecordCopyMeta | null): boolean {
  return meta !== null && listed.hash !== null && meta.path === listed.path && meta.hash === listed.hash && meta.size === listed.size;
}

/**
 * The record as the remote read listed it. `lazy`: when the local copy is current, its text
 * is not parsed (a no-op push at 100k files need not); `parse()` does it when asked.
 */
export async function readRecord(
  session: Pick<Session, 'client' | 'stateDir'>,
  remote: Pick<RemoteRead, 'record'>,
  /**
   * Keep what was read as this machine's copy (only under the lock: `own` is read from the
   * copy and written back, and a committer beside us would lose its id). Without it a
   * machine that never records (a clone whose pushes are no-ops) read the record on every
   * push: +1 request (2 past 120 KB) per no-op, where a current copy costs none.
   */
  keep = false,
): Promise<RecordRead> {
  const store = copyStore(session);
  const meta = await store.meta();
  const own = meta?.own ?? [];
  const listed = remote.record;
  if (listed === null) return { path: null, text: null, record: null, own, current: false, requests: 0, warning: null };
  if (isCurrent(listed, meta)) {
    const copy = await copyRead(session, meta);
    if (copy !== null) return copy;
  }
  let text: string | null = null;
  let requests = 0;
  // A record that cannot be read is an error: treated as absent, the next batch would replace
  // every push it holds with one snapshot. One that was read but does not parse is damaged.
  const unreadable = (why: string): HostsyncError =>
    new HostsyncError(`could not read the deployment's base record (${listed.path}): ${why}; nothing was sent, and the record is left as it is: run the command again`, EXIT.failed);
  const damaged = (why: string, damagedText: string | null): RecordRead => ({
    path: listed.path,
    text: null,
    record: null,
    own,
    current: false,
    requests,
    warning: `the deployment's base record (${listed.path}) ${why}: treated as absent (files that differ are conflicts, as on a first push); the next push rewrites it`,
    ...(damagedText !== null ? { damagedText } : { damagedBinary: true }),
  });
  try {
    if (listed.size <= READ_MANY_BUDGET_BYTES) {
      requests++;
      const f = await readOne(session, listed.path);
      text = f.text;
      if (text === null) {
        // Binary is never a record (it is text): damaged, known without its text. Gone since the
        // listing: absent. Anything else (over the budget, not answered) is not knowing it.
        if (f.skipped === 'binary') return damaged('is binary, not a record', null);
        if (f.skipped === 'not found') return { path: null, text: null, record: null, own, current: false, requests, warning: null };
        throw unreadable(`files.readMany left it out (${f.skipped ?? 'no answer'})`);
      }
    } else {
      requests++;
      text = await downloadText(session, listed.path);
    }
  } catch (err) {
    if (err instanceof ApiError && err.status === 404) return { path: null, text: null, record: null, own, current: false, requests, warning: null };
    if (err instanceof ApiError) throw unreadable(err.message);
    throw err;
  }
  try {
    const record = parsedText(text);
    // A listing without a hash (a record past the index's hash limit) can never be known current:
    // nothing to keep. A copy that cannot be written only costs the next push this read again.
    if (keep && listed.hash !== null) {
      await store.save({ path: listed.path, hash: listed.hash, size: listed.size, tail: record.tail, own }, text).catch(() => undefined);
    }
    return { path: listed.path, text, record, own, current: false, requests, warning: null };
  } catch (err) {
    if (err instanceof RecordFormatError) return damaged(`is damaged or of another version (${err.message})`, text);
    throw err;
  }
}

/**
 * This machine's copy of the record as a read of it, without a request: what it last read
 * or recorded. Current only as far as the caller knows (a listing with its hash, or a
 * compare-and-swap on its tail); null when there is no usable copy.
 */
export async function copyRead(session: Pick<Session, 'stateDir'>, known?: RecordCopyMeta | null): Promise<RecordRead | null> {
  const store = copyStore(session);
  const meta = known === undefined ? await store.meta() : known;
  const text = meta === null ? null : await store.text(meta);
  if (meta === null || text === null) return null;
  return { path: meta.path, text, record: null, own: meta.own, current: true, requests: 0, warning: null };
}

/** The copy's description, when it is of the record `listed` (same place, size and hash); its text is not read. */
export async function currentCopyMeta(session: Pick<Session, 'stateDir'>, listed: Entry | null): Promise<RecordCopyMeta | null> {
  const meta = await copyStore(session).meta();
  return listed !== null && isCurrent(listed, meta) ? meta : null;
}

/** One file's text by files.readMany within its budget: the content, or why the answer left it out. */
async function readOne(session: Pick<Session, 'client'>, where: string): Promise<{ text: string | null; skipped: string | null }> {
  const res = await session.client.files.readMany([where], READ_MANY_BUDGET_BYTES);
  const f = res.files.find((x) => x.path === where || x.path === `/${where}`) ?? res.files[0];
  return { text: f?.content ?? null, skipped: f?.skipped ?? null };
}

/** A file past readMany's budget: files.downloadUrl and its download (outside the API budget), through the state folder. */
async function downloadText(session: Pick<Session, 'client' | 'stateDir'>, where: string): Promise<string> {
  // A command that only reads (status, diff) on a fresh clone may be the first to need the state folder.
  await mkdir(session.stateDir, { recursive: true });
  const dir = await mkdtemp(path.join(session.stateDir, 'record-'));
  try {
    await session.client.files.download(where, path.join(dir, 'record.txt'));
    return await readFile(path.join(dir, 'record.txt'), 'utf8');
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/**
 * The record at `where` read again from the deployment, with no index read to list it (a
 * watch's copy lost a compare-and-swap: another machine recorded since): one readMany, or,
 * past its budget, a download. Kept as this machine's copy. Null when it is gone, damaged or
 * cannot be read: the caller leaves its batch for the next whole push.
 */
export async function rereadRecord(session: Pick<Session, 'client' | 'stateDir'>, where: string, own: string[]): Promise<RecordRead | null> {
  try {
    const f = await readOne(session, where);
    const text = f.text ?? (f.skipped === 'budget' ? await downloadText(session, where) : null);
    if (text === null) return null;
    const record = parsedText(text);
    const bytes = Buffer.from(text, 'utf8');
    await copyStore(session).save({ path: where, hash: await xxh64Bytes(bytes), size: bytes.length, tail: record.tail, own }, text);
    return { path: where, text, record, own, current: true, requests: 1, warning: null };
  } catch (err) {
    if (err instanceof RecordFormatError || err instanceof ApiError) return null;
    throw err;
  }
}

/**
 * The record last parsed or committed in this process, by its exact text. A watch reads its
 * copy again every cycle to append the cycle's batch: a text equal to this one is not parsed
 * again (~0.2 s of CPU a cycle at 100k files, for ~3 MB of text compared). A BaseRecord is
 * never changed once made, so reads may share it.
 */
let lastParsed: { text: string; record: BaseRecord } | null = null;

/** parseRecord(text), through lastParsed (it throws as parseRecord does). */
function parsedText(text: string): BaseRecord {
  if (lastParsed !== null && lastParsed.text === text) return lastParsed.record;
  const record = parseRecord(text);
  lastParsed = { text, record };
  return record;
}

/** Keeps what `text` parses to for the next read of it; a memo only: a commit that landed never fails here. */
function rememberCommitted(text: string, record: () => BaseRecord): void {
  try {
    lastParsed = { text, record: record() };
  } catch {
    lastParsed = null;
  }
}

/** The parsed record of a read (a current copy is parsed on first ask); null when there is none. */
export function parsedRecord(read: RecordRead): BaseRecord | null {
  if (read.record === null && read.text !== null) {
    try {
      read.record = parsedText(read.text);
    } catch {
      read.text = null;
    }
  }
  return read.record;
}

/** What a batch's header carries besides who and when: a rollback's target, a push's undo copy folder. */
export type HeaderExtra = Pick<BatchHeader, 'to' | 'copy'>;

export function batchHeader(session: Pick<Session, 'config'>, kind: BatchKind, git?: GitStamp, extra: HeaderExtra = {}): BatchHeader {
  const { to, copy } = extra;
  return {
    t: new Date().toISOString(),
    id: randomBytes(8).toString('hex'),
    kind,
    host: hostname(),
    dir: path.basename(session.config.root),
    v: TOOL_VERSION,
    ...(git ? { git } : {}),
    ...(to !== undefined ? { to } : {}),
    ...(copy !== undefined ? { copy } : {}),
  };
}

/**
 * Where a batch comes from in git terms (copy-stamp.ts makes it): the header's stamp, and
 * which of its paths the copy has from its commit (their entries get the `g` mark).
 */
export interface BatchStamp {
  git: GitStamp;
  fromCommit: (path: string) => boolean;
}

export type CommitResult = { ok: true; id: string; requests: number } | { ok: false; id: string; requests: number };

/**
 * Records one batch. `paths`: the paths whose base changes (before: what the record says
 * hostsync left, after: what this sync leaves). `whole`: the whole base after this sync, for
 * a record written anew (none yet, damaged, or compacted). Not ok: another machine recorded
 * since `read` (or the answer was lost): nothing was changed by us that a re-read will not
 * show, and the caller re-reads and re-plans.
 */
export async function commitBatch(
  session: Pick<Session, 'client' | 'stateDir' | 'config'>,
  read: RecordRead,
  kind: BatchKind,
  given: readonly BatchPath[],
  whole: () => Iterable<Entry>,
  stamp: BatchStamp | null = null,
  /** The header's `to` (a rollback's target batch id) and `copy` (a push's undo copy folder). */
  extra: HeaderExtra = {},
): Promise<CommitResult> {
  const header = batchHeader(session, kind, stamp?.git, extra);
  const fromCommit = stamp?.fromCommit ?? null;
  const paths = markedFromCommit(given, fromCommit);
  const nonce = newNonce();
  const store = copyStore(session);
  const own = [...read.own, header.id];
  const record = parsedRecord(read);
  const save = async (where: string, text: string): Promise<void> => {
    const bytes = Buffer.from(text, 'utf8');
    await store.save({ path: where, hash: await xxh64Bytes(bytes), size: bytes.length, tail: nonce, own }, text);
  };
  if (record === null || read.text === null || read.path === null) {
    // None yet, or damaged: a snapshot of the whole base.
    const text = snapshotText(header, whole(), nonce, fromCommit);
    if (read.path !== null && read.damagedText !== undefined) {
      // In the damaged one's place, only if it is still exactly what was read (one exact-match edit).
      // An empty file has no text to match: written over (it held nothing to lose when read).
      try {
        if (read.damagedText === '') await session.client.files.write(read.path, text, 'overwrite');
        else await session.client.files.edit(read.path, read.damagedText, text);
      } catch (err) {
        if (err instanceof OutcomeUnknownError || (err instanceof ApiError && (err.status === 409 || err.status === 404))) return { ok: false, id: header.id, requests: 1 };
        throw err;
      }
      await save(read.path, text);
      return { ok: true, id: header.id, requests: 1 };
    }
    if (read.path !== null && !read.damagedBinary) {
      throw new HostsyncError(`the deployment's base record (${read.path}) is there but was not read: nothing replaces it unread; run the push again`, EXIT.failed);
    }
    const where = read.path ?? newRecordPath();
    // files.write documents no cap, but writes a large file "as a first part with overwrite
    // and the rest with append": parts of writeMany's 5 MB, cut at line ends. A reader
    // between two parts finds no tail: a damaged record, absent for that moment.
    const parts = linesUpTo(text, WRITE_MANY_MAX_BYTES);
    for (const [i, part] of parts.entries()) await session.client.files.write(where, part, i === 0 ? 'overwrite' : 'append');
    await save(where, text);
    return { ok: true, id: header.id, requests: parts.length };
  }
  if (paths.length === 0) return { ok: true, id: header.id, requests: 0 };
  const batch = batchText(header, paths);
  // Compaction: the batches older than the kept ones (the newest RECORD_KEEP_PUSHES pushes,
  // which history lists and rollback goes back to) outgrew the snapshot. Weighing only those
  // keeps a record of 50 large pushes from compacting on every push. The whole text is the
  // compare-and-swap's old string then (still one exact-match edit); the kept batches stay
  // batches, so a push in flight elsewhere is still told apart from a failed one.
  const from = keptFrom(record.batches, RECORD_KEEP_PUSHES, RECORD_KEEP_BATCHES);
  const compact = foldedBytes(record.batches, from) > Math.max(record.snapshotBytes, RECORD_COMPACT_MIN_BYTES);
  const next = compact ? compactedText(record, from, header, batch, nonce) : appendedText(read.text, record.tail, batch, nonce);
  const oldString = compact ? read.text : tailLine(record.tail);
  const newString = compact ? next : next.slice(read.text.length - oldString.length);
  try {
    await session.client.files.edit(read.path, oldString, newString);
  } catch (err) {
    if (err instanceof OutcomeUnknownError || (err instanceof ApiError && (err.status === 409 || err.status === 404))) {
      return { ok: false, id: header.id, requests: 1 };
    }
    throw err;
  }
  await save(read.path, next);
  // A compacted text (rare) is parsed by whoever reads it next, not by every push that compacts.
  if (!compact) rememberCommitted(next, () => appendedRecord(record, batch, nonce));
  return { ok: true, id: header.id, requests: 1 };
}

/** `text` cut at line ends into parts of at most `max` UTF-8 bytes (a line longer than that is a part of its own). */
function linesUpTo(text: string, max: number): string[] {
  if (Buffer.byteLength(text) <= max) return [text];
  const parts: string[] = [];
  let start = 0;
  let bytes = 0;
  let cut = 0;
  for (let i = 0; i < text.length; ) {
    const nl = text.indexOf('\n', i);
    const end = nl === -1 ? text.length : nl + 1;
    const n = Buffer.byteLength(text.slice(i, end));
    if (bytes + n > max && cut > start) {
      parts.push(text.slice(start, cut));
      start = cut;
      bytes = 0;
    }
    bytes += n;
    cut = end;
    i = end;
  }
  parts.push(text.slice(start));
  return parts;
}

/** The record rewritten as one snapshot (each path's newest after before `from`) followed by the batches from `from` and `batch`. */
function compactedText(record: BaseRecord, from: number, header: BatchHeader, batch: string, nonce: string): string {
  const keep = record.batches.slice(from);
  const folded = new Map<string, Entry>();
  for (const b of record.batches.slice(0, from)) {
    for (const p of b.paths) {
      if (p.after === null) folded.delete(p.path);
      else folded.set(p.path, { path: p.path, ...p.after });
    }
  }
  const head = snapshotText({ ...header, id: `${header.id}-s` }, folded.values(), nonce);
  const kept = keep.map((b) => batchText(b.header, b.paths, b.snapshot)).join('');
  return `${head.slice(0, head.length - tailLine(nonce).length)}${kept}${batch}${tailLine(nonce)}`;
}

/**
 * Records a base change a command made without planning against the record (pull, resolve,
 * undo): appended to the record as this machine's copy knows it. Returns a warning when it
 * could not be (another machine recorded meanwhile): the record then does not know of it, so
 * other machines see those paths as changed on the deployment (conflicts, never overwrites)
 * until this machine's next push records its base. With no copy and no listing, nothing is
 * recorded (the next push writes the base).
 * `remote`: the command's own remote read, when it made one (under its lock). The copy may be
 * behind the deployment's record (another machine pushed since this one last recorded): it is
 * appended to only when it is the record listed, else the record is read first (readRecord:
 * one request, and kept as the copy), so a lone pull never meets a "change" that is only its
 * stale copy (issue 46).
 */
export async function recordBaseChange(
  session: Pick<Session, 'client' | 'stateDir' | 'config'>,
  kind: BatchKind,
  before: ReadonlyMap<string, Entry> | null,
  after: ReadonlyMap<string, Entry>,
  remote: Pick<RemoteRead, 'record'> | null = null,
): Promise<string | null> {
  const paths = diffBases(before as Map<string, Entry> | null, after as Map<string, Entry>);
  if (paths.length === 0) return null;
  let read: RecordRead;
  if (remote !== null && remote.record !== null) {
    read = await readRecord(session, remote, true);
    if (read.path === null || read.text === null) return null;
  } else {
    const copy = await copyRead(session);
    if (copy === null) return null;
    read = copy;
  }
  if (parsedRecord(read) === null) return null;
  const committed = await commitBatch(session, read, kind, paths, () => []);
  return committed.ok ? null : `the deployment's base record changed meanwhile (another push?): this ${kind} is not recorded there; the next push records the base`;
}
