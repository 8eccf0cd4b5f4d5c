/**
 * The stat cache, like git's index: relative path -> the stat data of the file when it
 * was hashed, its hash and text flag. A later scan that finds the same stat data takes
 * the hash from here instead of reading the file.
 *
 * Invariants:
 * - A hit requires equal mtimeNs, ctimeNs, size, ino and mode, and that the entry is not
 *   "racy": its mtime must be older, by STAT_CACHE_RACY_WINDOW_MS, than the moment the
 *   entry was recorded (for entries loaded from disk: the time the cache was written).
 *   A file written in the same timestamp tick as it was hashed could change again without
 *   its mtime moving; such entries are always re-hashed (git's racy-git rule, widened to
 *   cover coarse file system clocks).
 * - Racy entries are not written to disk: they would look settled to the next process.
 * - The file is versioned JSON, written atomically. A missing, corrupt or foreign-version
 *   file loads as an empty cache: at worst everything is hashed again, never an error.
 */
import fsp from 'node:fs/promises';
import path from 'node:path';
import { STAT_CACHE_RACY_WINDOW_MS } from './tunables.js';
import { writeFileAtomic } from './atomic-write.js';
import { nowNs, sameFileStat, type FileStat } from './filestat.js';

export const STAT_CACHE_VERSION = 1;
const FORMAT = 'hostsync-statcache';
const RACY_WINDOW_NS = BigInt(STAT_CACHE_RACY_WINDOW_MS) * 1_000_000n;

export interface StatCacheEntry extends FileStat {
  hash: string;
  text: boolean;
  /** When the stat data was taken (ns, wall clock); the racy rule compares mtime to it. */
  recordedNs: bigint;
}

/** On disk, one compact row per path; bigints as decimal strings. */
type Row = [mtimeNs: string, ctimeNs: string, size: number, ino: string, mode: number, hash: string, text: boolean];

interface FileFormat {
  format: typeof FORMAT;
  version: number;
  writtenAtNs: string;
  entries: Record<string, Row>;
}

export class StatCache {
  private readonly entries = new Map<string, StatCacheEntry>();
  private dirty = false;

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
    let raw: string;
    let fileMtimeNs = 0n;
    try {
      raw = await fsp.readFile(file, 'utf8');
      fileMtimeNs = (await fsp.stat(file, { bigint: true })).mtimeNs;
    } catch {
      return cache;
    }
    try {
      const parsed = JSON.parse(raw) as Partial<FileFormat>;
      if (parsed.format !== FORMAT || parsed.version !== STAT_CACHE_VERSION || typeof parsed.entries !== 'object' || parsed.entries === null) {
        return cache;
      }
      // The later of the recorded write time and the file's own mtime: the file system
      // clock is the one mtimes come from; being later only makes more entries racy.
      const stored = BigInt(parsed.writtenAtNs ?? '0');
      const writtenAtNs = stored > fileMtimeNs ? stored : fileMtimeNs;
      for (const [rel, row] of Object.entries(parsed.entries)) {
        const entry = rowToEntry(row, writtenAtNs);
        if (entry !== null) cache.entries.set(rel, entry);
      }
    } catch {
      cache.entries.clear();
    }
    return cache;
  }

  get size(): number {
    return this.entries.size;
  }

  /** The cached hash when `stat` matches the entry and the entry is not racy; otherwise undefined. */
  lookup(relPath: string, stat: FileStat): { hash: string; text: boolean } | undefined {
    const e = this.entries.get(relPath);
    if (e === undefined || !sameFileStat(e, stat) || isRacy(e)) return undefined;
    return { hash: e.hash, text: e.text };
  }

  /** Records what was read; `recordedNs` is when the stat data was taken (default: now). */
  update(relPath: string, stat: FileStat, hash: string, text: boolean, recordedNs: bigint = nowNs()): void {
    this.entries.set(relPath, {
      mtimeNs: stat.mtimeNs,
      ctimeNs: stat.ctimeNs,
      size: stat.size,
      ino: stat.ino,
      mode: stat.mode,
      hash,
      text,
      recordedNs,
    });
    this.dirty = true;
  }

  delete(relPath: string): void {
    if (this.entries.delete(relPath)) this.dirty = true;
  }

  /** Drops every entry whose path `keep` rejects (after a full scan: paths no longer in the tree). */
  retain(keep: (relPath: string) => boolean): void {
    for (const rel of this.entries.keys()) {
      if (!keep(rel)) {
        this.entries.delete(rel);
        this.dirty = true;
      }
    }
  }

  /** Atomically writes the cache (skipped when nothing changed since load or the last save). */
  async save(): Promise<void> {
    if (this.file === null || !this.dirty) return;
    const writtenAtNs = nowNs();
    const entries: Record<string, Row> = {};
    for (const [rel, e] of this.entries) {
      if (isRacy(e)) continue;
      entries[rel] = [e.mtimeNs.toString(), e.ctimeNs.toString(), e.size, e.ino.toString(), e.mode, e.hash, e.text];
    }
    const body: FileFormat = { format: FORMAT, version: STAT_CACHE_VERSION, writtenAtNs: writtenAtNs.toString(), entries };
    await fsp.mkdir(path.dirname(this.file), { recursive: true });
    await writeFileAtomic(this.file, JSON.stringify(body));
    this.dirty = false;
  }
}

function isRacy(e: StatCacheEntry): boolean {
  return e.mtimeNs + RACY_WINDOW_NS >= e.recordedNs;
}

function rowToEntry(row: unknown, recordedNs: bigint): StatCacheEntry | null {
  if (!Array.isArray(row) || row.length !== 7) return null;
  const [mtime, ctime, size, ino, mode, hash, text] = row as unknown[];
  if (
    typeof mtime !== 'string' || typeof ctime !== 'string' || typeof ino !== 'string' ||
    typeof size !== 'number' || typeof mode !== 'number' ||
    typeof hash !== 'string' || !/^[0-9a-f]{16}$/.test(hash) || typeof text !== 'boolean'
  ) {
    return null;
  }
  try {
    return { mtimeNs: BigInt(mtime), ctimeNs: BigInt(ctime), size, ino: BigInt(ino), mode, hash, text, recordedNs };
  } catch {
    return null; // a non-numeric string
  }
}
