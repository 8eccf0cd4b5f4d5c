/**
 * `state.journal`, beside state.bin: the changes made to the base since state.bin was
 * written. A watch cycle that verified writes appends one record of the entries it
 * changed, so persisting a cycle costs its paths, not the tree (at 100k files writing
 * state.bin whole took about half a second of CPU per cycle). The store replays it on
 * load and folds it into state.bin (compaction) past a size bound and when watch stops.
 *
 * Format: lines `<crc32 of the JSON, 8 hex> <JSON>\n`. The first line is the header
 * {v, deploymentId, generation}; each later one is {base: {path: [hash, size, exec] | null}}
 * (null: the path left the base).
 *
 * Invariants:
 * - A journal applies only to the state.bin whose header carries its generation. Writing
 *   state.bin makes a new generation, so a journal left behind by a kill between the two
 *   steps of a compaction is stale: ignored on load, replaced by the next append.
 * - Records are replayed in order up to the first one that does not check (a kill in the
 *   middle of an append): that one and anything after it are ignored, and the next append
 *   first cuts them off. The base on disk is then the one before that cycle, which is
 *   safe: the unverified record still names those writes, and without it the three-way
 *   merge reports a conflict, never an overwrite.
 * - Not fsynced, for the same reason: what an OS crash can lose is the last cycles' base
 *   progress, never a decision the merge relies on for safety.
 */
import { open, readFile, rm, stat, type FileHandle } from 'node:fs/promises';
import { crc32 } from 'node:zlib';
import type { Entry } from '../model/types.js';

const VERSION = 1;

/** A path's base entry after a cycle; null: no longer in the base. */
export type BaseDelta = ReadonlyMap<string, Entry | null>;

type Packed = [string | null, number, 0 | 1] | null;

interface Header {
  v: number;
  deploymentId: string;
  generation: string;
}

function line(value: unknown): string {
  const json = JSON.stringify(value);
  return `${crc32(json).toString(16).padStart(8, '0')} ${json}\n`;
}

/** The JSON value of one complete line, or undefined when it does not check. */
function parseLine(text: string): unknown {
  if (text.length < 10 || text[8] !== ' ') return undefined;
  const json = text.slice(9);
  if (Number.parseInt(text.slice(0, 8), 16) !== crc32(json) || !/^[0-9a-f]{8}$/.test(text.slice(0, 8))) return undefined;
  try {
    return JSON.parse(json) as unknown;
  } catch {
    return undefined;
  }
}

export interface ReplayedJournal {
  /** Every record's changes, the later winning. */
  delta: Map<string, Entry | null>;
  /** Bytes of the header and the records that checked: where the next append goes. */
  validBytes: number;
  records: number;
}

/**
 * The journal in `raw` for `generation`, or null when it is absent, foreign or stale
 * (then nothing of it applies).
 */
export function replayJournal(raw: Buffer, deploymentId: string, generation: string): ReplayedJournal | null {
  const text = raw.toString('utf8');
  let at = 0;
  const next = (): unknown => {
    const nl = text.indexOf('\n', at);
    if (nl === -1) return undefined; // no newline: torn
    const value = parseLine(text.slice(at, nl));
    if (value !== undefined) at = nl + 1;
    return value;
  };
  const header = next() as Header | undefined;
  if (header === undefined || header.v !== VERSION || header.deploymentId !== deploymentId || header.generation !== generation) return null;
  const delta = new Map<string, Entry | null>();
  let records = 0;
  for (;;) {
    const before = at;
    const rec = next() as { base?: Record<string, Packed> } | undefined;
    if (rec === undefined || typeof rec.base !== 'object' || rec.base === null) {
      at = before;
      break;
    }
    for (const [p, v] of Object.entries(rec.base)) delta.set(p, unpack(p, v));
    records++;
  }
  return { delta, validBytes: Buffer.byteLength(text.slice(0, at)), records };
}

function unpack(p: string, v: Packed): Entry | null {
  if (v === null) return null;
  return { path: p, hash: v[0], size: v[1], executable: v[2] === 1 };
}

export class BaseJournal {
  /** The generation and size of the journal as this process last left it. */
  private known: { generation: string; bytes: number; torn: boolean } | null = null;

  constructor(
    readonly file: string,
    readonly deploymentId: string,
  ) {}

  /** Reads the journal for `generation` (null: none applies). */
  async load(generation: string): Promise<ReplayedJournal | null> {
    return (await this.read(generation))?.journal ?? null;
  }

  private async read(generation: string): Promise<{ journal: ReplayedJournal; bytes: number } | null> {
    let raw: Buffer;
    try {
      raw = await readFile(this.file);
    } catch {
      return null;
    }
    const journal = replayJournal(raw, this.deploymentId, generation);
    return journal && { journal, bytes: raw.length };
  }

  /**
   * Appends `delta` as one record, starting a new journal when the one on disk is not
   * `generation`'s, and cutting off a torn tail first. Returns the journal's size after.
   */
  async append(generation: string, delta: BaseDelta): Promise<number> {
    if (delta.size === 0) return this.known?.bytes ?? 0;
    if (this.known?.generation !== generation) {
      const found = await this.read(generation);
      const bytes = found?.journal.validBytes ?? 0;
      this.known = { generation, bytes, torn: found !== null && found.bytes > bytes };
    }
    const known = this.known;
    let fh: FileHandle | null = null;
    if (known.bytes > 0) {
      fh = await open(this.file, 'r+').catch((err: NodeJS.ErrnoException) => {
        if (err.code === 'ENOENT') return null; // removed meanwhile: start again
        throw err;
      });
      if (fh === null) known.bytes = 0;
    }
    fh ??= await open(this.file, 'w', 0o600);
    const base: Record<string, Packed> = {};
    for (const [p, e] of delta) base[p] = e === null ? null : [e.hash, e.size, e.executable ? 1 : 0];
    const header = known.bytes === 0 ? line({ v: VERSION, deploymentId: this.deploymentId, generation } satisfies Header) : '';
    const buf = Buffer.from(header + line({ base }), 'utf8');
    try {
      // At the end of what checked: a torn tail is overwritten, and whatever is left of it cut off.
      await fh.write(buf, 0, buf.length, known.bytes);
      if (known.torn) await fh.truncate(known.bytes + buf.length);
      known.torn = false;
      known.bytes += buf.length;
    } catch (err) {
      this.known = null;
      throw err;
    } finally {
      await fh.close();
    }
    return known.bytes;
  }

  /** Bytes on disk now (0: none). */
  async size(): Promise<number> {
    try {
      return (await stat(this.file)).size;
    } catch {
      return 0;
    }
  }

  /** After state.bin took everything in (a compaction, a full save). */
  async remove(): Promise<void> {
    this.known = null;
    await rm(this.file, { force: true });
  }
}
