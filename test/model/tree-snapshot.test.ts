import { describe, expect, it } from 'vitest';
import { TreeSnapshot } from '../../src/model/tree-snapshot.js';
import type { Entry } from '../../src/model/types.js';

const entry = (path: string, hash = 'h'): Entry => ({ path, hash, size: 1, executable: false });

describe('TreeSnapshot', () => {
  it('counts what lies under a folder, and changes its version with every set, delete and clear (not with a read or a delete of nothing)', () => {
    const s = new TreeSnapshot([['a/b/c.txt', entry('a/b/c.txt')], ['a/d.txt', entry('a/d.txt')]]);
    expect([s.below('a'), s.below('a/b'), s.below('')]).toEqual([2, 1, 2]);
    const seen = [s.version];
    s.set('a/d.txt', entry('a/d.txt', 'other'));
    seen.push(s.version);
    s.get('a/d.txt');
    s.has('a/b/c.txt');
    expect(s.delete('nothing/here')).toBe(false);
    expect(s.version).toBe(seen.at(-1));
    s.delete('a/b/c.txt');
    seen.push(s.version);
    expect(s.below('a/b')).toBe(0);
    s.clear();
    seen.push(s.version);
    expect(new Set(seen).size).toBe(seen.length);
  });
});
