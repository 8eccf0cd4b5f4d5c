import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { createIgnoreMatcher, composeIgnorePatterns } from '../../src/local/ignore.js';
import { isLifted, namedPaths, scopedMatcher } from '../../src/sync/scope.js';

const root = path.resolve('/proj');
const matcher = createIgnoreMatcher(composeIgnorePatterns(['data/', '*.log']));

describe('named paths', () => {
  it('are taken from the current directory inside the project, from the root outside it', () => {
    expect(namedPaths(root, path.join(root, 'src'), ['a.ts', './b/'])).toEqual(['src/a.ts', 'src/b']);
    expect(namedPaths(root, '/elsewhere', ['src/a.ts'])).toEqual(['src/a.ts']);
  });
  it('drop a path inside another named one, and refuse one outside the project', () => {
    expect(namedPaths(root, root, ['src/a.ts', 'src', 'src'])).toEqual(['src']);
    expect(() => namedPaths(root, root, ['../other'])).toThrow(/outside the project/);
  });
  it('lift the ignore rules only where the named path itself is ignored', () => {
    expect(isLifted(matcher, 'data/db.json')).toBe(true);
    expect(isLifted(matcher, 'data')).toBe(true);
    expect(isLifted(matcher, 'src')).toBe(false);
    const m = scopedMatcher(matcher, ['data/db.json', 'src']);
    expect(m.ignores('data', true)).toBe(false);
    expect(m.ignores('data/db.json', false)).toBe(false);
    expect(m.ignores('data/other.json', false)).toBe(true);
    expect(m.ignores('src/x.log', false)).toBe(true);
    expect(m.ignores('.hostsync', true)).toBe(true);
  });
});
