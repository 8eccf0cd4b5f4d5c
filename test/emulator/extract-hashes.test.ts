import { lstatSync, mkdirSync, mkdtempSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import * as tar from 'tar';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ExtractedHashes } from '../../src/emulator/extract-hashes.js';
import { HashCache } from '../../src/emulator/hash-cache.js';
import { xxh64Bytes } from '../../src/emulator/hash.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'hostsync-extract-hashes-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const OLD = new Date('2022-01-02T03:04:05.678Z');
const st = (p: string) => lstatSync(p, { bigint: true });

/** A tar.gz of `files` (name -> content), each with mtime OLD (outside the racy window). */
async function archiveOf(files: Record<string, string | Buffer>): Promise<string> {
  const src = path.join(dir, 'src');
  for (const [name, content] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(src, name)), { recursive: true });
    writeFileSync(path.join(src, name), content);
    utimesSync(path.join(src, name), OLD, OLD);
  }
  const file = path.join(dir, 'a.tar.gz');
  await tar.create({ gzip: true, file, cwd: src, portable: true }, Object.keys(files));
  return file;
}

/** Extracts like files.decompress does, with the hashes tapped; returns the cache and how many it took. */
async function extract(file: string, dest: string, between?: () => void): Promise<{ cache: HashCache; kept: number }> {
  mkdirSync(dest, { recursive: true });
  const written = await ExtractedHashes.create();
  await tar.extract({ file, cwd: dest, chmod: true, unlink: true, processUmask: 0, transform: (e) => written.tap(e) as unknown as tar.ReadEntry });
  between?.();
  const cache = new HashCache();
  return { cache, kept: written.commit(cache) };
}

describe('ExtractedHashes (files.decompress feeding the hash cache)', () => {
  it('hands over the hash of every extracted file, equal to its bytes on disk, which land intact', async () => {
    const big = Buffer.alloc(3 * 1024 * 1024 + 17, 7); // several chunks through the tap
    const file = await archiveOf({ 'a.txt': 'alpha', 'sub/b.bin': big, 'sub/deep/empty': '' });
    const dest = path.join(dir, 'out');
    const { cache, kept } = await extract(file, dest);
    expect(kept).toBe(3);
    for (const name of ['a.txt', 'sub/b.bin', 'sub/deep/empty']) {
      const abs = path.join(dest, name);
      const bytes = readFileSync(abs);
      expect(cache.known(abs, st(abs))).toBe(await xxh64Bytes(bytes));
    }
    expect(readFileSync(path.join(dest, 'sub/b.bin')).equals(big)).toBe(true);
  });

  it('hands over nothing for a file changed after it was extracted, so the index reads it', async () => {
    const file = await archiveOf({ 'a.txt': 'alpha', 'b.txt': 'bravo' });
    const dest = path.join(dir, 'out');
    // Same size, new content, mtime of now (any write moves it).
    const { cache, kept } = await extract(file, dest, () => writeFileSync(path.join(dest, 'a.txt'), 'ALPHA'));
    expect(kept).toBe(1);
    const a = path.join(dest, 'a.txt');
    expect(cache.known(a, st(a))).toBeUndefined();
    expect(await cache.hash(a, st(a))).toBe(await xxh64Bytes(Buffer.from('ALPHA')));
  });

  it('hands over nothing for a file rewritten with an old mtime of its own (outside the racy window)', async () => {
    const file = await archiveOf({ 'a.txt': 'alpha' });
    const dest = path.join(dir, 'out');
    const a = path.join(dest, 'a.txt');
    const rewrite = (): void => {
      writeFileSync(a, 'ALPHA');
      utimesSync(a, OLD, new Date(OLD.getTime() + 10_000));
    };
    const { cache, kept } = await extract(file, dest, rewrite);
    expect(kept).toBe(0);
    expect(await cache.hash(a, st(a))).toBe(await xxh64Bytes(Buffer.from('ALPHA')));
  });

  it('hands over nothing for a file tar did not write (a non-empty folder stands at its path)', async () => {
    const file = await archiveOf({ 'x': 'file here', 'y.txt': 'y' });
    const dest = path.join(dir, 'out');
    mkdirSync(path.join(dest, 'x'), { recursive: true });
    writeFileSync(path.join(dest, 'x', 'kept'), 'k');
    const { cache, kept } = await extract(file, dest);
    expect(kept).toBe(1);
    expect(cache.known(path.join(dest, 'x'), st(path.join(dest, 'x')))).toBeUndefined();
  });

  it('keeps nothing inside the racy window: a file whose mtime is recent is hashed from disk later', async () => {
    const file = await archiveOf({ 'new.txt': 'fresh' });
    utimesSync(path.join(dir, 'src', 'new.txt'), new Date(), new Date());
    await tar.create({ gzip: true, file, cwd: path.join(dir, 'src'), portable: true }, ['new.txt']);
    const { kept } = await extract(file, path.join(dir, 'out'));
    expect(kept).toBe(0);
  });
});
