import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { lstatSync } from 'node:fs';
import { symlink, utimes, writeFile } from 'node:fs/promises';
import path from 'node:path';
import xxhash from 'xxhash-wasm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HASH_STREAM_CHUNK_BYTES, HASH_STREAM_THRESHOLD_BYTES, STAT_CACHE_RACY_WINDOW_MS } from '../../src/local/tunables.js';
import { digestFile, digestSmallFileSync, hashWordLE, xxh64Bytes, xxh64File, xxhashApi } from '../../src/local/hash.js';
import { tempDir } from '../helpers/tree.js';
import { mkfifoSync } from './mkfifo.js';

/** An independent XXH64: xxhash-wasm called directly, whole input at once. */
async function reference(data: Uint8Array): Promise<string> {
  const { h64Raw } = await xxhash();
  return h64Raw(data).toString(16).padStart(16, '0');
}

const hasXxhsum = spawnSync('xxhsum', ['--version']).status === 0;

let dir: string;
let cleanup: () => Promise<void>;
beforeAll(async () => {
  ({ dir, cleanup } = await tempDir('hostsync-hash-'));
});
afterAll(async () => {
  await cleanup();
});

const samples: Record<string, Buffer> = {
  'empty.txt': Buffer.alloc(0),
  'hello.txt': Buffer.from('hello world\n'),
  'random.bin': randomBytes(100_003),
  'bom.txt': Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('with BOM\n')]),
};

describe('xxh64Bytes', () => {
  it('is XXH64 seed 0 as 16 lowercase hex digits', async () => {
    // Published XXH64 test vector for the empty input (also what `xxhsum -H64 /dev/null` prints).
    expect(await xxh64Bytes(new Uint8Array())).toBe('ef46db3751d8e999');
    for (const data of Object.values(samples)) {
      const h = await xxh64Bytes(data);
      expect(h).toMatch(/^[0-9a-f]{16}$/);
      expect(h).toBe(await reference(data));
    }
  });

  it('hashes a string as its UTF-8 bytes', async () => {
    const s = 'naïve café — 日本語';
    expect(await xxh64Bytes(s)).toBe(await reference(Buffer.from(s, 'utf8')));
  });

  it('pads hashes with leading zeros', async () => {
    // Find an input whose hash has a leading zero nibble (1 in 16 do) and check the width.
    for (let i = 0; ; i++) {
      const data = Buffer.from(`pad-${i}`);
      const raw = (await xxhash()).h64Raw(data).toString(16);
      if (raw.length < 16) {
        expect(await xxh64Bytes(data)).toBe(raw.padStart(16, '0'));
        break;
      }
    }
  });
});

describe('xxh64File', () => {
  it('matches the reference for each sample, with its size', async () => {
    for (const [name, data] of Object.entries(samples)) {
      const file = path.join(dir, name);
      await writeFile(file, data);
      const r = await xxh64File(file);
      expect(r.hash).toBe(await reference(data));
      expect(r.size).toBe(data.length);
    }
  });

  it.skipIf(!hasXxhsum)('matches `xxhsum -H64`', async () => {
    for (const [name, data] of Object.entries(samples)) {
      const file = path.join(dir, `xx-${name}`);
      await writeFile(file, data);
      const out = spawnSync('xxhsum', ['-H64', file], { encoding: 'utf8' });
      expect(out.status).toBe(0);
      expect((await xxh64File(file)).hash).toBe(out.stdout.split(/\s+/)[0]);
    }
  });

  it('streams a file at or above the threshold and gets the same hash as one piece', async () => {
    const data = randomBytes(HASH_STREAM_THRESHOLD_BYTES + HASH_STREAM_CHUNK_BYTES / 2 + 7);
    const file = path.join(dir, 'big.bin');
    await writeFile(file, data);
    // The synchronous path declines it: it is read in chunks, not in one call.
    expect(digestSmallFileSync(file, await xxhashApi())).toBe('large');
    const r = await xxh64File(file);
    expect(r).toEqual({ hash: await reference(data), text: false, size: data.length });
    if (hasXxhsum) expect(r.hash).toBe(spawnSync('xxhsum', ['-H64', file], { encoding: 'utf8' }).stdout.split(/\s+/)[0]);
  });

  it('reads a settled file and a just-written one alike: the same digest, the stat of the file read', async () => {
    const xx = await xxhashApi();
    // 64 KiB is the first read's buffer: a file that fills it is read the long way.
    for (const size of [0, 1, 1000, 64 * 1024 - 1, 64 * 1024, 64 * 1024 + 1, 300_000]) {
      const data = Buffer.alloc(size, 'x');
      const fresh = path.join(dir, `fresh-${size}.txt`);
      const settled = path.join(dir, `settled-${size}.txt`);
      await writeFile(fresh, data);
      await writeFile(settled, data);
      const old = new Date(Date.now() - 10 * STAT_CACHE_RACY_WINDOW_MS);
      await utimes(settled, old, old);
      for (const file of [fresh, settled]) {
        const d = digestSmallFileSync(file, xx);
        if (d === null || d === 'large') throw new Error(`${file}: ${d}`);
        const st = lstatSync(file);
        expect({ hash: d.hash, text: d.text, size: d.size, stable: d.stable }).toEqual({ hash: await reference(data), text: true, size, stable: true });
        expect({ mtimeMs: d.stat.mtimeMs, size: d.stat.size, ino: d.stat.ino }).toEqual({ mtimeMs: st.mtimeMs, size: st.size, ino: st.ino });
      }
    }
  });

  it('reports a symlink, a FIFO and a missing path as not a regular file', async () => {
    const target = path.join(dir, 'hello.txt');
    await writeFile(target, 'hello');
    const link = path.join(dir, 'link.txt');
    await symlink(target, link);
    expect(await digestFile(link)).toBeNull();
    await expect(xxh64File(link)).rejects.toThrow(/not a regular file/);
    expect(await digestFile(path.join(dir, 'missing'))).toBeNull();
    const fifo = path.join(dir, 'pipe');
    if (mkfifoSync(fifo)) expect(await digestFile(fifo)).toBeNull(); // and does not block
  });
});

describe('text detection (small files, read in one piece)', () => {
  const cases: [string, Buffer, boolean][] = [
    ['empty', Buffer.alloc(0), true],
    ['ascii', Buffer.from('plain text\n'), true],
    ['UTF-8 with BOM', Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('héllo\n')]), true],
    ['CRLF', Buffer.from('line one\r\nline two\r\n'), true],
    ['multi-byte', Buffer.from('日本語 🎉 ünïcödé'), true],
    ['invalid byte 0xff', Buffer.from([0x61, 0xff, 0x62]), false],
    ['lone continuation byte', Buffer.from([0x61, 0x80]), false],
    ['truncated sequence', Buffer.from([0x61, 0xc3]), false],
    ['overlong encoding', Buffer.from([0xc0, 0xaf]), false],
    ['UTF-16 surrogate encoded', Buffer.from([0xed, 0xa0, 0x80]), false],
    ['NUL byte', Buffer.from('abc\0def'), false],
  ];
  it.each(cases)('%s -> text=%s', async (name, data, text) => {
    const file = path.join(dir, `t-${name.replace(/\W+/g, '-')}`);
    await writeFile(file, data);
    expect((await xxh64File(file)).text).toBe(text);
  });
});

describe('text detection (large files, decided while streaming)', () => {
  const size = HASH_STREAM_THRESHOLD_BYTES + 3;
  /** Two-byte "é" repeated from an odd offset, so characters straddle every chunk boundary. */
  function straddling(): Buffer {
    const buf = Buffer.alloc(size, 0x61);
    for (let i = 1; i + 1 < size; i += 2) {
      buf[i] = 0xc3;
      buf[i + 1] = 0xa9;
    }
    return buf;
  }

  it('a multi-byte character split across chunks is still text', async () => {
    const data = straddling();
    expect(data[HASH_STREAM_CHUNK_BYTES - 1]).toBe(0xc3); // the split really happens
    const file = path.join(dir, 'big-text.txt');
    await writeFile(file, data);
    expect((await xxh64File(file)).text).toBe(true);
  });

  it.each([
    ['a NUL far into the file', (b: Buffer) => (b[b.length - 10] = 0)],
    ['an invalid byte in the last chunk', (b: Buffer) => (b[b.length - 2] = 0xff)],
    ['a sequence cut off by end of file', (b: Buffer) => {
      b[b.length - 2] = 0x61;
      b[b.length - 1] = 0xe2; // first byte of a three-byte sequence, then EOF
    }],
  ])('%s makes it binary', async (name, spoil) => {
    const data = straddling();
    spoil(data);
    const file = path.join(dir, `big-${name.replace(/\W+/g, '-')}`);
    await writeFile(file, data);
    const r = await xxh64File(file);
    expect(r.text).toBe(false);
    expect(r.hash).toBe(await reference(data));
  });
});

describe('hashWordLE', () => {
  it('reads a hash as packed files store it: its 8 bytes as two little-endian u32', () => {
    for (const hex of ['0123456789abcdef', 'ffffffff00000001', '8000000000000000', randomBytes(8).toString('hex')]) {
      const bytes = Buffer.from(hex, 'hex');
      expect([hashWordLE(hex, 0), hashWordLE(hex, 1)]).toEqual([bytes.readUInt32LE(0), bytes.readUInt32LE(4)]);
    }
    for (const bad of ['', '0123', '0123456789abcdeg', '0123456789abcdef0']) expect(hashWordLE(bad, 0) === -1 || hashWordLE(bad, 1) === -1, bad).toBe(true);
  });
  it("a digest's hashLo and hashHi are its hash's two words, for small (read at once) and large (streamed) files", async () => {
    for (const [name, size] of [['small.bin', 1000], ['large.bin', HASH_STREAM_THRESHOLD_BYTES + 5]] as const) {
      const file = path.join(dir, `words-${name}`);
      await writeFile(file, randomBytes(size));
      const d = (await digestFile(file))!;
      expect([d.hashLo, d.hashHi], name).toEqual([hashWordLE(d.hash, 0), hashWordLE(d.hash, 1)]);
    }
  });
});
