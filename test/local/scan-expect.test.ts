import { rm, utimes, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createIgnoreMatcher, DEFAULT_IGNORE_PATTERNS } from '../../src/local/ignore.js';
import { scanTree } from '../../src/local/scan.js';
import { StatCache } from '../../src/local/statcache.js';
import { deltaOver, knownEqual, LazySnapshot } from '../../src/model/lazy-snapshot.js';
import { toBaseEntry } from '../../src/model/snapshot.js';
import type { Snapshot } from '../../src/model/types.js';
import { StateStore } from '../../src/state/store.js';
import { tempDir, writeTree } from '../helpers/tree.js';

const matcher = createIgnoreMatcher(DEFAULT_IGNORE_PATTERNS);
const HOUR_AGO = new Date(Date.now() - 3_600_000);
const TREE = {
  'a.txt': 'alpha\n',
  'b-x.txt': 'dash',
  'b/c.txt': 'in b',
  'b/d/e.bin': Buffer.from([0, 1, 2]),
  'b0.txt': 'after b/',
  'run.sh': '#!/bin/sh\n',
};

let root: string;
let cacheFile: string;
let cleanup: () => Promise<void>;
beforeEach(async () => {
  ({ dir: root, cleanup } = await tempDir('hostsync-scan-expect-'));
  cacheFile = path.join(root, '.hostsync', 'statcache.bin');
  await writeTree(root, TREE);
  await settle(...Object.keys(TREE));
});
afterEach(async () => {
  await cleanup();
});

async function settle(...rels: string[]): Promise<void> {
  for (const rel of rels) await utimes(path.join(root, rel), HOUR_AGO, HOUR_AGO);
}

/** A warm stat cache, and a state file whose base (and remote) is `base` (default: the tree as scanned). */
async function synced(edit?: (base: Snapshot) => void): Promise<{ base: Snapshot; plain: Snapshot; plainBase: Snapshot }> {
  const cache = await StatCache.load(cacheFile);
  const cold = await scanTree({ root, matcher, cache });
  await cache.save();
  const base: Snapshot = new Map([...cold.snapshot].map(([p, e]) => [p, toBaseEntry(e)]));
  edit?.(base);
  const dir = path.join(root, '.hostsync', 'd1');
  await new StateStore(dir, 'd1').save({ base, remote: { digest: 'd', requestKey: 'k', snapshot: base, symlinks: [], leftovers: [] } });
  // As another process loads it (the saving store remembers the Maps it saved).
  return { base: (await new StateStore(dir, 'd1').load()).base!, plain: cold.snapshot, plainBase: base };
}

/** The scan as it was before ScanOptions.expect (a plain Map), for comparison. */
async function plainScan(): Promise<Snapshot> {
  return (await scanTree({ root, matcher, cache: await StatCache.load(cacheFile) })).snapshot;
}

describe('scanTree against an expected tree (ScanOptions.expect)', () => {
  it('meets files in path order: a folder where its name plus "/" sorts', async () => {
    const { plain } = await synced();
    expect([...plain.keys()]).toEqual(['a.txt', 'b-x.txt', 'b/c.txt', 'b/d/e.bin', 'b0.txt', 'run.sh']);
    expect([...plain.keys()]).toEqual([...plain.keys()].sort());
  });

  it('an unchanged tree makes no entries: a LazySnapshot known equal to the base, with the same entries (text flags too)', async () => {
    const { base, plain } = await synced();
    const scan = await scanTree({ root, matcher, cache: await StatCache.load(cacheFile), expect: base });
    const local = scan.snapshot as LazySnapshot;
    expect(local).toBeInstanceOf(LazySnapshot);
    expect(local.lazy).toBe(true);
    expect((base as LazySnapshot).lazy).toBe(true);
    expect(scan.stats).toMatchObject({ files: 6, hashed: 0, cached: 6 });
    expect(knownEqual(local, base)).toBe(true);
    expect(new Map(local)).toEqual(plain);
    expect([...local.keys()]).toEqual([...plain.keys()]);
  });

  it('the local tree so found keeps its entries when the base is changed afterwards', async () => {
    const { base, plain } = await synced();
    const scan = await scanTree({ root, matcher, cache: await StatCache.load(cacheFile), expect: base });
    base.delete('a.txt');
    expect(knownEqual(scan.snapshot, base)).toBe(false);
    expect(new Map(scan.snapshot)).toEqual(plain);
  });

  const changes: [string, () => Promise<void>, ((base: Snapshot) => void)?][] = [
    ['a file changed', async () => { await writeFile(path.join(root, 'b/c.txt'), 'changed'); await settle('b/c.txt'); }],
    ['a file added', async () => { await writeFile(path.join(root, 'b/d/f.txt'), 'new'); await settle('b/d/f.txt'); }],
    ['a file added last', async () => { await writeFile(path.join(root, 'z.txt'), 'new'); await settle('z.txt'); }],
    ['a file deleted', () => rm(path.join(root, 'b0.txt'))],
    ['the last file deleted', () => rm(path.join(root, 'run.sh'))],
    ['the base holds a file the tree never had', async () => {}, (b) => b.set('b/zz.txt', { path: 'b/zz.txt', hash: '0000000000000001', size: 1, executable: false })],
    ['the base has another hash', async () => {}, (b) => b.set('b0.txt', { ...b.get('b0.txt')!, hash: '0000000000000002' })],
    ['the base has no hash', async () => {}, (b) => b.set('b0.txt', { ...b.get('b0.txt')!, hash: null })],
    ['the base has another executable bit', async () => {}, (b) => b.set('a.txt', { ...b.get('a.txt')!, executable: true })],
    ['an .npmrc (read for credentials on every scan)', async () => { await writeFile(path.join(root, 'b/.npmrc'), '//r/:_authToken=${T}\n'); await settle('b/.npmrc'); }],
  ];
  /** The first file's stat changed (content not): a cache miss, so every later file is checked after reading. */
  const firstMissed = async (): Promise<void> => {
    await utimes(path.join(root, 'a.txt'), new Date(HOUR_AGO.getTime() - 60_000), new Date(HOUR_AGO.getTime() - 60_000));
  };
  // Each change as the first difference met in place, and after a file read first.
  const changeCases = changes.flatMap(([what, change, edit]) => [false, true].map((readFirst) => [readFirst ? `${what}, after a file read first` : what, change, edit, readFirst] as const));

  /**
   * The scan's snapshot holds what a plain scan finds, in its order; unless it is a plain Map
   * (the .npmrc), it is a delta over the base naming exactly the paths whose entries differ,
   * with their entries on both sides, and the base's entries are still unmade (and the
   * scan's own, when every file the stat cache holds is still there: `unmade`).
   */
  const sameAsPlainWithDelta = (scan: Snapshot, base: Snapshot, expected: Snapshot, plainBase: Snapshot, unmade: boolean): void => {
    expect(knownEqual(scan, base)).toBe(false);
    const delta = deltaOver(scan, base);
    if (delta !== null) {
      expect((base as LazySnapshot).lazy).toBe(true);
      if (unmade) expect((scan as LazySnapshot).lazy).toBe(true);
      const differ = [...new Set([...expected.keys(), ...plainBase.keys()])].filter((p) => {
        const [l, b] = [expected.get(p), plainBase.get(p)];
        return !l || !b || l.hash !== b.hash || l.size !== b.size || l.executable !== b.executable;
      });
      expect([...delta.keys()]).toEqual(differ.sort());
      for (const [p, d] of delta) {
        expect(d.local).toEqual(expected.get(p) ?? null);
        expect(d.base).toEqual(plainBase.get(p) ?? null);
      }
    }
    expect(new Map(scan)).toEqual(expected);
    expect([...scan.keys()]).toEqual([...expected.keys()]);
  };

  it.each(changeCases)('%s: the entries a plain scan makes (a delta over the base when it can be)', async (_what, change, edit, readFirst) => {
    const { base, plainBase } = await synced(edit);
    await change();
    if (readFirst) await firstMissed();
    const expected = await plainScan();
    const scan = await scanTree({ root, matcher, cache: await StatCache.load(cacheFile), expect: base });
    sameAsPlainWithDelta(scan.snapshot, base, expected, plainBase, true);
  });

  it.each(changes.filter(([what]) => !what.includes('.npmrc')))('%s: carried as a delta over the base, whose entries stay unmade', async (_what, change, edit) => {
    const { base } = await synced(edit);
    await change();
    const scan = await scanTree({ root, matcher, cache: await StatCache.load(cacheFile), expect: base });
    expect(scan.snapshot).toBeInstanceOf(LazySnapshot);
    expect(deltaOver(scan.snapshot, base)?.size).toBeGreaterThan(0);
    expect((base as LazySnapshot).lazy).toBe(true);
  });

  it('a cold cache (every file read) finding an unchanged tree: a LazySnapshot known equal to the base, with the read entries', async () => {
    const { base, plain } = await synced();
    const scan = await scanTree({ root, matcher, cache: StatCache.inMemory(), expect: base });
    expect(scan.stats).toMatchObject({ files: 6, hashed: 6, cached: 0 });
    expect(scan.snapshot).toBeInstanceOf(LazySnapshot);
    expect(knownEqual(scan.snapshot, base)).toBe(true);
    expect((base as LazySnapshot).lazy).toBe(true);
    expect(new Map(scan.snapshot)).toEqual(plain);
    expect([...scan.snapshot.keys()]).toEqual([...plain.keys()]);
  });

  // (An .npmrc holding a token is left out of the snapshot, which then is the base: not a difference.)
  it.each(changes.filter(([what]) => !what.includes('.npmrc')))('%s, cache cold: not known equal, entries as a plain scan makes them', async (_what, change, edit) => {
    const { base, plainBase } = await synced(edit);
    await change();
    const expected = await plainScan();
    const scan = await scanTree({ root, matcher, cache: StatCache.inMemory(), expect: base });
    sameAsPlainWithDelta(scan.snapshot, base, expected, plainBase, false);
  });

  it('a file read first, cache hits after it, an unchanged tree: known equal to the base, the cache keeps every file', async () => {
    const { base, plain } = await synced();
    await firstMissed();
    const cache = await StatCache.load(cacheFile);
    const scan = await scanTree({ root, matcher, cache, expect: base });
    expect(scan.stats).toMatchObject({ files: 6, hashed: 1, cached: 5 });
    expect(knownEqual(scan.snapshot, base)).toBe(true);
    expect(new Map(scan.snapshot)).toEqual(plain);
    expect([...scan.snapshot.keys()]).toEqual([...plain.keys()]);
    await cache.save();
    const again = await scanTree({ root, matcher, cache: await StatCache.load(cacheFile), expect: base });
    expect(again.stats).toMatchObject({ files: 6, hashed: 0, cached: 6 });
  });

  it('a cold scan with no cache file: every file recorded, in walk order, so the next scan reads none', async () => {
    const { base } = await synced();
    await rm(cacheFile);
    const cache = await StatCache.load(cacheFile);
    const cold = await scanTree({ root, matcher, cache, expect: base });
    expect(cold.stats).toMatchObject({ files: 6, hashed: 6, cached: 0 });
    await cache.save();
    const warm = await scanTree({ root, matcher, cache: await StatCache.load(cacheFile), expect: base });
    expect(warm.stats).toMatchObject({ files: 6, hashed: 0, cached: 6 });
    expect((warm.snapshot as LazySnapshot).lazy).toBe(true);
  });

  it('a base that was read already (entries made) is compared the plain way', async () => {
    const { base, plain } = await synced();
    void [...base.keys()];
    const scan = await scanTree({ root, matcher, cache: await StatCache.load(cacheFile), expect: base });
    expect(scan.snapshot).not.toBeInstanceOf(LazySnapshot);
    expect(scan.snapshot).toEqual(plain);
  });
});
