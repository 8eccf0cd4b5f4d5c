/**
 * The format of state.bin, a packed file (local/packed-file.ts): a JSON header, then one
 * record per path of base or remote, sorted by comparePaths. A path whose remote entry
 * equals its base entry (nearly all of them after a sync) stores it once. At 100k files
 * the JSON of former releases was 9.5 MB and took 0.44 s to parse; this is about 3 MB.
 *
 * Reading builds no entries: the file is checked whole (checksum, then every record's
 * structure, without making strings), and base and remote come back as LazySnapshots that
 * make their entries when first read. A scan compares the files it finds against the
 * base's records in place (baseCursor), so a warm no-op `status` never makes them.
 */
import type { RemoteCache, SyncState } from './sync-state.js';
import type { Entry } from '../model/types.js';
import { LazySnapshot, type ExpectedCursor } from '../model/lazy-snapshot.js';
import { PackedReader, PackedWriter } from '../local/packed-file.js';
import { sortedUnion } from '../model/paths.js';

const MAGIC = 'HSST';
const VERSION = 3;

const IN_BASE = 1;
const IN_REMOTE = 2;
const REMOTE_IS_BASE = 4;
const BASE_EXEC = 8;
const REMOTE_EXEC = 16;
const BASE_NO_HASH = 32;
const REMOTE_NO_HASH = 64;

/** Bytes of one entry after the flags: the hash (unless flagged absent), then the size (f64). */
const entryBytes = (noHash: boolean): number => (noHash ? 8 : 16);

interface Header {
  deploymentId: string;
  savedAt: string;
  /** Names this file: the base journal (base-journal.ts) applies only to the state.bin of its generation. */
  generation?: string;
  base: boolean;
  remote: { digest: string; requestKey: string; symlinks: string[]; leftovers: string[]; record?: Entry | null } | null;
}

const sameEntry = (a: Entry, b: Entry): boolean => a.hash === b.hash && a.size === b.size && a.executable === b.executable;

function writeEntry(w: PackedWriter, e: Entry): void {
  if (e.hash !== null) w.hash(e.hash);
  w.f64(e.size);
}

function readEntry(r: PackedReader, p: string, noHash: boolean, executable: boolean): Entry {
  const hash = noHash ? null : r.hash();
  return { path: p, hash, size: r.f64(), executable };
}

export async function encodeState(deploymentId: string, state: Pick<SyncState, 'base' | 'remote'>, generation: string): Promise<Buffer> {
  const { base, remote } = state;
  const header: Header = {
    deploymentId,
    savedAt: new Date().toISOString(),
    generation,
    base: base !== null,
    remote: remote ? { digest: remote.digest, requestKey: remote.requestKey, symlinks: remote.symlinks, leftovers: remote.leftovers, ...(remote.record !== undefined ? { record: remote.record } : {}) } : null,
  };
  const sorted = sortedUnion([...(base ? [base.keys()] : []), ...(remote ? [remote.snapshot.keys()] : [])]);
  const w = new PackedWriter();
  w.str(JSON.stringify(header));
  w.u32(sorted.length);
  for (const p of sorted) {
    const b = base?.get(p);
    const r = remote?.snapshot.get(p);
    const same = b !== undefined && r !== undefined && sameEntry(b, r);
    let flags = 0;
    if (b) flags |= IN_BASE | (b.executable ? BASE_EXEC : 0) | (b.hash === null ? BASE_NO_HASH : 0);
    if (r) flags |= IN_REMOTE | (same ? REMOTE_IS_BASE : (r.executable ? REMOTE_EXEC : 0) | (r.hash === null ? REMOTE_NO_HASH : 0));
    w.path(p);
    w.u8(flags);
    if (b) writeEntry(w, b);
    if (r && !same) writeEntry(w, r);
  }
  return w.finish(MAGIC, VERSION);
}

/** Bytes of a record's entries after its flags. */
function entriesBytes(flags: number): number {
  let n = 0;
  if (flags & IN_BASE) n += entryBytes((flags & BASE_NO_HASH) !== 0);
  if (flags & IN_REMOTE && !(flags & REMOTE_IS_BASE)) n += entryBytes((flags & REMOTE_NO_HASH) !== 0);
  return n;
}

/** What one pass over the records found (see checkRecords). */
interface Census {
  base: number;
  remote: number;
  /** Every record is in both, remote equal to base, with a known hash: the cached remote equals the base. */
  remoteIsBase: boolean;
}

/**
 * Walks every record as decoding would, without making strings for ASCII paths: null when
 * any is malformed (a path prefix longer than the path before it, a record past the end,
 * a remote entry "equal to base" with no base entry), so a file that loads never fails
 * later, when its entries are made.
 */
function checkRecords(r: PackedReader, n: number): Census | null {
  const census: Census = { base: 0, remote: 0, remoteIsBase: true };
  let prevLength = 0;
  for (let i = 0; i < n; i++) {
    const at = r.offset;
    const shared = r.u16At(at);
    const bytes = r.pathBytes();
    if (shared > prevLength) return null;
    const suffix = bytes - 6;
    let length = shared + suffix;
    for (let j = 0; j < suffix; j++) {
      if (r.u8At(at + 6 + j) >= 0x80) {
        length = shared + r.bytesAt(at + 6, suffix).toString('utf8').length;
        break;
      }
    }
    r.skip(bytes);
    prevLength = length;
    const flags = r.u8();
    if (flags & REMOTE_IS_BASE && !(flags & IN_BASE)) return null;
    if (flags & IN_BASE) census.base++;
    if (flags & IN_REMOTE) census.remote++;
    const full = IN_BASE | IN_REMOTE | REMOTE_IS_BASE;
    if ((flags & full) !== full || flags & BASE_NO_HASH) census.remoteIsBase = false;
    r.skip(entriesBytes(flags));
  }
  return r.done ? census : null;
}

/** A state.bin written by a release before the journal has no generation: its save time names it. */
const generationOf = (h: Header): string => h.generation ?? `saved ${h.savedAt}`;

/**
 * The state in `raw`, or null when it is not an intact state of this deployment and version.
 * Base and remote are LazySnapshots over `raw`; the remote is marked equal to the base when
 * every record says so.
 */
export async function decodeState(raw: Buffer, deploymentId: string): Promise<(Pick<SyncState, 'base' | 'remote'> & { generation: string }) | null> {
  const r = await PackedReader.open(raw, MAGIC, VERSION);
  if (r === null) return null;
  const header = JSON.parse(r.str()) as Header;
  if (header.deploymentId !== deploymentId) return null;
  const n = r.u32();
  const records = r.copy();
  const census = checkRecords(r, n);
  if (census === null) return null;
  const h = header.remote;
  const symlinks = h ? strings(h.symlinks) : [];
  const leftovers = h ? strings(h.leftovers) : [];

  const wantBase = header.base;
  const wantRemote = h !== null;
  /** One side's entries, made from the records (both sides in one pass share an Entry where remote equals base). */
  const decodeSides = (sides: { base: boolean; remote: boolean }): { base: Entry[] | null; remote: Entry[] | null } => {
    const out = { base: sides.base ? ([] as Entry[]) : null, remote: sides.remote ? ([] as Entry[]) : null };
    const rr = records.copy();
    for (let i = 0; i < n; i++) {
      const p = rr.path();
      const flags = rr.u8();
      let b: Entry | undefined;
      if (flags & IN_BASE) {
        b = readEntry(rr, p, (flags & BASE_NO_HASH) !== 0, (flags & BASE_EXEC) !== 0);
        out.base?.push(b);
      }
      if (!(flags & IN_REMOTE) || flags & REMOTE_IS_BASE) {
        if (flags & IN_REMOTE) out.remote?.push(b!);
      } else if (out.remote) out.remote.push(readEntry(rr, p, (flags & REMOTE_NO_HASH) !== 0, (flags & REMOTE_EXEC) !== 0));
      else rr.skip(entryBytes((flags & REMOTE_NO_HASH) !== 0));
    }
    return out;
  };
  /**
   * The first read of either side makes both (as the eager decoder did: one pass, shared
   * entries); each side hands its list over once. A copy read later makes its own.
   */
  let first: { base: Entry[] | null; remote: Entry[] | null } | null = null;
  const entriesOf = (side: 'base' | 'remote'): Entry[] => {
    first ??= decodeSides({ base: wantBase, remote: wantRemote });
    const entries = first[side];
    first[side] = null;
    return entries ?? decodeSides({ base: side === 'base', remote: side === 'remote' })[side]!;
  };
  let base: LazySnapshot | null = null;
  let remote: LazySnapshot | null = null;
  if (wantBase) base = new LazySnapshot(census.base, () => entriesOf('base'), () => baseCursor(records, n), (key) => findEntry(records, n, key, 'base'));
  if (h) {
    remote = new LazySnapshot(census.remote, () => entriesOf('remote'), null, (key) => findEntry(records, n, key, 'remote'));
    if (base && census.remoteIsBase) remote.markEqual(base);
  }
  return {
    generation: generationOf(header),
    base,
    remote: h && remote ? { digest: h.digest, requestKey: h.requestKey, snapshot: remote, symlinks, leftovers, ...withRecord(recordOf(h.record)) } : null,
  };
}

/** One side's entry for `key`, read by one pass over the records that makes no entry but that one (LazySnapshot's find). */
function findEntry(records: PackedReader, n: number, key: string, side: 'base' | 'remote'): Entry | undefined {
  const r = records.copy();
  // eslint-disable-next-line no-control-regex
  const ascii = !/[^\x00-\x7f]/.test(key);
  let shared = 0;
  for (let i = 0; i < n; i++) {
    let order: number;
    if (ascii) {
      shared = r.skipPathAgainst(key, shared);
      order = r.order;
    } else {
      const p = r.path();
      order = p < key ? -1 : p > key ? 1 : 0;
    }
    const flags = r.u8();
    // Records are in path order: past `key`, it is not there.
    if (order > 0) return undefined;
    if (order < 0) {
      r.skip(entriesBytes(flags));
      continue;
    }
    const p = key;
    const baseNoHash = (flags & BASE_NO_HASH) !== 0;
    if (side === 'base') return flags & IN_BASE ? readEntry(r, p, baseNoHash, (flags & BASE_EXEC) !== 0) : undefined;
    if (!(flags & IN_REMOTE)) return undefined;
    if (flags & REMOTE_IS_BASE) return readEntry(r, p, baseNoHash, (flags & BASE_EXEC) !== 0);
    if (flags & IN_BASE) r.skip(entryBytes(baseNoHash));
    return readEntry(r, p, (flags & REMOTE_NO_HASH) !== 0, (flags & REMOTE_EXEC) !== 0);
  }
  return undefined;
}

/** The base's records, for a scan to check its files against in place (ExpectedCursor). */
function baseCursor(records: PackedReader, n: number): ExpectedCursor {
  const r = records.copy();
  let left = n;
  let met = 0;
  /** Passes over records that are not in the base (remote-only paths); true when a base record is next. */
  const atBase = (): boolean => {
    while (left > 0) {
      const flags = r.u8At(r.offset + r.pathBytes());
      if (flags & IN_BASE) return true;
      r.path(); // read, so the next path's shared prefix has its source
      r.skip(1 + entriesBytes(flags));
      left--;
    }
    return false;
  };
  return {
    next(rel, hashLo, hashHi, size, executable) {
      if (!atBase() || !r.pathIs(rel)) return false;
      const at = r.offset + r.pathBytes();
      const flags = r.u8At(at);
      if (flags & BASE_NO_HASH || ((flags & BASE_EXEC) !== 0) !== executable) return false;
      if (r.u32At(at + 1) !== hashLo || r.u32At(at + 5) !== hashHi || r.f64At(at + 9) !== size) return false;
      r.takePath(rel);
      r.skip(1 + entriesBytes(flags));
      left--;
      met++;
      return true;
    },
    get done() {
      return !atBase();
    },
    get met() {
      return met;
    },
    peek() {
      return atBase() ? r.copy().path() : null;
    },
    take() {
      if (!atBase()) throw new Error('state file: no base record left to take');
      const p = r.path();
      const flags = r.u8();
      const e = readEntry(r, p, (flags & BASE_NO_HASH) !== 0, (flags & BASE_EXEC) !== 0);
      if (flags & IN_REMOTE && !(flags & REMOTE_IS_BASE)) r.skip(entryBytes((flags & REMOTE_NO_HASH) !== 0));
      left--;
      return e;
    },
  };
}

/** The base record entry a header holds; null: none; undefined: not known (a cache of an older version, or damaged). */
function recordOf(v: unknown): Entry | null | undefined {
  if (v === null) return null;
  const e = v as Entry | undefined;
  if (!e || typeof e.path !== 'string' || typeof e.size !== 'number' || typeof e.executable !== 'boolean') return undefined;
  return { path: e.path, hash: typeof e.hash === 'string' ? e.hash : null, size: e.size, executable: e.executable };
}

const withRecord = (record: Entry | null | undefined): { record?: Entry | null } => (record === undefined ? {} : { record });

function strings(v: unknown): string[] {
  if (!Array.isArray(v) || v.some((x) => typeof x !== 'string')) throw new Error('bad list');
  return v as string[];
}

