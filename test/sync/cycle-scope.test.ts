/** scope.ts: which paths a scoped cycle reads, and the allow-list that makes files.index read only those. */
import ignore from 'ignore';
import { describe, expect, it } from 'vitest';
import { allowListPatterns, inScope, restrict, scopeOf } from '../../src/sync/watch-cycle/cycle-scope.js';

describe('scopeOf', () => {
  it.each([
    { paths: ['src/a/b.js'], roots: ['src/a/b.js'], dir: 'src/a' },
    { paths: ['src/a/b.js', 'src/a/c.js'], roots: ['src/a/b.js', 'src/a/c.js'], dir: 'src/a' },
    { paths: ['src/a/b.js', 'src/x/y/z.js'], roots: ['src/a/b.js', 'src/x/y/z.js'], dir: 'src' },
    { paths: ['src/a', 'src/a/b.js', 'src/a-b/c.js'], roots: ['src/a', 'src/a-b/c.js'], dir: 'src' },
    { paths: ['index.html', 'src/a.js'], roots: ['index.html', 'src/a.js'], dir: '' },
    { paths: ['/src/a/'], roots: ['src/a'], dir: 'src' },
  ])('$paths -> roots $roots under "$dir"', ({ paths, roots, dir }) => {
    expect(scopeOf(paths)).toEqual({ roots, dir });
  });

  it('the root itself is the whole tree: no scope', () => {
    expect(scopeOf(['src/a.js', ''])).toBeNull();
  });
});

describe('allowListPatterns', () => {
  const visible = (paths: string[], probe: string[]): string[] => {
    const ig = ignore().add(allowListPatterns(scopeOf(paths)!));
    return probe.filter((p) => !ig.ignores(p));
  };

  it('leaves exactly the roots, their contents and their parent folders visible', () => {
    const probe = ['src/', 'src/a/', 'src/a/b.js', 'src/a/c.js', 'src/d/', 'src/d/e/f.js', 'src/g.js', 'lib/', 'x.js', 'src/a-b/'];
    expect(visible(['src/a/b.js', 'src/d'], probe)).toEqual(['src/', 'src/a/', 'src/a/b.js', 'src/d/', 'src/d/e/f.js']);
  });

  it('names with glob characters match literally', () => {
    const probe = ['a/', 'a/[x]*.js', 'a/xy.js', 'a/?.js', 'a/b.js'];
    expect(visible(['a/[x]*.js', 'a/?.js'], probe)).toEqual(['a/', 'a/[x]*.js', 'a/?.js']);
  });
});

describe('inScope and restrict', () => {
  const scope = scopeOf(['src/a', 'lib/x.js'])!;
  it('a root, or below one; not a sibling sharing the prefix', () => {
    expect(['src/a', 'src/a/b.js', 'lib/x.js', 'src/ab.js', 'lib/x.js.map'].filter((p) => inScope(scope, p))).toEqual(['src/a', 'src/a/b.js', 'lib/x.js']);
  });
  it('restrict keeps the in-scope entries, for a big snapshot as for a small one', () => {
    const entry = (path: string) => ({ path, hash: '0', size: 1, executable: false });
    const paths = ['src/a/b.js', 'src/ab.js', 'lib/x.js', ...Array.from({ length: 40 }, (_, i) => `other/${i}.js`)];
    const snap = new Map(paths.map((p) => [p, entry(p)]));
    expect([...restrict(snap, scope).keys()].sort()).toEqual(['lib/x.js', 'src/a/b.js']);
    expect([...restrict(new Map([...snap].slice(0, 3)), scope).keys()].sort()).toEqual(['lib/x.js', 'src/a/b.js']);
  });
});
