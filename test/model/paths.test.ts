import { describe, expect, it } from 'vitest';
import { comparePaths, sortedUnion } from '../../src/model/paths.js';

describe('sortedUnion', () => {
  const cases: Array<{ name: string; lists: string[][]; want: string[] }> = [
    { name: 'no lists', lists: [], want: [] },
    { name: 'empty lists', lists: [[], []], want: [] },
    { name: 'one sorted list as it is', lists: [['a', 'b/c', 'b/d']], want: ['a', 'b/c', 'b/d'] },
    { name: 'one unsorted list is sorted', lists: [['b', 'a', 'c']], want: ['a', 'b', 'c'] },
    { name: 'sorted lists merged, shared paths once', lists: [['a', 'c', 'e'], ['b', 'c', 'f'], ['a', 'f', 'g']], want: ['a', 'b', 'c', 'e', 'f', 'g'] },
    { name: 'an unsorted list among sorted ones', lists: [['a', 'd'], ['d', 'b', 'a'], []], want: ['a', 'b', 'd'] },
    // Code units: 'B' < 'a' and '-' (0x2d) < '/' (0x2f); an astral character (surrogates
    // from 0xD800) before U+FFFD, where code-point order would put it after.
    { name: 'code-unit order, not locale order', lists: [['a/b', 'a-b', 'B'], ['\uFFFD', '\u{1F600}']], want: ['B', 'a-b', 'a/b', '\u{1F600}', '\uFFFD'] },
  ];
  for (const c of cases) {
    it(c.name, () => {
      expect(sortedUnion(c.lists)).toEqual(c.want);
    });
  }

  it('equals the sorted set of every key, for random trees in and out of order', () => {
    let seed = 7;
    const rand = (n: number): number => ((seed = (seed * 1103515245 + 12345) % 2147483648) % n);
    for (let round = 0; round < 50; round++) {
      const lists = Array.from({ length: 1 + rand(3) }, () => {
        const keys = new Set(Array.from({ length: rand(40) }, () => `d${rand(5)}/f${rand(30)}`));
        const list = [...keys];
        return rand(2) === 0 ? list.sort(comparePaths) : list;
      });
      const want = [...new Set(lists.flat())].sort(comparePaths);
      expect(sortedUnion(lists.map((l) => new Map(l.map((p) => [p, 1])).keys()))).toEqual(want);
    }
  });
});
