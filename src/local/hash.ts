/**
 * XXH64, seed 0, as 16 lowercase hex digits: exactly what `xxhsum -H64` prints and what
 * files.index reports, so local and remote hashes compare as strings.
 *
 * xxhash-wasm's linear memory grows to the largest input it was handed and never shrinks,
 * so files at or above HASH_STREAM_THRESHOLD_BYTES are fed to it in fixed chunks.
 */
import fs from 'node:fs';
import fsp, { type FileHandle } from 'node:fs/promises';
import xxhash, { type XXHashAPI } from 'xxhash-wasm';
import { HASH_STABLE_MAX_ATTEMPTS, HASH_STREAM_CHUNK_BYTES, HASH_STREAM_THRESHOLD_BYTES } from './tunables.js';
import { isRacy, nowMs, sameFileStat, type FileStat } from './filestat.js';
import { fstatOf, kindOfMode } from './fast-stat.js';
import { isTextBuffer, TextSniffer } from './text.js';

let api: Promise<XXHashAPI> | undefined;

/** The wasm module, instantiated once per process. */
export function xxhashApi(): Promise<XXHashAPI> {
  api ??= xxhash();
  return api;
}

export function hex64(value: bigint): string {
  return value.toString(16).padStart(16, '0');
}

/**
 * Word 0 or 1 of a hash's 8 bytes read as a little-endian u32, as packed files store a
 * hash (ExpectedCursor.next); -1, which no word is, when `hex` is not 16 hex digits.
 */
export function hashWordLE(hex: string, word: 0 | 1): number {
  if (hex.length !== 16) return -1;
  let v = 0;
  // Bytes 3..0 of the word, most significant first; byte k is hex digits 2k, 2k+1.
  for (let k = word * 4 + 3; k >= word * 4; k--) {
    const hi = hexDigit(hex.charCodeAt(2 * k));
    const lo = hexDigit(hex.charCodeAt(2 * k + 1));
    if (hi < 0 || lo < 0) return -1;
    v = v * 256 + hi * 16 + lo;
  }
  return v;
}

/** Bytes 0-3 and 4-7 of a hash, little-endian, as 16 hex digits: the inverse of hashWordLE. */
export function hexOfWords(lo: number, hi: number): string {
  hashView.setUint32(0, lo, true);
  hashView.setUint32(4, hi, true);
  return hashBytes.toString('hex');
}

/** A hash's 8 bytes in the order its hex digits read them (byte 0 is digits 0-1, the most significant). */
const hashBytes = Buffer.alloc(8);
const hashView = new DataView(hashBytes.buffer, hashBytes.byteOffset, 8);

function hexDigit(c: number): number {
  if (c >= 0x30 && c <= 0x39) return c - 0x30;
  if (c >= 0x61 && c <= 0x66) return c - 0x57;
  if (c >= 0x41 && c <= 0x46) return c - 0x37;
  return -1;
}

/** A string is hashed as its UTF-8 bytes. */
export async function xxh64Bytes(data: Uint8Array | string): Promise<string> {
  const { h64Raw } = await xxhashApi();
  return hex64(h64Raw(typeof data === 'string' ? Buffer.from(data, 'utf8') : data));
}

export interface FileDigest {
  /** Made from hashLo and hashHi when read: a cold scan of an unchanged tree needs no hex string. */
  readonly hash: string;
  /** The hash's 8 bytes as two little-endian u32 (hashWordLE 0 and 1), as packed files store a hash. */
  hashLo: number;
  hashHi: number;
  text: boolean;
  /** Bytes hashed. */
  size: number;
  /** fstat of the file that was read, taken after reading: what a stat cache may record. */
  stat: FileStat;
  /**
   * False when the file was still changing after HASH_STABLE_MAX_ATTEMPTS reads: the
   * digest is of the last read and must not be cached.
   */
  stable: boolean;
}

/**
 * Never follows a symlink (one swapped in after the walk would lead out of the root) and
 * never blocks on a FIFO swapped in for a file: both are then reported as "not a file".
 */
const OPEN_FLAGS = fs.constants.O_RDONLY | (fs.constants.O_NOFOLLOW ?? 0) | (fs.constants.O_NONBLOCK ?? 0);

/**
 * The path no longer names a regular file we may read: vanished, or replaced by a
 * symlink (ELOOP), a directory (EISDIR on read) or a FIFO/socket (ENXIO, EAGAIN, and
 * ESPIPE when read at an offset before any fstat).
 */
const GONE = new Set(['ENOENT', 'ENOTDIR', 'ELOOP', 'EISDIR', 'ENXIO', 'EAGAIN', 'ESPIPE']);

/**
 * Hash and classify one file. Returns null when absPath is not (or no longer) a regular
 * file. A file whose stat changes while it is read is read again.
 */
export async function digestFile(absPath: string): Promise<FileDigest | null> {
  const xx = await xxhashApi();
  const small = digestSmallFileSync(absPath, xx);
  return small === 'large' ? digestLargeFile(absPath, xx) : small;
}

/**
 * The synchronous path for files under HASH_STREAM_THRESHOLD_BYTES (see HASH_CONCURRENCY
 * for why reading small files synchronously is the fast choice). Answers 'large' without
 * reading when the open file is at or above the threshold: stream it with digestLargeFile.
 * `statBefore`, the walk's lstat of the path, saves one fstat per file.
 */
export function digestSmallFileSync(absPath: string, xx: XXHashAPI, statBefore?: FileStat): FileDigest | null | 'large' {
  for (let attempt = 1; ; attempt++) {
    const openedMs = nowMs();
    let fd: number;
    try {
      fd = fs.openSync(absPath, OPEN_FLAGS);
    } catch (err) {
      if (GONE.has((err as NodeJS.ErrnoException).code ?? '')) return null;
      throw err;
    }
    try {
      let before: FileStat | null = null;
      if (attempt === 1 && statBefore !== undefined) {
        // The caller's lstat (taken earlier) stands in for a first fstat: any change since
        // then, including a different file renamed into place, shows up as instability.
        before = statBefore;
      } else if (attempt === 1) {
        const first = readSettled(fd, xx, openedMs);
        if (first === null || first instanceof Digest) return first;
        // Read again the long way; the fstat the first read ended with serves as "before".
        before = first.unsettled;
      }
      if (before === null) {
        before = fstatOf(fd);
        if (kindOfMode(before.mode) !== 'file') return null;
      }
      if (before.size >= HASH_STREAM_THRESHOLD_BYTES) return 'large';
      const data = readAllSync(fd, before.size);
      const after = fstatOf(fd);
      if (kindOfMode(after.mode) !== 'file') return null; // opened something else than the file the walk saw
      const stable = sameFileStat(before, after) && data.length === after.size;
      if (stable || attempt >= HASH_STABLE_MAX_ATTEMPTS) return digestOf(data, xx, after, stable);
    } catch (err) {
      if (GONE.has((err as NodeJS.ErrnoException).code ?? '')) return null;
      throw err;
    } finally {
      fs.closeSync(fd);
    }
  }
}

/**
 * A file read with one fstat, after reading, instead of one before and one after: when it
 * fits `scratch` in one read and its last change (mtime, as of that fstat) came more than
 * the racy window (filestat.ts isRacy, which covers coarse file system clocks) before
 * it was opened. Any write during the read would have moved its mtime past the
 * opening, so the bytes read are the content that fstat describes: the before-and-after
 * check could tell nothing more. `unsettled` when that cannot be said (a recent change, a
 * file as large as `scratch`, a size that differs from the bytes read): the caller reads
 * it again the long way, taking that fstat (null when none was taken) as its "before".
 * A cold scan of an old tree makes one fstat per file fewer.
 */
function readSettled(fd: number, xx: XXHashAPI, openedMs: number): Digest | null | { unsettled: FileStat | null } {
  const n = fs.readSync(fd, scratch, 0, scratch.length, 0);
  if (n === scratch.length) return { unsettled: null };
  const after = fstatOf(fd);
  if (kindOfMode(after.mode) !== 'file') return null;
  if (after.size !== n || isRacy(after.mtimeMs, openedMs)) return { unsettled: after };
  return digestOf(scratch.subarray(0, n), xx, after, true);
}

/** One shape for every digest (an object spread into another was a slow path of its own at 100k files). */
function digestOf(data: Buffer, xx: XXHashAPI, stat: FileStat, stable: boolean): Digest {
  return digestOfHash(xx.h64Raw(data), isTextBuffer(data), data.length, stat, stable);
}

function digestOfHash(h: bigint, text: boolean, size: number, stat: FileStat, stable: boolean): Digest {
  hashView.setBigUint64(0, h, false);
  return new Digest(hashView.getUint32(0, true), hashView.getUint32(4, true), text, size, stat, stable);
}

class Digest implements FileDigest {
  constructor(
    readonly hashLo: number,
    readonly hashHi: number,
    readonly text: boolean,
    readonly size: number,
    readonly stat: FileStat,
    readonly stable: boolean,
  ) {}

  get hash(): string {
    return hexOfWords(this.hashLo, this.hashHi);
  }
}

/**
 * Reused by the synchronous path (never two reads at once): a fresh buffer per file was a
 * measurable share of a cold scan in garbage collection alone.
 */
let scratch = Buffer.allocUnsafe(64 * 1024);

/**
 * The whole file, in `scratch`. With the size known from stat, one read(2) usually does:
 * a short read that returns exactly the expected size is taken as end of file, and if
 * the file grew meanwhile the stat taken after reading tells (the caller re-reads).
 */
function readAllSync(fd: number, expectedSize: number): Buffer {
  if (scratch.length < expectedSize + 1) scratch = Buffer.allocUnsafe(expectedSize + 1);
  let total = 0;
  for (;;) {
    if (total === scratch.length) {
      const bigger = Buffer.allocUnsafe(scratch.length * 2);
      scratch.copy(bigger, 0, 0, total);
      scratch = bigger;
    }
    const n = fs.readSync(fd, scratch, total, scratch.length - total, total);
    if (n === 0) break;
    total += n;
    if (total === expectedSize && total < scratch.length) break;
  }
  const data = scratch.subarray(0, total);
  // A file that grew far past the streaming threshold is not worth keeping a buffer for.
  if (scratch.length > HASH_STREAM_THRESHOLD_BYTES) scratch = Buffer.allocUnsafe(64 * 1024);
  return data;
}

/** The streaming path: fixed-size chunks, so xxhash-wasm's memory stays at one chunk. */
export async function digestLargeFile(absPath: string, xx: XXHashAPI): Promise<FileDigest | null> {
  for (let attempt = 1; ; attempt++) {
    let fh: FileHandle;
    try {
      fh = await fsp.open(absPath, OPEN_FLAGS);
    } catch (err) {
      if (GONE.has((err as NodeJS.ErrnoException).code ?? '')) return null;
      throw err;
    }
    try {
      // fstat of the handle's fd, synchronous: every FileStat of a process has one source (fast-stat.ts).
      const before = fstatOf(fh.fd);
      if (kindOfMode(before.mode) !== 'file') return null;
      const read = await digestStream(fh, xx);
      const after = fstatOf(fh.fd);
      const stable = sameFileStat(before, after) && read.size === after.size;
      if (stable || attempt >= HASH_STABLE_MAX_ATTEMPTS) return digestOfHash(read.hash, read.text, read.size, after, stable);
    } finally {
      await fh.close();
    }
  }
}

/** Hash and classify one regular file (throws when it is not one). */
export async function xxh64File(absPath: string): Promise<{ hash: string; text: boolean; size: number }> {
  const d = await digestFile(absPath);
  if (d === null) throw Object.assign(new Error(`not a regular file: ${absPath}`), { code: 'ENOENT' });
  return { hash: d.hash, text: d.text, size: d.size };
}

type Read = { hash: bigint; text: boolean; size: number };

async function digestStream(fh: FileHandle, xx: XXHashAPI): Promise<Read> {
  const hasher = xx.create64();
  const sniffer = new TextSniffer();
  const buf = Buffer.allocUnsafe(HASH_STREAM_CHUNK_BYTES);
  let size = 0;
  for (;;) {
    const { bytesRead } = await fh.read(buf, 0, buf.length, null);
    if (bytesRead === 0) break;
    const chunk = buf.subarray(0, bytesRead);
    hasher.update(chunk);
    sniffer.push(chunk);
    size += bytesRead;
  }
  return { hash: hasher.digest(), text: sniffer.finish(), size };
}
