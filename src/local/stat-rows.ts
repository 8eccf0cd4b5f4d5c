/**
 * What the stat cache records of a file read (its stat data, hash words, text flag, and when
 * the stat was taken), for many files, in typed-array columns. A cold scan keeps this for
 * every file until it ends: as objects (a FileStat, a digest, a cache entry, and the boxed
 * doubles in each) they survived the scavenger twice and were most of its copying.
 *
 * Rows are numbered from 0; a row is set once (the columns grow to hold it).
 */
import type { FileStat } from './filestat.js';

export class StatRows {
  mtimeMs: Float64Array;
  ctimeMs: Float64Array;
  ino: Float64Array;
  size: Float64Array;
  recordedMs: Float64Array;
  mode: Uint32Array;
  /** The hash as two little-endian u32 (hash.ts hashWordLE). */
  hashLo: Uint32Array;
  hashHi: Uint32Array;
  text: Uint8Array;
  /** One past the highest row set. */
  length = 0;

  constructor(capacity = 256) {
    const n = Math.max(1, capacity);
    this.mtimeMs = new Float64Array(n);
    this.ctimeMs = new Float64Array(n);
    this.ino = new Float64Array(n);
    this.size = new Float64Array(n);
    this.recordedMs = new Float64Array(n);
    this.mode = new Uint32Array(n);
    this.hashLo = new Uint32Array(n);
    this.hashHi = new Uint32Array(n);
    this.text = new Uint8Array(n);
  }

  set(i: number, stat: FileStat, hashLo: number, hashHi: number, text: boolean, recordedMs: number): void {
    if (i >= this.mode.length) this.grow(i + 1);
    this.mtimeMs[i] = stat.mtimeMs;
    this.ctimeMs[i] = stat.ctimeMs;
    this.ino[i] = stat.ino;
    this.size[i] = stat.size;
    this.recordedMs[i] = recordedMs;
    this.mode[i] = stat.mode;
    this.hashLo[i] = hashLo;
    this.hashHi[i] = hashHi;
    this.text[i] = text ? 1 : 0;
    if (i >= this.length) this.length = i + 1;
  }

  /** Sets row `i` to row `i` of columns of the same names (hash-pool.ts PoolColumns): no FileStat made. */
  copyColumns(i: number, from: Omit<StatRows, 'length' | 'set' | 'copy' | 'copyColumns' | 'stat'>): void {
    if (i >= this.mode.length) this.grow(i + 1);
    this.mtimeMs[i] = from.mtimeMs[i]!;
    this.ctimeMs[i] = from.ctimeMs[i]!;
    this.ino[i] = from.ino[i]!;
    this.size[i] = from.size[i]!;
    this.recordedMs[i] = from.recordedMs[i]!;
    this.mode[i] = from.mode[i]!;
    this.hashLo[i] = from.hashLo[i]!;
    this.hashHi[i] = from.hashHi[i]!;
    this.text[i] = from.text[i]!;
    if (i >= this.length) this.length = i + 1;
  }

  /** Sets row `i` to row `j` of `from`. */
  copy(i: number, from: StatRows, j: number): void {
    if (i >= this.mode.length) this.grow(i + 1);
    this.mtimeMs[i] = from.mtimeMs[j]!;
    this.ctimeMs[i] = from.ctimeMs[j]!;
    this.ino[i] = from.ino[j]!;
    this.size[i] = from.size[j]!;
    this.recordedMs[i] = from.recordedMs[j]!;
    this.mode[i] = from.mode[j]!;
    this.hashLo[i] = from.hashLo[j]!;
    this.hashHi[i] = from.hashHi[j]!;
    this.text[i] = from.text[j]!;
    if (i >= this.length) this.length = i + 1;
  }

  /** Row `i`'s stat data as a FileStat. */
  stat(i: number): FileStat {
    return { mtimeMs: this.mtimeMs[i]!, ctimeMs: this.ctimeMs[i]!, size: this.size[i]!, ino: this.ino[i]!, mode: this.mode[i]! };
  }

  private grow(atLeast: number): void {
    const n = Math.max(atLeast, this.mode.length * 2);
    const bigger = <T extends Float64Array | Uint32Array | Uint8Array>(a: T, make: (n: number) => T): T => {
      const b = make(n);
      b.set(a);
      return b;
    };
    this.mtimeMs = bigger(this.mtimeMs, (k) => new Float64Array(k));
    this.ctimeMs = bigger(this.ctimeMs, (k) => new Float64Array(k));
    this.ino = bigger(this.ino, (k) => new Float64Array(k));
    this.size = bigger(this.size, (k) => new Float64Array(k));
    this.recordedMs = bigger(this.recordedMs, (k) => new Float64Array(k));
    this.mode = bigger(this.mode, (k) => new Uint32Array(k));
    this.hashLo = bigger(this.hashLo, (k) => new Uint32Array(k));
    this.hashHi = bigger(this.hashHi, (k) => new Uint32Array(k));
    this.text = bigger(this.text, (k) => new Uint8Array(k));
  }
}
