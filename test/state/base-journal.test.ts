import { existsSync } from 'node:fs';
import { readFile, truncate, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { replayJournal } from '../../src/state/base-journal.js';
import { StateStore } from '../../src/state/store.js';
import { TreeSnapshot } from '../../src/model/tree-snapshot.js';
import { file, snap } from '../sync/fixtures.js';
import { tempDir } from '../helpers/tree.js';

let work: { dir: string; cleanup: () => Promise<void> };
let dir: string;
beforeEach(async () => {
  work = await tempDir('hostsync-journal-');
  dir = path.join(work.dir, '.hostsync', 'd1-abc');
});
afterEach(async () => {
  await work.cleanup();
});

const journalFile = () => path.join(dir, 'state.journal');

/** A store with a saved base of a, b and c, and the base as this process holds it. */
async function saved(): Promise<{ store: StateStore; base: TreeSnapshot }> {
  const store = new StateStore(dir, 'd1');
  await store.save({ base: snap(file('a', 'a'), file('b', 'b'), file('c', 'c')), remote: null });
  const base = new TreeSnapshot((await store.load()).base!);
  return { store, base };
}

/** What a fresh process loads (as a plain Map: the store hands out lazy snapshots). */
const reloaded = async () => {
  const base = (await new StateStore(dir, 'd1').load()).base;
  return base && new Map(base);
};

describe('base journal', () => {
  it('appends the changed entries only, and a fresh load replays them in order over state.bin', async () => {
    const { store, base } = await saved();
    const binBefore = await readFile(store.file);
    base.set('a', file('a', 'a2'));
    base.delete('b');
    await store.saveBaseEntries(base, ['a', 'b']);
    base.set('a', file('a', 'a3'));
    base.set('d', file('d', 'd'));
    await store.saveBaseEntries(base, ['a', 'd']);
    // state.bin itself was not rewritten.
    expect(await readFile(store.file)).toEqual(binBefore);
    expect(await reloaded()).toEqual(snap(file('a', 'a3'), file('c', 'c'), file('d', 'd')));
    // The same process sees its own base without re-reading anything.
    expect((await store.load()).base).toBe(base);
  });

  it('ignores a torn last record (a kill mid-append), and the next append cuts it off', async () => {
    const { store, base } = await saved();
    base.set('a', file('a', 'a2'));
    const first = await store.saveBaseEntries(base, ['a']);
    base.set('b', file('b', 'b2'));
    const second = await store.saveBaseEntries(base, ['b']);
    for (const cut of [second - 1, Math.floor((first + second) / 2), first + 3]) {
      await truncate(journalFile(), cut);
      expect(await reloaded()).toEqual(snap(file('a', 'a2'), file('b', 'b'), file('c', 'c')));
    }
    // A fresh process appends after the last record that checked.
    const again = new StateStore(dir, 'd1');
    const mine = new TreeSnapshot((await again.load()).base!);
    mine.set('c', file('c', 'c2'));
    await again.saveBaseEntries(mine, ['c']);
    expect(await reloaded()).toEqual(snap(file('a', 'a2'), file('b', 'b'), file('c', 'c2')));
    expect(replayJournal(await readFile(journalFile()), 'd1', await generation())?.records).toBe(2);
  });

  it('stops at a record whose checksum does not match, and at one with no newline', async () => {
    const { store, base } = await saved();
    base.set('a', file('a', 'a2'));
    await store.saveBaseEntries(base, ['a']);
    base.set('b', file('b', 'b2'));
    await store.saveBaseEntries(base, ['b']);
    const good = await readFile(journalFile());
    const flipped = Buffer.from(good);
    flipped[good.length - 5] ^= 0x01;
    await writeFile(journalFile(), flipped);
    expect(await reloaded()).toEqual(snap(file('a', 'a2'), file('b', 'b'), file('c', 'c')));
    await writeFile(journalFile(), good.subarray(0, good.length - 1));
    expect(await reloaded()).toEqual(snap(file('a', 'a2'), file('b', 'b'), file('c', 'c')));
    // A garbage header: nothing of the journal applies.
    await writeFile(journalFile(), Buffer.concat([Buffer.from('x'), good]));
    expect(await reloaded()).toEqual(snap(file('a', 'a'), file('b', 'b'), file('c', 'c')));
  });

  it('compaction: state.bin takes the journal in and the journal goes; a journal left by a kill in between is stale', async () => {
    const { store, base } = await saved();
    base.set('a', file('a', 'a2'));
    await store.saveBaseEntries(base, ['a']);
    const leftover = await readFile(journalFile());
    await store.save({ base, remote: null });
    expect(existsSync(journalFile())).toBe(false);
    expect(await reloaded()).toEqual(snap(file('a', 'a2'), file('b', 'b'), file('c', 'c')));
    // Killed after state.bin was written, before the journal was removed: the old journal
    // (another generation) must not be replayed over the newer state.bin.
    base.set('a', file('a', 'a3'));
    await store.save({ base, remote: null });
    await writeFile(journalFile(), leftover);
    expect(await reloaded()).toEqual(snap(file('a', 'a3'), file('b', 'b'), file('c', 'c')));
    // The next append starts a journal of the current generation.
    const again = new StateStore(dir, 'd1');
    const mine = new TreeSnapshot((await again.load()).base!);
    mine.delete('c');
    await again.saveBaseEntries(mine, ['c']);
    expect(await reloaded()).toEqual(snap(file('a', 'a3'), file('b', 'b')));
  });

  it('is not applied to another deployment', async () => {
    const { store, base } = await saved();
    base.set('a', file('a', 'a2'));
    await store.saveBaseEntries(base, ['a']);
    expect(replayJournal(await readFile(journalFile()), 'd2', await generation())).toBeNull();
  });
});

describe('TreeSnapshot', () => {
  it('counts the entries beneath each folder through set, delete and clear', () => {
    const s = new TreeSnapshot(snap(file('a/b/c', '1'), file('a/d', '2'), file('e', '3')));
    expect([s.below('a'), s.below('a/b'), s.below('e'), s.below('')]).toEqual([2, 1, 0, 3]);
    s.set('a/b/c', file('a/b/c', 'again'));
    s.delete('a/d');
    s.delete('nothing');
    expect([s.below('a'), s.below('a/b')]).toEqual([1, 1]);
    s.delete('a/b/c');
    expect([s.below('a'), s.below('a/b')]).toEqual([0, 0]);
    s.clear();
    expect(s.below('')).toBe(0);
  });
});

/** The generation state.bin names (read through a fresh load of its header). */
async function generation(): Promise<string> {
  const raw = await readFile(path.join(dir, 'state.bin'));
  const m = /"generation":"([0-9a-f]+)"/.exec(raw.toString('latin1'));
  return m![1]!;
}
