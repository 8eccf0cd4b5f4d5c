/**
 * The binary container of hostsync's own large state files (the stat cache, the sync
 * state): a 4-byte magic, a u32 format version, the body, and the XXH64 of everything
 * before it. At 100k files the JSON it replaces took 0.3-0.5 s to parse and built a
 * million short-lived values; this decodes in tens of milliseconds.
 *
 * Invariants:
 * - A file whose magic, version or checksum does not match, or that ends early, reads as
 *   absent (null): callers rebuild what it held, never trust it.
 * - Paths are front-coded against the previous path written (shared prefix length in
 *   UTF-16 units, never splitting a surrogate pair, then the rest as UTF-8), so sorted
 *   paths cost a few bytes each.
 * - Little-endian throughout.
 */
import { xxhashApi } from './hash.js';

const CHECKSUM_BYTES = 8;

export class PackedWriter {
  private buf = Buffer.allocUnsafe(1 << 16);
  /** Over `buf`: DataView writes are inlined by the JIT (Buffer#write* are calls with range checks; 100k records make ~1M of them). */
  private view = new DataView(this.buf.buffer, this.buf.byteOffset, this.buf.length);
  private len = 0;
  private prev = '';

  private room(n: number): void {
    if (this.len + n <= this.buf.length) return;
    const next = Buffer.allocUnsafe(Math.max(this.buf.length * 2, this.len + n));
    this.buf.copy(next, 0, 0, this.len);
    this.buf = next;
    this.view = new DataView(next.buffer, next.byteOffset, next.length);
  }

  u8(v: number): void {
    this.room(1);
    this.buf[this.len++] = v;
  }

  u32(v: number): void {
    this.room(4);
    this.view.setUint32(this.len, v, true);
    this.len += 4;
  }

  f64(v: number): void {
    this.room(8);
    this.view.setFloat64(this.len, v, true);
    this.len += 8;
  }

  /** Modulo 2^64, as BigInt.asUintN(64, v). */
  u64(v: bigint): void {
    this.room(8);
    this.view.setBigUint64(this.len, v, true);
    this.len += 8;
  }

  /** 16 lowercase hex digits as 8 bytes. */
  hash(hex: string): void {
    this.room(8);
    this.len += this.buf.write(hex, this.len, 8, 'hex');
  }

  /** Bytes as they are (a record copied from a file read with PackedReader.bytesAt). */
  raw(bytes: Uint8Array): void {
    this.room(bytes.length);
    this.buf.set(bytes, this.len);
    this.len += bytes.length;
  }

  /** A length-prefixed UTF-8 string. */
  str(s: string): void {
    const n = s.length;
    this.room(4 + n);
    // ASCII (nearly every path) is copied unit by unit; anything else is encoded as UTF-8.
    const buf = this.buf;
    const at = this.len + 4;
    let i = 0;
    for (; i < n; i++) {
      const c = s.charCodeAt(i);
      if (c >= 0x80) break;
      buf[at + i] = c;
    }
    if (i === n) {
      this.view.setUint32(this.len, n, true);
      this.len = at + n;
      return;
    }
    const bytes = Buffer.byteLength(s);
    this.u32(bytes);
    this.room(bytes);
    this.len += this.buf.write(s, this.len, bytes, 'utf8');
  }

  /** A relative path, front-coded against the previous one. */
  path(p: string): void {
    const prev = this.prev;
    const max = Math.min(prev.length, p.length, 0xffff);
    let shared = 0;
    while (shared < max && prev.charCodeAt(shared) === p.charCodeAt(shared)) shared++;
    // Never cut between the halves of a surrogate pair: the rest would not be valid UTF-16.
    if (shared > 0 && (p.charCodeAt(shared - 1) & 0xfc00) === 0xd800) shared--;
    this.room(2);
    this.len = this.buf.writeUInt16LE(shared, this.len);
    this.str(p.slice(shared));
    this.prev = p;
  }

  /** The whole file: magic, version, body, checksum. */
  async finish(magic: string, version: number): Promise<Buffer> {
    const head = Buffer.alloc(8);
    head.write(magic, 0, 4, 'latin1');
    head.writeUInt32LE(version, 4);
    const body = Buffer.concat([head, this.buf.subarray(0, this.len)]);
    const sum = Buffer.alloc(CHECKSUM_BYTES);
    sum.writeBigUInt64LE((await xxhashApi()).h64Raw(body));
    return Buffer.concat([body, sum]);
  }
}

export class PackedReader {
  private pos = 8;
  private prev = '';
  /** When `prev` is ASCII: its bytes, so the next path is built as ONE flat string (see path()). */
  private prevBytes: Buffer | null = Buffer.allocUnsafe(256);
  /** False after takePath(): `prevBytes` no longer holds `prev` (path() copies it in when it needs it). */
  private prevBytesValid = true;

  /**
   * Over `buf`, for the reads a scan makes per file: DataView reads are inlined by the JIT,
   * while Buffer#read* are calls with range checks, and readBigUInt64LE builds its answer
   * from four BigInts (measured: a tenth of a warm scan's own CPU at 100k files).
   */
  private readonly view: DataView;

  private constructor(
    private readonly buf: Buffer,
    /** Where the body ends (the checksum starts). */
    private readonly end: number,
  ) {
    this.view = new DataView(buf.buffer, buf.byteOffset, buf.length);
  }

  /** The body of `buf`, or null when it is not a whole, intact file of this magic and version. */
  static async open(buf: Buffer, magic: string, version: number): Promise<PackedReader | null> {
    if (buf.length < 8 + CHECKSUM_BYTES) return null;
    if (buf.toString('latin1', 0, 4) !== magic || buf.readUInt32LE(4) !== version) return null;
    const end = buf.length - CHECKSUM_BYTES;
    const sum = (await xxhashApi()).h64Raw(buf.subarray(0, end));
    if (sum !== buf.readBigUInt64LE(end)) return null;
    return new PackedReader(buf, end);
  }

  private take(n: number): number {
    const at = this.pos;
    if (at + n > this.end) throw new RangeError('packed file ends early');
    this.pos = at + n;
    return at;
  }

  get done(): boolean {
    return this.pos === this.end;
  }

  /** The bytes from here to the end, unread (a view of the file, not a copy). */
  rest(): Buffer {
    return this.buf.subarray(this.pos, this.end);
  }

  u8(): number {
    return this.buf[this.take(1)]!;
  }

  u32(): number {
    return this.buf.readUInt32LE(this.take(4));
  }

  f64(): number {
    return this.buf.readDoubleLE(this.take(8));
  }

  u64(): bigint {
    return this.buf.readBigUInt64LE(this.take(8));
  }

  hash(): string {
    const at = this.take(8);
    return this.buf.toString('hex', at, at + 8);
  }

  /** An independent reader at the same place (front coding included): to read on twice. */
  copy(): PackedReader {
    const r = new PackedReader(this.buf, this.end);
    r.pos = this.pos;
    r.prev = this.prev;
    r.prevBytes = this.prevBytes && Buffer.from(this.prevBytes);
    r.prevBytesValid = this.prevBytesValid;
    return r;
  }

  /** Skips `n` bytes (a record the caller reads later through `at`). */
  skip(n: number): void {
    this.take(n);
  }

  /** Current offset, for the random-access reads below (a record read later, in place). */
  get offset(): number {
    return this.pos;
  }

  u64At(offset: number): bigint {
    return this.view.getBigUint64(offset, true);
  }

  f64At(offset: number): number {
    return this.view.getFloat64(offset, true);
  }

  u32At(offset: number): number {
    return this.view.getUint32(offset, true);
  }

  u16At(offset: number): number {
    return this.view.getUint16(offset, true);
  }

  u8At(offset: number): number {
    return this.buf[offset]!;
  }

  bytesAt(offset: number, n: number): Buffer {
    return this.buf.subarray(offset, offset + n);
  }

  hashAt(offset: number): string {
    return this.buf.toString('hex', offset, offset + 8);
  }

  str(): string {
    const n = this.u32();
    const at = this.take(n);
    return this.buf.toString('utf8', at, at + n);
  }

  /** Bytes the next path takes in the file (to find what follows it without reading it). */
  pathBytes(): number {
    if (this.pos + 6 > this.end) throw new RangeError('packed file ends early');
    return 6 + this.view.getUint32(this.pos + 2, true);
  }

  /**
   * The next path's shared-prefix length, when its header is whole and `s` agrees with the
   * previous path over that prefix (over all of `s` when shorter); otherwise -1.
   */
  private agreedPrefix(s: string): number {
    const at = this.pos;
    if (at + 6 > this.end) return -1;
    const shared = this.view.getUint16(at, true);
    const prev = this.prev;
    if (shared > prev.length || at + 6 + this.view.getUint32(at + 2, true) > this.end) return -1;
    const k = Math.min(shared, s.length);
    for (let i = 0; i < k; i++) if (s.charCodeAt(i) !== prev.charCodeAt(i)) return -1;
    return shared;
  }

  /**
   * Whether the next path is `rel`, compared in place: an ASCII path costs no string.
   * Nothing is consumed (see takePath); a malformed path answers false (path() would throw).
   */
  pathIs(rel: string): boolean {
    const shared = this.agreedPrefix(rel);
    if (shared < 0 || rel.length < shared) return false;
    const buf = this.buf;
    const at = this.pos;
    const n = this.view.getUint32(at + 2, true);
    if (rel.length === shared + n) {
      let i = 0;
      for (; i < n; i++) {
        const b = buf[at + 6 + i]!;
        if (b >= 0x80 || b !== rel.charCodeAt(shared + i)) break;
      }
      if (i === n) return true;
      if (buf[at + 6 + i]! < 0x80) return false;
    } else {
      let i = 0;
      while (i < n && buf[at + 6 + i]! < 0x80) i++;
      if (i === n) return false; // ASCII of another length
    }
    // Not ASCII (byte and UTF-16 lengths differ): decoded to compare.
    return rel.slice(shared) === buf.toString('utf8', at + 6, at + 6 + n);
  }

  /** Whether the next path starts with `prefix`, compared in place as pathIs (false at the end, or when malformed). */
  pathStartsWith(prefix: string): boolean {
    const shared = this.agreedPrefix(prefix);
    if (shared < 0) return false;
    const buf = this.buf;
    const at = this.pos;
    const n = this.view.getUint32(at + 2, true);
    let i = 0;
    for (; shared + i < prefix.length && i < n; i++) {
      const b = buf[at + 6 + i]!;
      if (b >= 0x80) break;
      if (b !== prefix.charCodeAt(shared + i)) return false;
    }
    if (shared + i === prefix.length) return true;
    if (i === n) return false; // an ASCII path shorter than the prefix
    // Not ASCII: decoded to compare.
    return buf.toString('utf8', at + 6, at + 6 + n).startsWith(prefix.slice(shared));
  }

  /**
   * One step of a search for the ASCII path `key` in a file sorted by comparePaths, making
   * no string: `shared` is how many code units `key` has in common with the path before
   * (0 before the first), and the answer is how many it has in common with the next path,
   * which this consumes; `order` is then that path's order against `key` (-1, 0 or 1). The
   * reader no longer knows the previous path afterwards: path() must not follow.
   */
  skipPathAgainst(key: string, shared: number): number {
    const at = this.pos;
    if (at + 6 > this.end) throw new RangeError('packed file ends early');
    const prefix = this.view.getUint16(at, true);
    const n = this.view.getUint32(at + 2, true);
    this.take(6 + n);
    // Sharing more with the path before than `key` does: ordered against `key` as that one
    // was (before it, or the search would have ended), with as much in common.
    if (prefix > shared) {
      this.order = -1;
      return shared;
    }
    const buf = this.buf;
    let i = 0;
    let j = prefix;
    for (; i < n && j < key.length; i++, j++) {
      const b = buf[at + 6 + i]!;
      const c = key.charCodeAt(j);
      if (b !== c) {
        // A byte past ASCII starts a character past every ASCII one.
        this.order = b < c ? -1 : 1;
        return j;
      }
    }
    this.order = i === n ? (j === key.length ? 0 : -1) : 1;
    return j;
  }

  /** See skipPathAgainst. */
  order = 0;

  /** Consumes the next path, which pathIs(rel) just found equal to `rel`. */
  takePath(rel: string): void {
    this.take(this.pathBytes());
    this.prev = rel;
    this.prevBytesValid = false;
  }

  path(): string {
    const shared = this.buf.readUInt16LE(this.take(2));
    if (shared > this.prev.length) throw new RangeError('bad path prefix');
    const n = this.u32();
    const at = this.take(n);
    const buf = this.buf;
    if (!this.prevBytesValid) this.loadPrevBytes();
    // Nearly every path is ASCII, where UTF-16 units are bytes: the prefix and the rest
    // are joined as bytes and decoded once (no slice, no concatenation to flatten later).
    let bytes = this.prevBytes;
    if (bytes !== null) {
      let ascii = true;
      for (let i = at; i < at + n; i++) {
        if (buf[i]! >= 0x80) {
          ascii = false;
          break;
        }
      }
      if (ascii) {
        if (bytes.length < shared + n) {
          const bigger = Buffer.allocUnsafe(Math.max(bytes.length * 2, shared + n));
          bytes.copy(bigger, 0, 0, shared);
          bytes = this.prevBytes = bigger;
        }
        buf.copy(bytes, shared, at, at + n);
        const p = bytes.toString('latin1', 0, shared + n);
        this.prev = p;
        return p;
      }
    }
    const p = this.prev.slice(0, shared) + buf.toString('utf8', at, at + n);
    this.prev = p;
    this.loadPrevBytes();
    return p;
  }

  /** `prevBytes` made to hold `prev` again (null when it is not ASCII). */
  private loadPrevBytes(): void {
    const p = this.prev;
    this.prevBytesValid = true;
    if (/[^\x00-\x7f]/.test(p)) {
      this.prevBytes = null;
      return;
    }
    if (this.prevBytes === null || this.prevBytes.length < p.length) this.prevBytes = Buffer.allocUnsafe(Math.max(256, p.length));
    this.prevBytes.write(p, 0, 'latin1');
  }
}
