/**
 * The base record: what hostsync last left on the deployment, kept ON the deployment (in
 * `.hostsync/base-<32 hex>.rec`) so that any machine (a CI clone, a teammate, a second copy)
 * has the base the three-way merge needs. This file is its text format, pure: no I/O.
 *
 *   hostsync base record 1
 *   S {"t":..,"id":..,"kind":"snapshot",..}     the whole base at compaction time
 *   <shared>\t<suffix>\t<entry>                  one per path, sorted, front-coded
 *   B {"t":..,"id":..,"kind":"push",..}          one appended batch per push / cycle / pull...
 *   <shared>\t<suffix>\t<before>\t<after>        what hostsync believed the path held, and left
 *   @tail <32 hex>
 *
 * An entry is `-` (absent) or `<hash>:<size>` with `x` appended when executable and `g` when
 * the writing copy had the file from its git commit (tracked, or its build's output); the
 * hash is 16 hex digits or `?` (unknown). A reader without a base of its own deletes on the
 * deployment only paths whose newest entry has `g` (docs/teams-and-ci.md). `<shared>` is how many leading UTF-16 code units the path
 * shares with the previous path of its batch; the suffix escapes `%`, TAB, LF and CR as %XX.
 *
 * Invariants: the file ends with exactly one `@tail` line, a random nonce that changes with
 * every batch, so appending one is an exact-match compare-and-swap (files.edit with the tail
 * line as oldString). A batch carries before and after: a reader whose remote holds the
 * before takes it that the batch's write did not land (yet), so a batch recorded before its
 * transfer is safe. Anything not exactly this shape is a RecordFormatError: a damaged record
 * is treated as absent by its callers, never as permission to overwrite.
 */
import { randomBytes } from 'node:crypto';
import type { Entry, Snapshot } from '../model/types.js';
import { comparePaths } from '../model/paths.js';
import { deltaOver, knownEqual } from '../model/lazy-snapshot.js';

export const RECORD_MAGIC = 'hostsync base record 1';
/** The record's folder on the deployment and its file names (128 random bits: a runtime serving the volume must not be able to guess its URL). */
export const RECORD_DIR = '.hostsync';
export const RECORD_NAME = /^\.hostsync\/base-[0-9a-f]{32}\.rec$/;
export const newRecordPath = (): string => `${RECORD_DIR}/base-${randomBytes(16).toString('hex')}.rec`;
/** Where pushes keep their copies of what they replace (every index ignores `.hostsync/`). */
export const BACKUP_DIR = `${RECORD_DIR}/backups`;
const COPY_FOLDER = /^\.hostsync\/backups\/[0-9a-f]{32}$/;

/**
 * The copy folder a batch header names, when it is one a push makes (`.hostsync/backups/<32
 * hex>`); null otherwise. The record is written by whoever can write files: a folder anywhere
 * else (`..`, absolute, the app's own files) is never opened, moved from or cleaned up.
 */
export function copyFolderIn(header: Pick<BatchHeader, 'copy'>): string | null {
  return header.copy !== undefined && COPY_FOLDER.test(header.copy) ? header.copy : null;
}

/**
 * `rollback`: a `hostsync rollback <id>` (sync/two-way/rollback.ts), its header naming the batch it
 * went back to in `to`. A hostsync older than the kind reads the record as damaged: absent,
 * files that differ are conflicts, never overwrites (safe, if noisy).
 */
export type BatchKind = 'snapshot' | 'push' | 'watch' | 'pull' | 'resolve' | 'undo' | 'rollback';
const BATCH_KINDS: readonly string[] = ['snapshot', 'push', 'watch', 'pull', 'resolve', 'undo', 'rollback'];

export interface BatchHeader {
  /** ISO time the batch was recorded (the writer's clock). */
  t: string;
  /** Random id of the push, cycle, pull... that recorded it. */
  id: string;
  kind: BatchKind;
  /** Where it came from: host name, and the synced folder's name (a hint, not a path). */
  host: string;
  dir: string;
  /** hostsync version of the writer. */
  v: string;
  /** The writing copy's git position, when its folder is a git work tree (copy-position.ts reads it). */
  git?: GitStamp;
  /** A rollback's target: the id of the batch whose outcome it put back. */
  to?: string;
  /**
   * A push's undo copy: the folder (`.hostsync/backups/<32 hex>`) that holds an archive of the
   * files it overwrote by upload or archive, which files.history keeps no version of. Chosen
   * before the record is written, taken after: a push that failed between the two names a
   * folder that does not exist. Read from the deployment: copyFolderIn checks it before use.
   */
  copy?: string;
}

/**
 * Where a batch came from in git terms: what another copy needs to tell "behind" from
 * "ahead" without network access. `anc`: the newest ancestors of `head` (RECORD_GIT_ANCESTORS,
 * abbreviated to GIT_ABBREV hex digits), as far as the writing copy could see them.
 */
export interface GitStamp {
  /** The HEAD commit (40 or 64 hex). */
  head: string;
  /** No tracked file modified and no untracked, not ignored file: the deploy was the commit. */
  clean: boolean;
  /** The commit's committer time, seconds since the epoch. */
  time: number;
  anc: string[];
  /** The commit's subject line, cut to GIT_SUBJECT_MAX characters (history shows it, escaped). */
  subject?: string;
}

/** Characters of a commit subject a batch header keeps: a line to show, not the message. */
export const GIT_SUBJECT_MAX = 72;

/** Hex digits an ancestor id keeps in a record (as `git log --abbrev=12`): 12 a batch in 32 ancestors is ~420 bytes. */
export const GIT_ABBREV = 12;

/** What a path held: null = absent. `git`: the writing copy had it from its commit (absent: unknown, never assumed). */
export type RecEntry = (Pick<Entry, 'hash' | 'size' | 'executable'> & { git?: boolean }) | null;

export interface BatchPath {
  path: string;
  /** Undefined in a snapshot batch (no before: it states the base as a whole). */
  before?: RecEntry;
  after: RecEntry;
}

export interface Batch {
  header: BatchHeader;
  snapshot: boolean;
  paths: BatchPath[];
  /** UTF-8 bytes of its lines in the record (header and paths): what compaction weighs. */
  bytes: number;
}

export interface BaseRecord {
  batches: Batch[];
  tail: string;
  /** Bytes (UTF-8) of the magic line and the snapshot batch; the rest is appended batches and the tail. */
  snapshotBytes: number;
  totalBytes: number;
}

export class RecordFormatError extends Error {
  constructor(line: number, why: string) {
    super(`line ${line}: ${why}`);
    this.name = 'RecordFormatError';
  }
}

export const newNonce = (): string => randomBytes(16).toString('hex');
export const tailLine = (nonce: string): string => `@tail ${nonce}\n`;

function encodeEntry(e: RecEntry): string {
  if (e === null) return '-';
  return `${e.hash ?? '?'}:${e.size}${e.executable ? 'x' : ''}${e.git ? 'g' : ''}`;
}

const ENTRY = /^([0-9a-f]{16}|\?):(0|[1-9][0-9]*)(x?)(g?)$/;

function decodeEntry(s: string, line: number): RecEntry {
  if (s === '-') return null;
  const m = ENTRY.exec(s);
  if (!m) throw new RecordFormatError(line, `bad entry ${JSON.stringify(s.slice(0, 40))}`);
  const size = Number(m[2]);
  if (!Number.isSafeInteger(size)) throw new RecordFormatError(line, 'size out of range');
  return { hash: m[1] === '?' ? null : m[1]!, size, executable: m[3] === 'x', ...(m[4] === 'g' ? { git: true } : {}) };
}

const escapeSuffix = (s: string): string => s.replace(/[%\t\n\r]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase().padStart(2, '0')}`);

function unescapeSuffix(s: string, line: number): string {
  if (!s.includes('%')) return s;
  return s.replace(/%(..)/g, (_m, hex: string) => {
    if (hex !== '25' && hex !== '09' && hex !== '0A' && hex !== '0D') throw new RecordFormatError(line, 'bad escape in a path');
    return String.fromCharCode(Number.parseInt(hex, 16));
  });
}

function sharedPrefix(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  let i = 0;
  while (i < n && a.charCodeAt(i) === b.charCodeAt(i)) i++;
  return i;
}

/** One batch's lines (no tail). Paths are written sorted, front-coded. */
export function batchText(header: BatchHeader, paths: readonly BatchPath[], snapshot = false): string {
  const sorted = [...paths].sort((a, b) => comparePaths(a.path, b.path));
  const out: string[] = [`${snapshot ? 'S' : 'B'} ${JSON.stringify(header)}\n`];
  let prev = '';
  for (const p of sorted) {
    const shared = sharedPrefix(prev, p.path);
    const cols = [String(shared), escapeSuffix(p.path.slice(shared))];
    if (!snapshot) cols.push(encodeEntry(p.before ?? null));
    cols.push(encodeEntry(p.after));
    out.push(`${cols.join('\t')}\n`);
    prev = p.path;
  }
  return out.join('');
}

/** A whole record holding one snapshot batch of `base`, ending with a tail of `nonce`. */
export function snapshotText(header: BatchHeader, base: Iterable<Entry & { git?: boolean }>, nonce: string, fromCommit: ((path: string) => boolean) | null = null): string {
  const paths: BatchPath[] = [];
  for (const e of base) {
    const git = e.git === true || (fromCommit !== null && fromCommit(e.path));
    paths.push({ path: e.path, after: { hash: e.hash, size: e.size, executable: e.executable, ...(git ? { git } : {}) } });
  }
  return `${RECORD_MAGIC}\n${batchText({ ...header, kind: 'snapshot' }, paths, true)}${tailLine(nonce)}`;
}

/** The record's text with `batch` appended: the text a files.edit of the tail line leaves. */
export function appendedText(text: string, oldTail: string, batch: string, newTail: string): string {
  const tail = tailLine(oldTail);
  if (!text.endsWith(tail)) throw new Error('base record: the text does not end with its tail');
  return `${text.slice(0, text.length - tail.length)}${batch}${tailLine(newTail)}`;
}

/**
 * What parseRecord(appendedText(text, record.tail, batch, newTail)) answers, for `record`
 * parsed from `text` and `batch` from batchText (not a snapshot), without parsing `text`
 * again: at 100k files that is ~0.2 s of each watch cycle.
 */
export function appendedRecord(record: BaseRecord, batch: string, newTail: string): BaseRecord {
  const added = parseRecord(`${RECORD_MAGIC}\n${batch}${tailLine(newTail)}`);
  if (added.batches.some((b) => b.snapshot)) throw new Error('base record: only a batch is appended, never a snapshot');
  return { batches: [...record.batches, ...added.batches], tail: newTail, snapshotBytes: record.snapshotBytes, totalBytes: record.totalBytes + Buffer.byteLength(batch) };
}

function parseHeader(s: string, line: number): BatchHeader {
  let h: unknown;
  try {
    h = JSON.parse(s);
  } catch {
    throw new RecordFormatError(line, 'batch header is not JSON');
  }
  const o = h as Record<string, unknown>;
  const str = (k: string): string => {
    const v = o?.[k];
    if (typeof v !== 'string') throw new RecordFormatError(line, `batch header without ${k}`);
    return v;
  };
  const kind = str('kind');
  if (!BATCH_KINDS.includes(kind)) throw new RecordFormatError(line, `unknown batch kind ${kind}`);
  const git = o.git === undefined ? undefined : parseGitStamp(o.git, line);
  if (o.to !== undefined && typeof o.to !== 'string') throw new RecordFormatError(line, 'bad rollback target in a batch header');
  const to = o.to as string | undefined;
  // Kept as written (a record naming a folder elsewhere is not damaged): copyFolderIn judges it where it is used.
  if (o.copy !== undefined && typeof o.copy !== 'string') throw new RecordFormatError(line, 'bad copy folder in a batch header');
  const copy = o.copy as string | undefined;
  return {
    t: str('t'),
    id: str('id'),
    kind: kind as BatchKind,
    host: str('host'),
    dir: str('dir'),
    v: str('v'),
    ...(git ? { git } : {}),
    ...(to !== undefined ? { to } : {}),
    ...(copy !== undefined ? { copy } : {}),
  };
}

const COMMIT = /^([0-9a-f]{40}|[0-9a-f]{64})$/;
const ABBREV = new RegExp(`^[0-9a-f]{${GIT_ABBREV}}$`);
/** More ancestors than any writer records is a forged or damaged header. */
const MAX_ANCESTORS = 256;

/** A batch's git stamp, strictly: anything else is a damaged record, never a guess. */
function parseGitStamp(g: unknown, line: number): GitStamp {
  const o = g as Record<string, unknown> | null;
  const ok =
    typeof o === 'object' &&
    o !== null &&
    typeof o.head === 'string' &&
    COMMIT.test(o.head) &&
    typeof o.clean === 'boolean' &&
    typeof o.time === 'number' &&
    Number.isSafeInteger(o.time) &&
    Array.isArray(o.anc) &&
    o.anc.length <= MAX_ANCESTORS &&
    o.anc.every((a) => typeof a === 'string' && ABBREV.test(a)) &&
    (o.subject === undefined || (typeof o.subject === 'string' && o.subject.length <= GIT_SUBJECT_MAX));
  if (!ok) throw new RecordFormatError(line, 'bad git stamp in a batch header');
  const subject = o.subject as string | undefined;
  return { head: o.head as string, clean: o.clean as boolean, time: o.time as number, anc: [...(o.anc as string[])], ...(subject !== undefined ? { subject } : {}) };
}

/** Parses a whole record; throws RecordFormatError on anything but an intact record of this version. */
export function parseRecord(text: string): BaseRecord {
  if (!text.startsWith(`${RECORD_MAGIC}\n`)) {
    throw new RecordFormatError(1, text.startsWith('hostsync base record ') ? 'a record of another version' : 'not a hostsync base record');
  }
  if (!text.endsWith('\n')) throw new RecordFormatError(0, 'truncated (no final newline)');
  const lines = text.split('\n');
  lines.pop();
  // Nearly every record is ASCII, where a line's bytes are its length: no byte count per line (100k at 100k files).
  const ascii = Buffer.byteLength(text) === text.length;
  const batches: Batch[] = [];
  let cur: Batch | null = null;
  let prev = '';
  let tail: string | null = null;
  let snapshotBytes = Buffer.byteLength(lines[0]!) + 1;
  let bytes = snapshotBytes;
  for (let i = 1; i < lines.length; i++) {
    const line = lines[i]!;
    const n = i + 1;
    if (tail !== null) throw new RecordFormatError(n, 'text after the tail');
    const kind = line.charCodeAt(0);
    if (line.startsWith('@tail ')) {
      tail = line.slice(6);
      if (!/^[0-9a-f]{32}$/.test(tail)) throw new RecordFormatError(n, 'bad tail');
      continue;
    }
    const lineBytes = (ascii ? line.length : Buffer.byteLength(line)) + 1;
    if ((kind === 0x53 /* S */ || kind === 0x42) /* B */ && line.charCodeAt(1) === 0x20) {
      const snapshot = kind === 0x53;
      if (snapshot && batches.length > 0) throw new RecordFormatError(n, 'a snapshot after the first batch');
      cur = { header: parseHeader(line.slice(2), n), snapshot, paths: [], bytes: lineBytes };
      batches.push(cur);
      prev = '';
      if (snapshot) snapshotBytes += lineBytes;
      bytes += lineBytes;
      continue;
    }
    if (cur === null) throw new RecordFormatError(n, 'an entry before any batch header');
    const cols = line.split('\t');
    if (cols.length !== (cur.snapshot ? 3 : 4)) throw new RecordFormatError(n, 'wrong number of columns');
    const shared = Number(cols[0]);
    if (!/^(0|[1-9][0-9]*)$/.test(cols[0]!) || shared > prev.length) throw new RecordFormatError(n, 'bad shared prefix length');
    const path = prev.slice(0, shared) + unescapeSuffix(cols[1]!, n);
    if (path === '' || (prev !== '' && comparePaths(prev, path) >= 0)) throw new RecordFormatError(n, 'paths out of order');
    if (cur.snapshot) cur.paths.push({ path, after: decodeEntry(cols[2]!, n) });
    else cur.paths.push({ path, before: decodeEntry(cols[2]!, n), after: decodeEntry(cols[3]!, n) });
    prev = path;
    cur.bytes += lineBytes;
    if (cur.snapshot) snapshotBytes += lineBytes;
    bytes += lineBytes;
  }
  if (tail === null) throw new RecordFormatError(lines.length, 'truncated (no tail line)');
  return { batches, tail, snapshotBytes, totalBytes: bytes + tailLine(tail).length };
}

/**
 * Where a compaction of `batches` cuts: the index of the first batch it keeps as a batch.
 * Kept: the newest `keepPushes` push and watch batches and every batch after the oldest of
 * them, and at least the newest `keepBatches` batches. 0: nothing older to fold.
 */
export function keptFrom(batches: readonly Batch[], keepPushes: number, keepBatches: number): number {
  let pushes = 0;
  let from = Math.max(0, batches.length - keepBatches);
  for (let i = batches.length - 1; i >= 0 && pushes < keepPushes; i--) {
    const k = batches[i]!.header.kind;
    if (k === 'push' || k === 'watch') {
      pushes++;
      from = Math.min(from, i);
    }
  }
  // The snapshot is never kept as a batch: compaction makes a new one.
  return Math.max(from, batches[0]?.snapshot ? 1 : 0);
}

/** UTF-8 bytes of the appended batches before index `from` (the snapshot aside): what a compaction at `from` would fold. */
export const foldedBytes = (batches: readonly Batch[], from: number): number => batches.slice(0, from).reduce((n, b) => n + (b.snapshot ? 0 : b.bytes), 0);

/** The batch ids a record holds (a reader's "seen" set). */
export const batchIds = (r: BaseRecord): Set<string> => new Set(r.batches.map((b) => b.header.id));

/** A path's entry in a snapshot, as the record states it. */
export const recEntryOf = (e: Entry | undefined | null): RecEntry => (e ? { hash: e.hash, size: e.size, executable: e.executable } : null);

/** `paths` with each after entry marked as from the writing copy's commit where `fromCommit` says so. */
export function markedFromCommit(paths: readonly BatchPath[], fromCommit: ((path: string) => boolean) | null): BatchPath[] {
  if (fromCommit === null) return [...paths];
  return paths.map((p) => (p.after !== null && fromCommit(p.path) ? { ...p, after: { ...p.after, git: true } } : p));
}

/** Two recorded entries hold the same file (content and executable bit; the `g` mark aside). An Entry is one too. */
export const recEntriesEqual = (a: RecEntry | undefined, b: RecEntry | undefined): boolean =>
  !a || !b ? !a && !b : a.hash === b.hash && a.size === b.size && a.executable === b.executable;

/** The batch's paths: every path whose entry differs between `before` and `after` (null before: every after path). */
export function diffBases(before: Snapshot | null, after: Snapshot): BatchPath[] {
  if (before !== null && knownEqual(before, after)) return [];
  const out: BatchPath[] = [];
  const same = recEntriesEqual;
  // A no-op's next base is known equal to its base (reconcile's copy), a few local changes'
  // known to differ in their paths alone (reconcile's delta): at 100k files, comparing them
  // would make both trees' entries (0.65 s of a warm no-op status).
  const delta = deltaOver(after, before);
  if (delta !== null) {
    for (const [p, d] of delta) {
      const b = d.base ?? undefined;
      const e = d.local ?? undefined;
      if (!same(b, e)) out.push({ path: p, before: recEntryOf(b), after: recEntryOf(e) });
    }
    return out.sort((x, y) => comparePaths(x.path, y.path));
  }
  for (const [p, e] of after) {
    const b = before?.get(p);
    if (!same(b, e)) out.push({ path: p, before: recEntryOf(b), after: recEntryOf(e) });
  }
  if (before) for (const [p, b] of before) if (!after.has(p)) out.push({ path: p, before: recEntryOf(b), after: null });
  return out;
}

/**
 * The newest batch header of one of `kinds` in a record's text, found from its end without
 * parsing the rest (a current copy at 100k files is ~3 MB; parsing it is ~0.5 s). Null when
 * none, or when the header found is not intact (a damaged record is parsed, and refused, by
 * whoever needs its batches).
 */
export function lastHeaderOf(text: string, kinds: ReadonlySet<BatchKind>): BatchHeader | null {
  let end = text.length;
  for (;;) {
    const at = Math.max(text.lastIndexOf('\nB {', end - 1), text.lastIndexOf('\nS {', end - 1));
    if (at < 0) return null;
    const eol = text.indexOf('\n', at + 1);
    try {
      const h = parseHeader(text.slice(at + 3, eol < 0 ? text.length : eol), 0);
      if (kinds.has(h.kind)) return h;
    } catch {
      return null;
    }
    end = at;
  }
}
