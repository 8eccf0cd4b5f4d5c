import { rm, utimes } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createIgnoreMatcher, DEFAULT_IGNORE_PATTERNS } from '../../src/local/ignore.js';
import { scanTree } from '../../src/local/scan.js';
import { StatCache } from '../../src/local/statcache.js';
import { visitTree, visitTreeInSlices, type TreeVisitor } from '../../src/local/walk.js';
import { LazySnapshot } from '../../src/model/lazy-snapshot.js';
import { toBaseEntry } from '../../src/model/snapshot.js';
import type { Snapshot } from '../../src/model/types.js';
import { StateStore } from '../../src/state/store.js';
import { tempDir, writeTree } from '../helpers/tree.js';

const matcher = createIgnoreMatcher(DEFAULT_IGNORE_PATTERNS);
const HOUR_AGO = new Date(Date.now() - 3_600_000);

/** 20 folders of 30 files (and a nested one each): ~700 steps of the walk, past WALK_STEPS_PER_CLOCK_LOOK (256) twice. */
const TREE: Record<string, string> = {};
for (let d = 0; d < 20; d++) {
  for (let f = 0; f < 30; f++) TREE[`d${d}/f${f}.txt`] = `${d}-${f}\n`;
  TREE[`d${d}/in/x.txt`] = `nested ${d}\n`;
}

let root: string;
let cleanup: () => Promise<void>;
beforeEach(async () => {
  ({ dir: root, cleanup } = await tempDir('hostsync-walk-slices-'));
  await writeTree(root, TREE);
  for (const rel of Object.keys(TREE)) await utimes(path.join(root, rel), HOUR_AGO, HOUR_AGO);
});
afterEach(async () => {
  await cleanup();
});

/** A visitor that descends everywhere and records what it is shown, and whether `flag()` was up at each folder. */
function recorder(flag: () => boolean, stopAt?: string): { visitor: TreeVisitor; seen: string[]; flags: boolean[] } {
  const seen: string[] = [];
  const flags: boolean[] = [];
  return {
    seen,
    flags,
    visitor: {
      directory: (rel) => {
        seen.push(`dir ${rel}`);
        flags.push(flag());
      },
      entry: (d, rel) => {
        seen.push(rel);
        if (rel === stopAt) return 'stop';
        return d.isDirectory() ? 'descend' : undefined;
      },
    },
  };
}

describe('the walk in slices (visitTreeInSlices)', () => {
  it('shows the visitor the same entries in the same order as the walk in one piece', async () => {
    const whole = recorder(() => false);
    visitTree(root, whole.visitor);
    const sliced = recorder(() => false);
    const { dirs } = await visitTreeInSlices(root, sliced.visitor, '', 0);
    expect(sliced.seen).toEqual(whole.seen);
    expect(whole.seen.filter((s) => !s.startsWith('dir ')).length).toBe(Object.keys(TREE).length + 20 * 2);
    expect(dirs).toBe(41);
  });

  it('lets the event loop run between slices', async () => {
    let fired = false;
    setImmediate(() => (fired = true));
    const sliced = recorder(() => fired);
    await visitTreeInSlices(root, sliced.visitor, '', 0);
    // The callback ran during the walk: folders read before it and after it.
    expect(sliced.flags[0]).toBe(false);
    expect(sliced.flags.at(-1)).toBe(true);
  });

  it("ends the whole walk at a visitor's 'stop', in a slice after the first", async () => {
    const whole = recorder(() => false, 'd17/f3.txt');
    const wholeDirs = visitTree(root, whole.visitor).dirs;
    let fired = false;
    setImmediate(() => (fired = true));
    const sliced = recorder(() => fired, 'd17/f3.txt');
    const { dirs } = await visitTreeInSlices(root, sliced.visitor, '', 0);
    expect(sliced.flags.at(-1)).toBe(true);
    expect(sliced.seen).toEqual(whole.seen);
    expect(sliced.seen.at(-1)).toBe('d17/f3.txt');
    expect(dirs).toBe(wholeDirs);
  });
});

describe('scanTree with walkSliceMs', () => {
  it('finds what the scan in one piece finds against the base, a delta included, with other callbacks run during its walk', async () => {
    const cacheFile = path.join(root, '.hostsync', 'statcache.bin');
    const cache = await StatCache.load(cacheFile);
    const cold = await scanTree({ root, matcher, cache });
    await cache.save();
    const base: Snapshot = new Map([...cold.snapshot].map(([p, e]) => [p, toBaseEntry(e)]));
    const stateDir = path.join(root, '.hostsync', 'd1');
    await new StateStore(stateDir, 'd1').save({ base, remote: { digest: 'd', requestKey: 'k', snapshot: base, symlinks: [], leftovers: [] } });
    // One file edited, one gone, one added: a delta over the base.
    await writeTree(root, { 'd3/f4.txt': 'edited\n', 'd9/new.txt': 'new\n' });
    await rm(path.join(root, 'd12/f0.txt'));

    const scanWith = async (walkSliceMs: number | undefined, onDirectory?: () => void) => {
      const expect = (await new StateStore(stateDir, 'd1').load()).base!;
      return scanTree({ root, matcher, cache: await StatCache.load(cacheFile), expect, ...(walkSliceMs === undefined ? {} : { walkSliceMs }), ...(onDirectory ? { onDirectory } : {}) });
    };
    const whole = await scanWith(undefined);
    // Scheduled as the walk reads its first folder: the scan's own awaits before it do not count.
    let fired = false;
    const flags: boolean[] = [];
    const sliced = await scanWith(0, () => {
      if (flags.length === 0) setImmediate(() => (fired = true));
      flags.push(fired);
    });

    // Kept as a delta over the base (the edited and the new file read, nothing else), as the scan in one piece keeps it.
    expect(sliced.snapshot).toBeInstanceOf(LazySnapshot);
    expect(whole.snapshot).toBeInstanceOf(LazySnapshot);
    expect(sliced.stats.hashed).toBe(2);
    expect([...sliced.snapshot]).toEqual([...whole.snapshot]);
    expect(sliced.snapshot.get('d3/f4.txt')?.size).toBe('edited\n'.length);
    expect(sliced.snapshot.has('d12/f0.txt')).toBe(false);
    expect(sliced.snapshot.has('d9/new.txt')).toBe(true);
    expect(sliced.stats).toMatchObject({ files: whole.stats.files, hashed: whole.stats.hashed, cached: whole.stats.cached, dirs: whole.stats.dirs });
    expect(flags[0]).toBe(false);
    expect(flags.at(-1)).toBe(true);
  });
});
