/**
 * The stat cache, like git's index: relative path -> the stat data of the file when it
 * was hashed, its hash and text flag. A later scan that finds the same stat data takes
 * the hash from here instead of reading the file.
 *
 * Invariants:
 * - A hit requires equal mtimeMs, ctimeMs, size, ino and mode (filestat.ts), and that the entry is not
 *   "racy": its mtime must be older, by STAT_CACHE_RACY_WINDOW_MS, than the moment the
 *   entry was recorded (for entries loaded from disk: the time the cache was written).
 *   A file written in the same timestamp tick as it was hashed could change again without
 *   its mtime moving; such entries are always re-hashed (git's racy-git rule, widened to
 *   cover coarse file system clocks).
 * - Racy entries are not written to disk: they would look settled to the next process.
 * - The file is a versioned packed file (packed-file.ts), written atomically. A missing,
 *   corrupt or foreign-version file (the JSON of older releases included) loads as an
 *   empty cache: at worst everything is hashed again, never an error.
 * - `keptBy` is the key of the ignore matcher (IgnoreMatcher.key) that kept every path
 *   the cache holds, or null when unknown. A full scan with that same matcher need not
 *   ask it again about a cached file: the answer is a function of the path and the key.
 *   It is set by a full scan (after dropping what the scan did not find) and cleared when
 *   a file kept by any other matcher is recorded.
 * - Loading builds no entry objects: entries read from the file stay in its buffer, found
 *   through a path -> offset map, and are compared in place (at 100k files the JSON cache
 *   cost 0.26 s to load and most of the garbage collector's work).
 */
import fsp from 'node:fs/promises';
import path from 'node:path';
import { SCAN_DELTA_MAX_PATHS, STAT_CACHE_RACY_WINDOW_MS } from './tunables.js';
import { writeFileAtomic } from './atomic-write.js';
import { isRacy, nowMs, sameFileStat, type FileStat } from './filestat.js';
import { PackedReader, PackedWriter } from './packed-file.js';
import { hashWordLE, hexOfWords } from './hash.js';
import { StatRows } from './stat-rows.js';

/** 4: times and ino as f64 milliseconds and numbers (filestat.ts); 3 held u64 nanoseconds. */
export const STAT_CACHE_VERSION = 4;
const MAGIC = 'HSSC';
/** The file names of older releases: removed when the new file is written. */
const FORMER_FILES = ['statcache.json'];

export interface StatCacheEntry extends FileStat {
  /** The hash as two little-endian u32 (hash.ts hashWordLE), as the file stores it. */
  hashLo: number;
  hashHi: number;
  text: boolean;
  /** When the stat data was taken (ms, wall clock); the racy rule compares mtime to it. */
  recordedMs: number;
}

/** One record after its path: mtimeMs, ctimeMs, ino, size (f64 each), mode (u32), text (u8), hash (8 bytes). */
const RECORD_BYTES = 8 + 8 + 8 + 8 + 4 + 1 + 8;
const TEXT_AT = 36;
const HASH_AT = 37;

export class StatCache {
  /** Entries recorded in this process (or changed since load), but for those still in `log`. */
  private readonly freshMap = new Map<string, StatCacheEntry>();
  /**
   * What update() recorded since `freshMap` was last brought up to date, in order (later
   * wins). A cold scan records 100k files: into a Map that was ~0.1 s of inserts alone,
   * and what it needs afterwards (retain, save) reads the log in order (see logIsScan).
   */
  private log = { rels: [] as string[], rows: new StatRows() };
  /**
   * The log holds every entry, each recorded by the last full scan (once per path, in its
   * walk order): save() writes it as it is. Cleared by any later change.
   */
  private logIsScan = false;
  /** Entries as loaded: path -> offset of the record in `loaded`; built on first need (see `cursor`). */
  private stored: Map<string, number> | null = new Map();
  private loaded: PackedReader | null = null;
  /**
   * Until `stored` is needed: the loaded entries in file order, one step per lookup. The
   * file is written in the order the walk finds files, so the scan of an unchanged tree
   * asks for exactly the entry at the cursor every time (compared in place, no string
   * made), and no index of 100k paths is built. `body` reads from the first entry (to
   * build the index); `peeked` is a path has() found at the cursor (not consumed).
   */
  private cursor: { r: PackedReader; body: PackedReader; peeked: string | null } | null = null;
  /** A lookup did not find its entry at the cursor (the file's order is not the scan's). */
  private outOfOrder = false;
  /**
   * Paths recorded while the cursor was still in use: their loaded records are superseded
   * (taken out of `stored` when it is built). Kept apart so recording a few files after a
   * walk builds no index of every loaded path.
   */
  private shadowed: Set<string> | null = null;
  /** Loaded records a lookup met at the cursor and found stale (path -> offset): a record of the same path replaces it in place (see writePatched). */
  private staleAt: Map<string, number> | null = null;
  /**
   * Loaded records the cursor passed over for a later path (see storedAt): a scan that
   * asks in path order has then found no file there. Dropped by retain() (see `spliced`).
   */
  private passed: Set<string> | null = null;
  /** The last path the cursor was asked for: asked in path order, it can pass over records. */
  private lastAsked = '';
  /** Whether the loaded records are in strictly rising path order (checked once, when first needed). */
  private sorted: boolean | null = null;
  /**
   * Set by retain(): the last scan met every loaded record at the cursor, in order, and
   * recorded the few files it read: save() writes the loaded records with those put in
   * their place, building no index and asking for no order (see writeSpliced).
   */
  private spliced = false;
  /** Every lookup the cursor answered was a hit, and how many there were. */
  private cursorAllHits = true;
  private cursorHits = 0;
  /** The racy rule's "recorded" time of every loaded entry: when the file was written. */
  private loadedAtMs = 0;
  /** A loaded entry whose mtime is at or past this is racy: loadedAtMs - the window, once. */
  private racyFromMs = -STAT_CACHE_RACY_WINDOW_MS;
  private dirty = false;
  private kept: string | null = null;
  /** The order of the last full scan's files: save() writes entries in it (see `cursor`). */
  private order: { paths: () => Iterable<string>; has: (rel: string) => boolean } | null = null;

  private constructor(
    /** Where save() writes; null for a cache that lives only in memory. */
    readonly file: string | null,
  ) {}

  /** A cache that is never persisted (save() is a no-op). */
  static inMemory(): StatCache {
    return new StatCache(null);
  }

  /** Loads `file`; any problem reading or parsing it yields an empty cache bound to the same file. */
  static async load(file: string): Promise<StatCache> {
    const cache = new StatCache(file);
    let raw: Buffer;
    let fileMtimeMs = 0;
    try {
      raw = await fsp.readFile(file);
      fileMtimeMs = (await fsp.stat(file)).mtimeMs;
    } catch {
      return cache;
    }
    try {
      const r = await PackedReader.open(raw, MAGIC, STAT_CACHE_VERSION);
      if (r === null) return cache;
      // The later of the recorded write time and the file's own mtime: the file system
      // clock is the one mtimes come from; being later only makes more entries racy.
      const stored = r.f64();
      cache.loadedAtMs = stored > fileMtimeMs ? stored : fileMtimeMs;
      cache.racyFromMs = cache.loadedAtMs - STAT_CACHE_RACY_WINDOW_MS;
      cache.kept = r.str() || null;
      cache.loaded = r;
      cache.stored = null;
      cache.cursor = { r, body: r.copy(), peeked: null };
    } catch {
      cache.dropLoaded();
    }
    return cache;
  }

  /** Entries recorded in this process: `freshMap`, the log folded in. */
  private get fresh(): Map<string, StatCacheEntry> {
    const { rels, rows } = this.log;
    if (rels.length > 0) {
      for (let i = 0; i < rels.length; i++) {
        this.freshMap.set(rels[i]!, {
          mtimeMs: rows.mtimeMs[i]!, ctimeMs: rows.ctimeMs[i]!, size: rows.size[i]!, ino: rows.ino[i]!, mode: rows.mode[i]!,
          hashLo: rows.hashLo[i]!, hashHi: rows.hashHi[i]!, text: rows.text[i] === 1, recordedMs: rows.recordedMs[i]!,
        });
      }
      this.log = { rels: [], rows: new StatRows() };
      this.logIsScan = false;
    }
    return this.freshMap;
  }

  /** Forgets every loaded entry (a body that does not decode: the file is not trusted). */
  private dropLoaded(): void {
    this.stored = new Map();
    this.loaded = null;
    this.cursor = null;
    this.shadowed = null;
    this.staleAt = null;
    this.passed = null;
    this.spliced = false;
    this.kept = null;
    this.dirty = true;
  }

  /** path -> offset of every loaded entry still held (built from the file the first time). */
  private index(): Map<string, number> {
    if (this.stored !== null) return this.stored;
    const c = this.cursor!;
    this.cursor = null;
    const stored = new Map<string, number>();
    try {
      const r = c.body;
      while (!r.done) {
        const rel = r.path();
        stored.set(rel, r.offset);
        r.skip(RECORD_BYTES);
      }
    } catch {
      this.dropLoaded();
      return this.stored!;
    }
    for (const rel of this.shadowed ?? []) stored.delete(rel);
    this.shadowed = null;
    this.staleAt = null;
    this.passed = null;
    this.spliced = false;
    this.stored = stored;
    return stored;
  }

  /**
   * Where `rel`'s loaded record is. `take`: a lookup, after which the cursor moves on. Asked
   * in path order (a walk), with the records in path order, the cursor merges: a record
   * before `rel` is one no file was found for (passed over), one after it means `rel` has
   * none (a new file); neither builds the index.
   */
  private storedAt(rel: string, take: boolean): number | undefined {
    if (this.loaded === null) return undefined; // nothing loaded: `stored` is empty (a cold scan asks for every path)
    const c = this.cursor;
    if (c !== null && (c.peeked === rel || c.r.pathIs(rel))) {
      this.lastAsked = rel;
      const at = c.r.offset + c.r.pathBytes();
      if (take) {
        c.r.takePath(rel);
        c.r.skip(RECORD_BYTES);
        c.peeked = null;
      } else c.peeked = rel;
      return at;
    }
    if (c !== null && rel >= this.lastAsked && this.isSorted()) {
      this.lastAsked = rel;
      for (;;) {
        if (c.r.done) return undefined;
        const next = c.r.copy().path();
        if (next > rel) return undefined;
        // (next === rel would have been met above.) A file no walk in path order asks for again.
        (this.passed ??= new Set()).add(next);
        c.r.path();
        c.r.skip(RECORD_BYTES);
        c.peeked = null;
        if (c.r.pathIs(rel)) return this.storedAt(rel, take);
      }
    }
    if (c !== null) this.outOfOrder = true;
    return this.index().get(rel);
  }

  /** See `sorted`: one pass over the loaded paths. */
  private isSorted(): boolean {
    if (this.sorted === null) {
      let sorted = true;
      try {
        const r = this.cursor!.body.copy();
        let prev: string | null = null;
        while (!r.done) {
          const rel = r.path();
          if (prev !== null && rel <= prev) {
            sorted = false;
            break;
          }
          prev = rel;
          r.skip(RECORD_BYTES);
        }
      } catch {
        sorted = false;
      }
      this.sorted = sorted;
    }
    return this.sorted;
  }

  /** See the invariants: the key of the matcher that kept every cached path, or null. */
  get keptBy(): string | null {
    return this.kept;
  }

  /** Records that every cached path is one `key`'s matcher keeps (undefined: no longer known). */
  markKept(key: string | undefined): void {
    const next = key ?? null;
    if (next === this.kept) return;
    this.kept = next;
    this.dirty = true;
  }

  /** Whether the cache holds `relPath` (with keptBy: a file that matcher keeps). */
  has(relPath: string): boolean {
    return (this.fresh.size > 0 && this.fresh.has(relPath)) || this.storedAt(relPath, false) !== undefined;
  }

  /**
   * Whether the cache holds a path under the folder `relDir`, as far as its cursor can tell
   * (false once it cannot: the caller asks the matcher). With keptBy: the matcher keeps
   * that file, so it keeps the folder (gitignore: a file in an ignored folder is ignored).
   */
  holdsUnder(relDir: string): boolean {
    const c = this.cursor;
    return c !== null && c.r.pathStartsWith(`${relDir}/`);
  }

  get size(): number {
    return this.fresh.size + this.index().size;
  }

  /** The cached hash when `stat` matches the entry and the entry is not racy; otherwise undefined. */
  lookup(relPath: string, stat: FileStat): { hash: string; text: boolean } | undefined {
    const e = this.fresh.size > 0 ? this.fresh.get(relPath) : undefined;
    if (e !== undefined) return !sameFileStat(e, stat) || isRacy(e.mtimeMs, e.recordedMs) ? undefined : { hash: hexOfWords(e.hashLo, e.hashHi), text: e.text };
    const at = this.hitAt(relPath, stat);
    return at < 0 ? undefined : { hash: this.hashAt(at), text: this.textAt(at) };
  }

  /** Nothing was recorded in this process: every entry is a loaded record (hitAt answers for all). */
  get onlyLoaded(): boolean {
    return this.freshMap.size === 0 && this.log.rels.length === 0;
  }

  /**
   * lookup() without making its answer: where the loaded record that answers for
   * `relPath` is (read it with hashAt, hashLoAt, hashHiAt, textAt), or -1. Entries
   * recorded in this process are not seen (see onlyLoaded).
   */
  hitAt(relPath: string, stat: FileStat): number {
    const fromCursor = this.cursor !== null;
    const at = this.storedAt(relPath, true);
    const r = this.loaded;
    if (at === undefined || r === null) return -1;
    const mtimeMs = r.f64At(at);
    if (
      mtimeMs !== stat.mtimeMs || r.f64At(at + 8) !== stat.ctimeMs || r.f64At(at + 16) !== stat.ino ||
      r.f64At(at + 24) !== stat.size || r.u32At(at + 32) !== stat.mode || mtimeMs >= this.racyFromMs
    ) {
      if (fromCursor) {
        this.cursorAllHits = false;
        (this.staleAt ??= new Map()).set(relPath, at);
      }
      return -1;
    }
    if (fromCursor) this.cursorHits++;
    return at;
  }

  hashAt(at: number): string {
    return this.loaded!.hashAt(at + HASH_AT);
  }

  /** The hash's 8 bytes as two little-endian u32, as every packed file stores a hash. */
  hashLoAt(at: number): number {
    return this.loaded!.u32At(at + HASH_AT);
  }

  hashHiAt(at: number): number {
    return this.loaded!.u32At(at + HASH_AT + 4);
  }

  textAt(at: number): boolean {
    return this.loaded!.u8At(at + TEXT_AT) === 1;
  }

  /** Records what was read; `recordedMs` is when the stat data was taken (default: now). */
  update(relPath: string, stat: FileStat, hash: string, text: boolean, recordedMs: number = nowMs()): void {
    const lo = hashWordLE(hash, 0);
    const hi = hashWordLE(hash, 1);
    if (lo < 0 || hi < 0) throw new Error(`not an XXH64 hash (16 hex digits): ${hash}`);
    this.log.rows.set(this.logged(relPath), stat, lo, hi, text, recordedMs);
  }

  /** update() with row `i` of `rows` (a scan's reads): what it says of `relPath`. */
  record(relPath: string, rows: StatRows, i: number): void {
    this.log.rows.copy(this.logged(relPath), rows, i);
  }

  /** Appends `relPath` to the log; returns its row, for the caller to set. */
  private logged(relPath: string): number {
    // With nothing loaded there is no loaded entry to drop (and no index to build).
    if (this.loaded !== null) {
      if (this.cursor !== null) (this.shadowed ??= new Set()).add(relPath);
      else this.index().delete(relPath);
    }
    this.spliced = false;
    this.logIsScan = false;
    this.dirty = true;
    return this.log.rels.push(relPath) - 1;
  }

  delete(relPath: string): void {
    if (this.fresh.delete(relPath) || (this.loaded !== null && this.index().delete(relPath))) this.dirty = true;
  }

  /**
   * After a full scan: drops every entry whose path `keep` rejects. With `scan` (scanTree's
   * walk order, how many of its lookups hit and how many files it recorded), save() writes
   * the entries in that order. No entry is checked (and no index built) when every entry
   * is one the scan found: its hits were exactly the loaded entries, each met at the
   * cursor (an unchanged tree), or nothing was loaded and every entry is one it recorded
   * (a cold scan).
   */
  retain(keep: (relPath: string) => boolean, scan?: { order: () => Iterable<string>; hits: number; recorded?: number }): void {
    if (scan) this.order = { paths: scan.order, has: keep };
    const c = this.cursor;
    // (onlyLoaded, not `fresh`: that would fold the log, which the check below reads.)
    if (scan && c !== null && c.r.done && this.cursorAllHits && this.passed === null && this.onlyLoaded && this.cursorHits === scan.hits) return;
    // The records left after the last path the walk asked for: no file was found for them.
    if (scan && c !== null && !c.r.done && !this.outOfOrder && this.isSorted()) {
      const passed = (this.passed ??= new Set());
      c.peeked = null;
      while (!c.r.done && passed.size <= SCAN_DELTA_MAX_PATHS) {
        passed.add(c.r.path());
        c.r.skip(RECORD_BYTES);
      }
    }
    const passed = this.passed?.size ?? 0;
    if (scan && c !== null && c.r.done && !this.outOfOrder && this.freshMap.size === 0 && this.log.rels.length === scan.recorded && scan.recorded + passed <= SCAN_DELTA_MAX_PATHS) {
      // Every loaded record was met at the cursor (a file the scan found) or passed over
      // (none found: dropped), and every other entry is one it recorded. (A file that went
      // while being read was deleted from the cache, which built the index: not this path.)
      for (const rel of this.passed ?? []) (this.shadowed ??= new Set()).add(rel);
      if (passed > 0) this.dirty = true;
      this.passed = null;
      this.spliced = true;
      return;
    }
    if (scan && this.loaded === null && this.freshMap.size === 0 && this.log.rels.length === scan.recorded) {
      // Every entry is in the log and was recorded by this scan (a path is recorded once by
      // a full scan; an older entry would make the log longer than what the scan recorded).
      this.logIsScan = true;
      return;
    }
    // Met out of the file's order: saved again even when nothing else changed, so the next
    // scan meets the entries in order.
    if (scan && this.outOfOrder) this.dirty = true;
    for (const map of [this.fresh, this.index()]) {
      for (const rel of map.keys()) {
        if (!keep(rel)) {
          map.delete(rel);
          this.dirty = true;
        }
      }
    }
  }

  /** Atomically writes the cache (skipped when nothing changed since load or the last save). */
  async save(): Promise<void> {
    if (this.file === null || !this.dirty) return;
    const w = new PackedWriter();
    w.f64(nowMs());
    w.str(this.kept ?? '');
    if (this.logIsScan) {
      const { rels, rows } = this.log;
      for (let i = 0; i < rels.length; i++) {
        if (isRacy(rows.mtimeMs[i]!, rows.recordedMs[i]!)) continue;
        writeRecord(w, rels[i]!, rows.mtimeMs[i]!, rows.ctimeMs[i]!, rows.ino[i]!, rows.size[i]!, rows.mode[i]!, rows.text[i] === 1, rows.hashLo[i]!, rows.hashHi[i]!);
      }
    } else if (this.spliced && this.cursor !== null) {
      const patched = this.writePatched(w, this.cursor.body.copy());
      if (patched === 'unchanged') return void this.saved();
      if (!patched) this.writeSpliced(w, this.cursor.body.copy());
    } else this.writeInOrder(w);
    const dir = path.dirname(this.file);
    await fsp.mkdir(dir, { recursive: true });
    await writeFileAtomic(this.file, await w.finish(MAGIC, STAT_CACHE_VERSION));
    for (const former of FORMER_FILES) await fsp.rm(path.join(dir, former), { force: true });
    this.saved();
  }

  private saved(): void {
    this.dirty = false;
    this.spliced = false;
    this.order = null; // it holds the scan's snapshot: not kept past the save
  }

  /**
   * writeSpliced when every entry recorded replaces a loaded record of the same path (files
   * edited since: the usual case): the loaded bytes from `r` (at the first record) as they
   * are, those records' data overwritten in place (the paths, and so their front coding, are
   * the same). False, nothing written, when it does not apply or a loaded record is racy now.
   *
   * An entry recorded racy (a file edited a moment ago, as a status or push right after a
   * save reads it) leaves its loaded record as it was: stale, it no longer matches the file,
   * whose ctime has moved on since, so the next scan reads the file again, as it would with
   * the record left out. When every entry is so, nothing is written: 'unchanged'. (Spliced,
   * the save rebuilt every path of the file: ~0.3 s of CPU at 100k files, twice per edit.)
   */
  private writePatched(w: PackedWriter, r: PackedReader): boolean | 'unchanged' {
    const loaded = this.loaded!;
    const staleAt = this.staleAt;
    const fresh = this.fresh;
    if (staleAt === null || (this.shadowed?.size ?? 0) !== fresh.size) return false;
    for (const rel of fresh.keys()) if (!staleAt.has(rel)) return false;
    const start = r.offset;
    // A loaded record racy now is left out on save: the other way does that.
    for (const check = r.copy(); !check.done; ) {
      check.skip(check.pathBytes());
      if (isRacy(loaded.f64At(check.offset), this.loadedAtMs)) return false;
      check.skip(RECORD_BYTES);
    }
    const settled = [...fresh].filter(([, e]) => !isRacy(e.mtimeMs, e.recordedMs));
    if (settled.length === 0) return 'unchanged';
    const body = Buffer.from(r.rest());
    const view = new DataView(body.buffer, body.byteOffset, body.length);
    for (const [rel, e] of settled) {
      const at = staleAt.get(rel)! - start;
      view.setFloat64(at, e.mtimeMs, true);
      view.setFloat64(at + 8, e.ctimeMs, true);
      view.setFloat64(at + 16, e.ino, true);
      view.setFloat64(at + 24, e.size, true);
      view.setUint32(at + 32, e.mode, true);
      view.setUint8(TEXT_AT + at, e.text ? 1 : 0);
      view.setUint32(HASH_AT + at, e.hashLo, true);
      view.setUint32(HASH_AT + at + 4, e.hashHi, true);
    }
    w.raw(body);
    return true;
  }

  /**
   * The loaded records from `r` (at the first), in their order, with the entries recorded
   * in this process (the last scan's reads, in its walk order) in their place: both are in
   * path order, so the next scan meets them all in order. A superseded record is left out.
   */
  private writeSpliced(w: PackedWriter, r: PackedReader): void {
    const loaded = this.loaded!;
    const fresh = [...this.fresh];
    const shadowed = this.shadowed ?? new Set<string>();
    let k = 0;
    const writeFresh = (): void => {
      const [rel, e] = fresh[k++]!;
      if (!isRacy(e.mtimeMs, e.recordedMs)) writeRecord(w, rel, e.mtimeMs, e.ctimeMs, e.ino, e.size, e.mode, e.text, e.hashLo, e.hashHi);
    };
    while (!r.done) {
      const rel = r.path();
      const at = r.offset;
      r.skip(RECORD_BYTES);
      while (k < fresh.length && fresh[k]![0] < rel) writeFresh();
      if (shadowed.has(rel) || isRacy(loaded.f64At(at), this.loadedAtMs)) continue;
      w.path(rel);
      w.raw(loaded.bytesAt(at, RECORD_BYTES));
    }
    while (k < fresh.length) writeFresh();
  }

  /** Every entry, the last full scan's order first (see `order`). */
  private writeInOrder(w: PackedWriter): void {
    const stored = this.index();
    const r = this.loaded;
    const fresh = this.fresh;
    let seen = 0;
    const write = (rel: string): void => {
      const e = fresh.get(rel);
      if (e !== undefined) {
        seen++;
        if (!isRacy(e.mtimeMs, e.recordedMs)) writeRecord(w, rel, e.mtimeMs, e.ctimeMs, e.ino, e.size, e.mode, e.text, e.hashLo, e.hashHi);
        return;
      }
      const at = stored.get(rel);
      if (at === undefined) return;
      seen++;
      if (r === null || isRacy(r.f64At(at), this.loadedAtMs)) return;
      w.path(rel);
      w.raw(r.bytesAt(at, RECORD_BYTES));
    };
    // The last scan's order first, so the next scan of the same tree meets them in order.
    const order = this.order;
    if (order) for (const rel of order.paths()) write(rel);
    // Then any entry the scan's order did not hold (none, when every entry was met in it).
    if (seen < stored.size + fresh.size) for (const map of [stored, fresh]) for (const rel of map.keys()) if (!order?.has(rel)) write(rel);
  }
}

/** One record, as RECORD_BYTES describes it, after its path. */
function writeRecord(
  w: PackedWriter, rel: string, mtimeMs: number, ctimeMs: number, ino: number, size: number, mode: number, text: boolean, hashLo: number, hashHi: number,
): void {
  w.path(rel);
  w.f64(mtimeMs);
  w.f64(ctimeMs);
  w.f64(ino);
  w.f64(size);
  w.u32(mode);
  w.u8(text ? 1 : 0);
  w.u32(hashLo);
  w.u32(hashHi);
}
