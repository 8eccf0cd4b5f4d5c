import { describe, expect, it } from 'vitest';
import { ancestors, baseName, comparePaths, parentDir } from '../../src/model/paths.js';
import { entriesEqual, resolveRemote, snapshotsEqual, toBaseEntry } from '../../src/model/snapshot.js';
import type { Entry } from '../../src/model/types.js';
import { file, snap } from './fixtures.js';

const a = file('p', 'one');
const unknown = (e: Entry): Entry => ({ ...e, hash: null });

describe('entriesEqual', () => {
  it.each<[string, Entry | null | undefined, Entry | null | undefined, boolean]>([
    ['both absent', undefined, null, true],
    ['one absent', a, undefined, false],
    ['same content and mode', a, file('p', 'one', { text: true }), true],
    ['exec bit differs', a, file('p', 'one', { x: true }), false],
    ['content differs', a, file('p', 'two'), false],
    ['same hash, different size (size is checked)', a, { ...a, size: a.size + 1 }, false],
    ['unknown hash on one side', a, unknown(a), false],
    ['unknown hash on both sides', unknown(a), unknown(a), false],
  ])('%s', (_name, x, y, equal) => {
    expect(entriesEqual(x, y)).toBe(equal);
    expect(entriesEqual(y, x)).toBe(equal);
  });
});

describe('resolveRemote', () => {
  it.each<[string, Entry, Entry | undefined, string | null]>([
    ['a hashed remote entry is kept', a, file('p', 'base'), a.hash],
    ['hashless, base of equal size and known hash: takes the base hash', unknown(file('p', 'zzz')), file('p', 'abc'), file('p', 'abc').hash],
    ['hashless, base of another size: stays unknown', unknown(file('p', 'zzzz')), file('p', 'abc'), null],
    ['hashless, base hash unknown: stays unknown', unknown(file('p', 'zzz')), unknown(file('p', 'abc')), null],
    ['hashless, no base: stays unknown', unknown(a), undefined, null],
  ])('%s', (_name, remote, base, hash) => {
    const r = resolveRemote(remote, base);
    expect(r).toEqual({ ...remote, hash });
  });

  it('keeps the remote executable bit (only content is presumed)', () => {
    expect(resolveRemote(unknown(file('p', 'abc', { x: true })), file('p', 'abc')).executable).toBe(true);
  });
});

describe('toBaseEntry', () => {
  it('drops the local-only text flag', () => {
    expect(toBaseEntry(file('p', 'one', { text: true, x: true }))).toEqual({ path: 'p', hash: a.hash, size: 3, executable: true });
  });
});

describe('paths', () => {
  it.each([
    ['a', '', 'a', []],
    ['a/b', 'a', 'b', ['a']],
    ['dir with space/ü/文件.txt', 'dir with space/ü', '文件.txt', ['dir with space/ü', 'dir with space']],
  ])('%s', (path, dir, name, up) => {
    expect([parentDir(path), baseName(path), ancestors(path)]).toEqual([dir, name, up]);
  });

  it('orders by code units, not locale', () => {
    expect(['é', 'b', 'B', 'a/b', 'a', 'a b', '文'].sort(comparePaths)).toEqual(['B', 'a', 'a b', 'a/b', 'b', 'é', '文']);
  });
});

describe('snapshotsEqual', () => {
  it.each([
    { name: 'both null', a: null, b: null, equal: true },
    { name: 'null and empty', a: null, b: snap(), equal: false },
    { name: 'same entries', a: snap(file('a', '1'), file('b', '2')), b: snap(file('b', '2'), file('a', '1')), equal: true },
    { name: 'one more path', a: snap(file('a', '1')), b: snap(file('a', '1'), file('b', '2')), equal: false },
    { name: 'content differs', a: snap(file('a', '1')), b: snap(file('a', '2')), equal: false },
    { name: 'exec bit differs', a: snap(file('a', '1')), b: snap(file('a', '1', { x: true })), equal: false },
  ])('$name', ({ a, b, equal }) => {
    expect(snapshotsEqual(a, b)).toBe(equal);
  });
});
