/** Issue 12, item 16: which .gitignore rules apply, and build output the app runs is never among the hidden. */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ignoredBy, loadGitignore, runEntries } from '../../src/local/gitignore.js';
import { ignorePackageOver } from '../../src/local/ignore.js';
import { comparePaths } from '../../src/model/paths.js';
import { tempDir, writeTree } from '../helpers/tree.js';

let root: string;
let cleanup: () => Promise<void>;
beforeEach(async () => {
  ({ dir: root, cleanup } = await tempDir('hostsync-gitignore-'));
});
afterEach(async () => {
  await cleanup();
});

describe('runEntries', () => {
  it.each([
    [{ main: 'dist/index.js' }, ['dist/index.js']],
    [{ scripts: { start: 'node --enable-source-maps build/server.mjs --port 3000' } }, ['build/server.mjs']],
    [{ main: 'index.js', scripts: { start: 'node index.js' } }, []],
    [{ scripts: { start: 'node ../outside/x.js https://example.com/a' } }, []],
  ])('%j -> %j', (pkg, want) => {
    expect(runEntries(JSON.stringify(pkg))).toEqual(want);
  });
  it('a broken package.json names nothing', () => {
    expect(runEntries('{')).toEqual([]);
  });
});

describe('loadGitignore', () => {
  it('drops the rules that would hide what the app runs, keeps the rest', async () => {
    await writeTree(root, {
      '.gitignore': '# build\ndist\n/build/\n*.log\nconfig.local.json\n!keep.log\n',
      'package.json': JSON.stringify({ main: 'dist/server.js', scripts: { start: 'node build/run.js' } }),
    });
    const rules = await loadGitignore(root);
    expect(rules).toEqual(['*.log', 'config.local.json', '!keep.log']);
    expect(ignoredBy(rules!, ['dist/server.js', 'build/run.js', 'a.log', 'keep.log', 'config.local.json', 'src/x.js'])).toEqual(['a.log', 'config.local.json']);
  });
  it('no .gitignore: null', async () => {
    expect(await loadGitignore(root)).toBeNull();
  });
});

describe('ignoredBy', () => {
  // What it answers is the package's own verdict, path by path, for a typical .gitignore
  // (folders, globs, anchored paths, negations, a file under an ignored folder) over paths in
  // walk order and out of it: it takes the name shortcut, never another answer.
  const RULES = [
    [['node_modules', 'dist/', '/build', '*.log', '!keep.log', '.env*', 'coverage/', 'src/gen/', 'secret.json', 'tmp-*', '*~']],
    [['*', '!*.js', '!*/']],
    [['[Bb]in/', 'obj/**', 'a?c.txt']],
  ];
  const names = ['index.js', 'a.log', 'keep.log', '.env', '.env.local', 'secret.json', 'tmp-1', 'x~', 'abc.txt', 'README.md', 'Bin', 'bin'];
  const folders = ['', 'src/', 'src/gen/', 'dist/', 'build/', 'lib/build/', 'node_modules/x/', 'coverage/', 'bin/', 'Bin/', 'obj/a/', 'deep/er/dist/'];
  const paths = folders.flatMap((f) => names.map((n) => `${f}${n}`));
  it.each(RULES)('%j: the package\'s verdict, path by path', (rules) => {
    const ig = ignorePackageOver(rules);
    const want = paths.filter((p) => ig.ignores(p)).sort();
    expect(want.length).toBeGreaterThan(5);
    expect(ignoredBy(rules, [...paths].sort(comparePaths))).toEqual(want);
    expect(ignoredBy(rules, [...paths].reverse())).toEqual(want);
  });
});
