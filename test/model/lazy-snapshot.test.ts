import { describe, expect, it } from 'vitest';
import { knownEqual, LazySnapshot } from '../../src/model/lazy-snapshot.js';
import { snapshotsEqual } from '../../src/model/snapshot.js';
import type { Entry } from '../../src/model/types.js';

const e = (path: string, hash = '00000000000000aa'): Entry => ({ path, hash, size: 1, executable: false });

function lazy(entries: Entry[]): { snap: LazySnapshot; made: () => number } {
  let made = 0;
  const snap = new LazySnapshot(entries.length, () => {
    made++;
    return entries.map((x) => ({ ...x }));
  });
  return { snap, made: () => made };
}

describe('LazySnapshot', () => {
  it('answers size without making entries; any read makes them once, in the source order', () => {
    const { snap, made } = lazy([e('a'), e('b/c'), e('b0')]);
    expect(snap.size).toBe(3);
    expect(made()).toBe(0);
    expect(snap.has('b/c')).toBe(true);
    expect([...snap.keys()]).toEqual(['a', 'b/c', 'b0']);
    expect(snap.get('a')).toEqual(e('a'));
    expect(made()).toBe(1);
    expect(snap).toBeInstanceOf(Map);
  });

  it('offers its cursor only while its entries are unmade (then nothing holds what the source reads)', () => {
    const cursor = () => ({ next: () => false, done: true, met: 0 });
    const snap = new LazySnapshot(1, () => [e('a')], cursor);
    expect(snap.cursor).toBe(cursor);
    snap.fill();
    expect(snap.cursor).toBeNull();
  });

  it('is a Map for every reader: spread, new Map, forEach, entries, values', () => {
    const entries = [e('a'), e('b')];
    const plain = new Map(entries.map((x) => [x.path, x]));
    for (const read of [(s: Map<string, Entry>) => new Map(s), (s: Map<string, Entry>) => new Map([...s]), (s: Map<string, Entry>) => new Map([...s.entries()])]) {
      expect(read(lazy(entries).snap)).toEqual(plain);
    }
    const seen: string[] = [];
    lazy(entries).snap.forEach((_v, k) => seen.push(k));
    expect(seen).toEqual(['a', 'b']);
    expect([...lazy(entries).snap.values()]).toEqual(entries);
  });

  it('knows what it was told is equal, until either side changes', () => {
    const base = lazy([e('a'), e('b')]).snap;
    const local = lazy([e('a'), e('b')]).snap;
    expect(knownEqual(local, base)).toBe(false);
    local.markEqual(base);
    expect(knownEqual(local, base)).toBe(true);
    expect(knownEqual(base, local)).toBe(true);
    expect(snapshotsEqual(local, base)).toBe(true);
    expect(knownEqual(local, new Map(base))).toBe(false);
    base.set('c', e('c'));
    expect(knownEqual(local, base)).toBe(false);
    expect(snapshotsEqual(local, base)).toBe(false);

    const other = lazy([e('a')]).snap;
    const told = lazy([e('a')]).snap;
    told.markEqual(other);
    told.delete('a');
    expect(knownEqual(told, other)).toBe(false);
  });

  it('a copy is known equal to its original, makes its own entries, and changing it leaves the original alone', () => {
    const { snap, made } = lazy([e('a'), e('b')]);
    const copy = snap.copy();
    expect([copy.lazy, copy.size, knownEqual(copy, snap)]).toEqual([true, 2, true]);
    copy.delete('a');
    expect([...snap.keys()]).toEqual(['a', 'b']);
    expect(made()).toBe(2);
    const filled = snap.copy();
    expect(filled.lazy).toBe(false);
    expect(knownEqual(filled, snap)).toBe(true);
    expect(new Map(filled)).toEqual(new Map(snap));
  });

  it('entriesNow() reads the entries as they are now, without making them part of the snapshot', () => {
    const { snap } = lazy([e('a'), e('b')]);
    const unmade = snap.entriesNow();
    expect([...unmade()].map((x) => x.path)).toEqual(['a', 'b']);
    expect(snap.lazy).toBe(true);
    snap.fill();
    const made = snap.entriesNow();
    snap.delete('a');
    expect([...made()].map((x) => x.path)).toEqual(['a', 'b']);
    expect([...unmade()].map((x) => x.path)).toEqual(['a', 'b']);
  });
});
