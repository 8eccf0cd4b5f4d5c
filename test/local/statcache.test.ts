import { lstatSync } from 'node:fs';
import { mkdir, readdir, readFile, rm, stat, utimes, writeFile } from 'node:fs/promises';
import { fileStatOf } from '../../src/local/filestat.js';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createIgnoreMatcher, DEFAULT_IGNORE_PATTERNS, type IgnoreMatcher } from '../../src/local/ignore.js';
import { rescanPaths, scanTree } from '../../src/local/scan.js';
import { StatCache, STAT_CACHE_VERSION } from '../../src/local/statcache.js';
import { xxhashApi } from '../../src/local/hash.js';
import { HASH_STREAM_THRESHOLD_BYTES, STAT_CACHE_RACY_WINDOW_MS } from '../../src/local/tunables.js';
import { tempDir, writeTree } from '../helpers/tree.js';

const matcher = createIgnoreMatcher(DEFAULT_IGNORE_PATTERNS);
const HOUR_AGO = new Date(Date.now() - 3_600_000);

let root: string;
let cacheFile: string;
let cleanup: () => Promise<void>;
beforeEach(async () => {
  ({ dir: root, cleanup } = await tempDir('hostsync-statcache-'));
  cacheFile = path.join(root, '.hostsync', 'statcache.bin');
  await writeTree(root, { 'a.txt': 'alpha\n', 'dir/b.txt': 'bravo\n', 'dir/sub/c.bin': Buffer.from([0, 1, 2, 3]) });
});
afterEach(async () => {
  await cleanup();
});

/** The cache file's inode: a save replaces the file atomically, so a new inode means it was written again. */
async function cacheIno(): Promise<bigint> {
  return (await stat(cacheFile, { bigint: true })).ino;
}

/** Files last written an hour ago: outside any racy window, as in a tree nobody is editing. */
async function settle(...rels: string[]): Promise<void> {
  for (const rel of rels) await utimes(path.join(root, rel), HOUR_AGO, HOUR_AGO);
}

describe('StatCache', () => {
  it('a saved cache lets the next scan skip hashing unchanged files, with the same snapshot', async () => {
    await settle('a.txt', 'dir/b.txt', 'dir/sub/c.bin');
    const c1 = await StatCache.load(cacheFile);
    const cold = await scanTree({ root, matcher, cache: c1 });
    expect(cold.stats).toMatchObject({ files: 3, hashed: 3, cached: 0 });
    await c1.save(); // into .hostsync/, which the next scan ignores

    const warm = await scanTree({ root, matcher, cache: await StatCache.load(cacheFile) });
    expect(warm.stats).toMatchObject({ files: 3, hashed: 0, cached: 3 });
    expect(warm.snapshot).toEqual(cold.snapshot);
  });

  it('remembers which files the ignore rules kept: the same rules are not asked about them again, other rules are', async () => {
    await settle('a.txt', 'dir/b.txt', 'dir/sub/c.bin');
    const c1 = await StatCache.load(cacheFile);
    await scanTree({ root, matcher, cache: c1 });
    await c1.save();
    expect((await StatCache.load(cacheFile)).keptBy).toBe(matcher.key);

    const asked: string[] = [];
    const counting = (m: IgnoreMatcher): IgnoreMatcher => ({
      patterns: m.patterns,
      ...(m.key === undefined ? {} : { key: m.key }),
      ignores: (rel, isDir) => (asked.push(`${rel}${isDir ? '/' : ''}`), m.ignores(rel, isDir)),
    });
    const same = createIgnoreMatcher(DEFAULT_IGNORE_PATTERNS);
    const warm = await scanTree({ root, matcher: counting(same), cache: await StatCache.load(cacheFile) });
    expect(warm.stats).toMatchObject({ files: 3, cached: 3 });
    // Not even the folders it holds files under (a file kept means its folders are kept):
    // only the one it holds nothing under.
    expect(asked.sort()).toEqual(['.hostsync/']);

    // Other rules (a new .syncignore line): every file is asked again, and the rule holds.
    asked.length = 0;
    const other = createIgnoreMatcher([...DEFAULT_IGNORE_PATTERNS, '*.bin']);
    expect(other.key).not.toBe(same.key);
    const c3 = await StatCache.load(cacheFile);
    const r = await scanTree({ root, matcher: counting(other), cache: c3 });
    expect([...r.snapshot.keys()].sort()).toEqual(['a.txt', 'dir/b.txt']);
    expect(asked).toContain('a.txt');
    expect(c3.keptBy).toBe(other.key);

    // A new folder, and a folder whose only file is new, are asked; an ignored one still holds.
    // (A file the cache does not hold is passed over in path order: the folders after it that
    // the cache holds files under are still not asked, dir/sub/ here.)
    await writeTree(root, { 'new/d.txt': 'delta\n', 'dir/fresh/e.txt': 'echo\n', 'dir/node_modules/m.js': 'x' });
    asked.length = 0;
    const more = await scanTree({ root, matcher: counting(same), cache: await StatCache.load(cacheFile) }); // c1's file: kept by `same`
    expect([...more.snapshot.keys()].sort()).toEqual(['a.txt', 'dir/b.txt', 'dir/fresh/e.txt', 'dir/sub/c.bin', 'new/d.txt']);
    expect(asked.sort()).toEqual(['.hostsync/', 'dir/fresh/', 'dir/fresh/e.txt', 'dir/node_modules/', 'new/', 'new/d.txt']);
  });

  it('a matcher without a key (a scoped one) is always asked, and a rescan through one forgets the key', async () => {
    await settle('a.txt', 'dir/b.txt', 'dir/sub/c.bin');
    const cache = await StatCache.load(cacheFile);
    await scanTree({ root, matcher, cache });
    expect(cache.keptBy).toBe(matcher.key);
    const keyless: IgnoreMatcher = { patterns: matcher.patterns, ignores: (rel, isDir) => rel === 'a.txt' || matcher.ignores(rel, isDir) };
    const r = await scanTree({ root, matcher: keyless, cache });
    expect([...r.snapshot.keys()].sort()).toEqual(['dir/b.txt', 'dir/sub/c.bin']);
    expect(cache.keptBy).toBeNull();

    await scanTree({ root, matcher, cache });
    expect(cache.keptBy).toBe(matcher.key);
    await rescanPaths({ root, matcher: keyless, cache }, new Map(), ['dir']);
    expect(cache.keptBy).toBeNull();
  });

  it('re-hashes a file whose content changed even when size and mtime were put back (ctime differs)', async () => {
    await settle('a.txt', 'dir/b.txt', 'dir/sub/c.bin');
    const cache = await StatCache.load(cacheFile);
    const before = await scanTree({ root, matcher, cache });
    await cache.save();

    await writeFile(path.join(root, 'a.txt'), 'ALPHA\n'); // same size
    await settle('a.txt'); // same mtime as before
    const after = await scanTree({ root, matcher, cache: await StatCache.load(cacheFile) });
    expect(after.stats).toMatchObject({ hashed: 1, cached: 2 });
    expect(after.snapshot.get('a.txt')!.hash).not.toBe(before.snapshot.get('a.txt')!.hash);
    expect(after.snapshot.get('dir/b.txt')).toEqual(before.snapshot.get('dir/b.txt'));
  });

  it('re-hashes a racy entry: one whose mtime is not older than when it was recorded', async () => {
    await settle('dir/b.txt', 'dir/sub/c.bin'); // a.txt keeps its just-written mtime
    const cache = await StatCache.load(cacheFile);
    await scanTree({ root, matcher, cache });
    // In memory: the entry recorded a moment after the write is not trusted.
    const again = await scanTree({ root, matcher, cache });
    expect(again.stats).toMatchObject({ hashed: 1, cached: 2 });
    // Nor does it survive a save and load.
    await cache.save();
    const loaded = await StatCache.load(cacheFile);
    expect(loaded.size).toBe(2);
    const fromDisk = await scanTree({ root, matcher, cache: loaded });
    expect(fromDisk.stats).toMatchObject({ hashed: 1, cached: 2 });
  });

  it('a loaded entry is racy exactly when its mtime plus the window reaches the time the file was written', async () => {
    const HALF_HOUR_AGO = new Date(Date.now() - 1_800_000);
    for (const rel of ['a.txt', 'dir/b.txt', 'dir/sub/c.bin']) await utimes(path.join(root, rel), HALF_HOUR_AGO, HALF_HOUR_AGO);
    const first = await StatCache.load(cacheFile);
    await scanTree({ root, matcher, cache: first });
    await first.save();
    const mtimeMs = lstatSync(path.join(root, 'a.txt')).mtimeMs; // the three share it
    /** The cache as if written at `writtenMs` (the header's time, checksum redone; the file's own mtime older). */
    const writtenAt = async (writtenMs: number): Promise<void> => {
      const raw = await readFile(cacheFile);
      raw.writeDoubleLE(writtenMs, 8);
      const end = raw.length - 8;
      raw.writeBigUInt64LE((await xxhashApi()).h64Raw(raw.subarray(0, end)), end);
      await writeFile(cacheFile, raw);
      await utimes(cacheFile, HOUR_AGO, HOUR_AGO);
    };
    await writtenAt(mtimeMs + STAT_CACHE_RACY_WINDOW_MS);
    expect((await scanTree({ root, matcher, cache: await StatCache.load(cacheFile) })).stats).toMatchObject({ hashed: 3, cached: 0 });
    // 1 us later (a double resolves about 0.24 us at today's epoch: see filestat.ts).
    await writtenAt(mtimeMs + STAT_CACHE_RACY_WINDOW_MS + 0.001);
    expect((await scanTree({ root, matcher, cache: await StatCache.load(cacheFile) })).stats).toMatchObject({ hashed: 0, cached: 3 });
  });

  it('drops entries of files that disappeared', async () => {
    await settle('a.txt', 'dir/b.txt', 'dir/sub/c.bin');
    const cache = await StatCache.load(cacheFile);
    await scanTree({ root, matcher, cache });
    expect(cache.size).toBe(3);
    await writeFile(path.join(root, 'x.txt'), 'x'); // to make sure retain also keeps new ones
    await settle('x.txt');
    await rm(path.join(root, 'dir'), { recursive: true });
    await scanTree({ root, matcher, cache });
    expect(cache.size).toBe(2);
    expect(cache.lookup('dir/b.txt', { mtimeMs: 0, ctimeMs: 0, size: 0, ino: 0, mode: 0 })).toBeUndefined();
  });

  it('an unchanged tree is met in file order; files gone since are still dropped, from disk or the same cache', async () => {
    await settle('a.txt', 'dir/b.txt', 'dir/sub/c.bin');
    const c1 = await StatCache.load(cacheFile);
    await scanTree({ root, matcher, cache: c1 });
    await c1.save();

    const cache = await StatCache.load(cacheFile);
    const warm = await scanTree({ root, matcher, cache });
    expect(warm.stats).toMatchObject({ files: 3, hashed: 0, cached: 3 });
    expect(cache.size).toBe(3);
    await rm(path.join(root, 'dir', 'sub'), { recursive: true });
    await scanTree({ root, matcher, cache }); // the same cache, after a scan that met every entry
    expect(cache.size).toBe(2);

    // A file deleted before the first scan of a loaded cache: the cursor misses it.
    await cache.save();
    await rm(path.join(root, 'a.txt'));
    const fromDisk = await StatCache.load(cacheFile);
    expect((await scanTree({ root, matcher, cache: fromDisk })).stats).toMatchObject({ files: 1, cached: 1 });
    expect(fromDisk.size).toBe(1);
    // And a file changed in place is re-hashed, the rest still cached.
    await fromDisk.save();
    await writeTree(root, { 'dir/b.txt': 'BRAVO!\n', 'dir/z.txt': 'z' });
    await settle('dir/b.txt', 'dir/z.txt');
    const changed = await StatCache.load(cacheFile);
    expect((await scanTree({ root, matcher, cache: changed })).stats).toMatchObject({ files: 2, hashed: 2, cached: 0 });
  });

  it('files edited since the last save are saved in their place: the next scan meets every entry, with the new content', async () => {
    await writeTree(root, { 'dir/d.txt': 'delta\n', 'e.txt': 'echo\n' });
    await settle('a.txt', 'dir/b.txt', 'dir/sub/c.bin', 'dir/d.txt', 'e.txt');
    const first = await StatCache.load(cacheFile);
    await scanTree({ root, matcher, cache: first });
    await first.save();
    await writeFile(path.join(root, 'dir/b.txt'), 'bravo, edited\n');
    await writeFile(path.join(root, 'e.txt'), 'echo, edited\n');
    await settle('dir/b.txt', 'e.txt');
    const second = await StatCache.load(cacheFile);
    const edited = await scanTree({ root, matcher, cache: second });
    expect(edited.stats).toMatchObject({ hashed: 2, cached: 3 });
    await second.save();
    const third = await StatCache.load(cacheFile);
    const again = await scanTree({ root, matcher, cache: third });
    expect(again.stats).toMatchObject({ files: 5, hashed: 0, cached: 5 });
    expect(again.snapshot).toEqual(edited.snapshot);
    expect([...again.snapshot.keys()]).toEqual(['a.txt', 'dir/b.txt', 'dir/d.txt', 'dir/sub/c.bin', 'e.txt']);
    // Met in order: nothing to save again.
    const ino = await cacheIno();
    await third.save();
    expect(await cacheIno()).toBe(ino);
  });

  it('a file edited a moment ago leaves the saved cache as it was, read again by the next scan until it settles, then patched in place', async () => {
    await settle('a.txt', 'dir/b.txt', 'dir/sub/c.bin');
    const first = await StatCache.load(cacheFile);
    await scanTree({ root, matcher, cache: first });
    await first.save();
    const ino = await cacheIno();
    const before = await readFile(cacheFile);
    await writeFile(path.join(root, 'dir/b.txt'), 'bravo, edited just now\n'); // racy: its mtime is now

    const second = await StatCache.load(cacheFile);
    expect((await scanTree({ root, matcher, cache: second })).stats).toMatchObject({ hashed: 1, cached: 2 });
    await second.save();
    expect(await cacheIno()).toBe(ino);
    expect(await readFile(cacheFile)).toEqual(before);
    // Its record, left as it was, does not answer for the file as it is now.
    const third = await StatCache.load(cacheFile);
    const racy = await scanTree({ root, matcher, cache: third });
    expect(racy.stats).toMatchObject({ hashed: 1, cached: 2 });
    expect(racy.snapshot.get('dir/b.txt')?.size).toBe('bravo, edited just now\n'.length);

    await settle('dir/b.txt');
    const fourth = await StatCache.load(cacheFile);
    const settled = await scanTree({ root, matcher, cache: fourth });
    expect(settled.stats).toMatchObject({ hashed: 1, cached: 2 });
    await fourth.save();
    expect(await cacheIno()).not.toBe(ino);
    const fifth = await StatCache.load(cacheFile);
    const again = await scanTree({ root, matcher, cache: fifth });
    expect(again.stats).toMatchObject({ files: 3, hashed: 0, cached: 3 });
    expect(again.snapshot).toEqual(settled.snapshot);
    expect(racy.snapshot).toEqual(settled.snapshot);
  });

  it('a cache written in another order than the walk is saved again in walk order, once', async () => {
    await settle('a.txt', 'dir/b.txt', 'dir/sub/c.bin');
    const hashes = (await scanTree({ root, matcher, cache: StatCache.inMemory() })).snapshot;
    // The entries recorded in reverse walk order (as an older walk order saved them).
    const reversed = await StatCache.load(cacheFile);
    for (const rel of ['dir/sub/c.bin', 'dir/b.txt', 'a.txt']) {
      const e = hashes.get(rel)!;
      reversed.update(rel, fileStatOf(lstatSync(path.join(root, rel))), e.hash!, e.text!);
    }
    await reversed.save();
    const before = await cacheIno();

    const warm = await StatCache.load(cacheFile);
    expect((await scanTree({ root, matcher, cache: warm })).stats).toMatchObject({ hashed: 0, cached: 3 });
    await warm.save();
    const rewritten = await cacheIno();
    expect(rewritten).not.toBe(before); // saved again (atomic replace: a new inode)

    const again = await StatCache.load(cacheFile);
    expect((await scanTree({ root, matcher, cache: again })).stats).toMatchObject({ hashed: 0, cached: 3 });
    await again.save();
    expect(await cacheIno()).toBe(rewritten); // in order now: nothing to save
  });

  it('a cold scan saves its files in walk order, a large (streamed, read last) file included: the next save has nothing to do', async () => {
    await writeFile(path.join(root, 'a0-large.bin'), Buffer.alloc(HASH_STREAM_THRESHOLD_BYTES + 1, 7));
    await settle('a0-large.bin', 'a.txt', 'dir/b.txt', 'dir/sub/c.bin');
    const cold = await StatCache.load(cacheFile);
    expect((await scanTree({ root, matcher, cache: cold })).stats).toMatchObject({ hashed: 4, cached: 0 });
    await cold.save();
    const written = await cacheIno();
    const warm = await StatCache.load(cacheFile);
    expect((await scanTree({ root, matcher, cache: warm })).stats).toMatchObject({ hashed: 0, cached: 4 });
    await warm.save();
    expect(await cacheIno()).toBe(written);
  });

  it('a path recorded again, or deleted, after a cold scan is saved as last recorded', async () => {
    await settle('a.txt', 'dir/b.txt', 'dir/sub/c.bin');
    const cache = await StatCache.load(cacheFile);
    const scan = await scanTree({ root, matcher, cache });
    const st = fileStatOf(lstatSync(path.join(root, 'a.txt')));
    cache.update('a.txt', st, '00000000000000aa', false);
    cache.delete('dir/b.txt');
    await cache.save();
    const loaded = await StatCache.load(cacheFile);
    expect(loaded.lookup('a.txt', st)).toEqual({ hash: '00000000000000aa', text: false });
    expect(loaded.has('dir/b.txt')).toBe(false);
    expect(loaded.lookup('dir/sub/c.bin', fileStatOf(lstatSync(path.join(root, 'dir/sub/c.bin'))))?.hash).toBe(scan.snapshot.get('dir/sub/c.bin')!.hash);
    expect(loaded.size).toBe(2);
  });

  it('writes a versioned packed file atomically, leaving no temp file and no former JSON cache behind', async () => {
    await settle('a.txt', 'dir/b.txt', 'dir/sub/c.bin');
    await mkdir(path.dirname(cacheFile), { recursive: true });
    await writeFile(path.join(path.dirname(cacheFile), 'statcache.json'), '{"format":"hostsync-statcache","version":1,"entries":{}}');
    const cache = await StatCache.load(cacheFile);
    await scanTree({ root, matcher, cache });
    await cache.save();
    const raw = await readFile(cacheFile);
    expect(raw.toString('latin1', 0, 4)).toBe('HSSC');
    expect(raw.readUInt32LE(4)).toBe(STAT_CACHE_VERSION);
    expect(await readdir(path.dirname(cacheFile))).toEqual(['statcache.bin']);
    const again = await scanTree({ root, matcher, cache: await StatCache.load(cacheFile) });
    expect(again.stats).toMatchObject({ files: 3, hashed: 0, cached: 3 });
  });

  const corruptions: [string, (good: Buffer) => Buffer][] = [
    ['garbage', () => Buffer.from('not a cache {')],
    ['the JSON of an older release', () => Buffer.from(JSON.stringify({ format: 'hostsync-statcache', version: 1, writtenAtNs: '0', entries: {} }))],
    ['another version', (good) => { const b = Buffer.from(good); b.writeUInt32LE(999, 4); return b; }],
    ['one flipped byte', (good) => { const b = Buffer.from(good); b[20] ^= 0x40; return b; }],
    ['cut short', (good) => good.subarray(0, good.length - 20)],
    ['empty file', () => Buffer.alloc(0)],
  ];
  it.each(corruptions)('ignores a corrupt cache (%s): everything is hashed, nothing fails', async (_name, corrupt) => {
    await settle('a.txt', 'dir/b.txt', 'dir/sub/c.bin');
    const first = await StatCache.load(cacheFile);
    await scanTree({ root, matcher, cache: first });
    await first.save();
    await writeFile(cacheFile, corrupt(await readFile(cacheFile)));
    const cache = await StatCache.load(cacheFile);
    expect(cache.size).toBe(0);
    const r = await scanTree({ root, matcher, cache });
    expect(r.stats).toMatchObject({ files: 3, hashed: 3, cached: 0 });
    await cache.save(); // and it repairs itself
    expect((await StatCache.load(cacheFile)).size).toBe(3);
  });

  it('keeps entries loaded from the file across a save that adds new ones', async () => {
    await settle('a.txt', 'dir/b.txt', 'dir/sub/c.bin');
    const first = await StatCache.load(cacheFile);
    await scanTree({ root, matcher, cache: first });
    await first.save();
    await writeTree(root, { 'x.txt': 'x' });
    await settle('x.txt');
    const second = await StatCache.load(cacheFile);
    expect((await scanTree({ root, matcher, cache: second })).stats).toMatchObject({ hashed: 1, cached: 3 });
    await second.save();
    expect((await scanTree({ root, matcher, cache: await StatCache.load(cacheFile) })).stats).toMatchObject({ hashed: 0, cached: 4 });
  });

  it('a missing cache file is an empty cache', async () => {
    const cache = await StatCache.load(path.join(root, 'nope', 'statcache.json'));
    expect(cache.size).toBe(0);
  });
});
