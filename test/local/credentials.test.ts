/** Issue 12, item 14: credential files stay local; an .npmrc travels only without a token in it. */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { npmrcHoldsCredential } from '../../src/local/credentials.js';
import { createIgnoreMatcher, DEFAULT_IGNORE_PATTERNS } from '../../src/local/ignore.js';
import { StatCache } from '../../src/local/statcache.js';
import { rescanPaths, scanTree } from '../../src/local/scan.js';
import { tempDir, writeTree } from '../helpers/tree.js';

const defaults = createIgnoreMatcher(DEFAULT_IGNORE_PATTERNS);

let root: string;
let cleanup: () => Promise<void>;
beforeEach(async () => {
  ({ dir: root, cleanup } = await tempDir('hostsync-cred-'));
});
afterEach(async () => {
  await cleanup();
});

describe('default ignores for credentials', () => {
  it.each([
    ['.netrc', false],
    ['.ssh/id_rsa.pub', false],
    ['.ssh', true],
    ['deploy/.aws/credentials', false],
    ['.docker/config.json', false],
    ['tools/.docker/config.json', false],
    ['credentials.json', false],
    ['secrets/vault.kdbx', false],
  ])('%s is ignored', (rel, isDir) => {
    expect(defaults.ignores(rel, isDir)).toBe(true);
  });

  it.each(['.docker/Dockerfile', 'src/credentials.ts', 'package.json', '.npmrc'])('%s is not', (rel) => {
    expect(defaults.ignores(rel, false)).toBe(false);
  });
});

describe('.npmrc', () => {
  it.each([
    ['//registry.npmjs.org/:_authToken=npm_abc123', true],
    ['  //npm.pkg.github.com/:_authToken = ghp_x', true],
    ['_auth=dXNlcjpwYXNz', true],
    ['//reg.example/:_password="cGFzcw=="', true],
    ['registry=https://registry.npmjs.org/\nsave-exact=true', false],
    ['//registry.npmjs.org/:_authToken=${NPM_TOKEN}', false],
    ['# _authToken=commented out is still a line npm ignores\nengine-strict=true', false],
    ['_authToken=', false],
  ])('%j holds a credential: %s', (text, yes) => {
    expect(npmrcHoldsCredential(text)).toBe(yes);
  });

  it('with a token it is never scanned for upload, with a warning; without one it is synced', async () => {
    await writeTree(root, { '.npmrc': '//registry.npmjs.org/:_authToken=npm_secret\n', 'app/.npmrc': 'save-exact=true\n', 'a.js': 'a\n' });
    const cache = StatCache.inMemory();
    for (let round = 0; round < 2; round++) {
      // The second round answers from the stat cache: the content is judged all the same.
      const r = await scanTree({ root, matcher: defaults, cache });
      expect([...r.snapshot.keys()].sort()).toEqual(['a.js', 'app/.npmrc']);
      expect(r.skipped).toEqual(['.npmrc']);
      expect(r.warnings.join('\n')).toMatch(/\.npmrc holds a registry token .*not uploaded/);
      expect(r.warnings.join('\n')).not.toContain('npm_secret');
    }
    const again = await rescanPaths({ root, matcher: defaults }, new Map(), ['.npmrc']);
    expect(again.snapshot.has('.npmrc')).toBe(false);
    expect(again.skipped).toEqual(['.npmrc']);
  });
});
