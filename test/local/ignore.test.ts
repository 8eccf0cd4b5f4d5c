import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  DEFAULT_IGNORE_PATTERNS,
  ENFORCED_IGNORE_PATTERNS,
  createIgnoreMatcher,
  loadIgnoreMatcher,
  parseIgnoreFile,
} from '../../src/local/ignore.js';
import { tempDir } from '../helpers/tree.js';

describe('default ignore patterns', () => {
  const m = createIgnoreMatcher([...DEFAULT_IGNORE_PATTERNS, ...ENFORCED_IGNORE_PATTERNS]);

  it.each([
    ['.git', true],
    ['node_modules', true],
    ['packages/app/node_modules', true],
    ['.hostsync', true],
  ])('directory %s ignored=%s', (rel, want) => {
    expect(m.ignores(rel, true)).toBe(want);
  });

  it.each([
    '.env',
    '.env.local',
    '.env.production',
    'config/.env',
    'server.pem',
    'tls/server.key',
    'id_rsa',
    'id_rsa.pub',
    'home/.ssh/id_ed25519',
    'id_ecdsa',
    'cert.p12',
    'cert.pfx',
    '.ENV', // case-insensitive on purpose: secrets must not slip through by case
    'node_modules/pkg/index.js', // inside an ignored directory
    '.git/HEAD',
  ])('file %s is ignored', (rel) => {
    expect(m.ignores(rel, false)).toBe(true);
  });

  it.each(['index.js', 'src/app.ts', 'environment.ts', 'keys/readme.md', 'public/keyboard.png', 'my.env.js'])(
    'file %s is kept',
    (rel) => {
      expect(m.ignores(rel, false)).toBe(false);
    },
  );
});

describe('createIgnoreMatcher', () => {
  it('tells directories by isDir: a directory pattern does not catch a file of that name', () => {
    const m = createIgnoreMatcher(['build/']);
    expect(m.ignores('build', true)).toBe(true);
    expect(m.ignores('build', false)).toBe(false);
    expect(m.ignores('build/out.js', false)).toBe(true);
  });

  it('lets a later negation re-include, except below an ignored directory (gitignore rule)', () => {
    const m = createIgnoreMatcher(['.env*', '!.env.example', 'logs/', '!logs/keep.txt']);
    expect(m.ignores('.env', false)).toBe(true);
    expect(m.ignores('.env.example', false)).toBe(false);
    expect(m.ignores('logs/keep.txt', false)).toBe(true);
  });

  it('never ignores the root and does not throw on odd but legal names', () => {
    const m = createIgnoreMatcher(['*.log']);
    expect(m.ignores('', true)).toBe(false);
    expect(m.ignores('...', false)).toBe(false);
    expect(m.ignores('...', true)).toBe(false);
    expect(m.ignores('..x.log', false)).toBe(true);
  });

  it('keeps the pattern list verbatim and in order', () => {
    const patterns = ['a/', '!b', '*.tmp'];
    expect(createIgnoreMatcher(patterns).patterns).toEqual(patterns);
  });

  it('bounds its answer cache and keeps answering correctly across rebuilds', () => {
    const m = createIgnoreMatcher(['*.log', 'tmp/', '!keep.log'], { cacheMaxPaths: 50 });
    for (let i = 0; i < 1_000; i++) {
      expect(m.ignores(`d${i}/f${i}.log`, false)).toBe(true);
      expect(m.ignores(`d${i}/f${i}.txt`, false)).toBe(false);
      expect(m.ignores(`d${i}/keep.log`, false)).toBe(false);
      expect(m.ignores(`d${i}/tmp`, true)).toBe(true);
    }
    // The `ignore` package memoises each path and its parents; after 4000 distinct
    // queries an unbounded cache would hold thousands of entries.
    const inner = (m as unknown as { ig: { _ignoreCache: Record<string, unknown> } }).ig;
    expect(Object.keys(inner._ignoreCache).length).toBeLessThanOrEqual(50 * 2);
  });
});

describe('parseIgnoreFile', () => {
  it('drops blank lines and comments, strips CR, keeps escaped hashes and negations', () => {
    expect(parseIgnoreFile('# comment\r\n\r\ndist/\r\n!.env.example\r\n\\#literal\n   \n*.log')).toEqual([
      'dist/',
      '!.env.example',
      '\\#literal',
      '*.log',
    ]);
  });
});

describe('loadIgnoreMatcher', () => {
  let dir: string;
  let cleanup: () => Promise<void>;
  beforeEach(async () => {
    ({ dir, cleanup } = await tempDir('hostsync-ignore-'));
  });
  afterEach(async () => {
    await cleanup();
  });

  it('without .syncignore: defaults, config, then the enforced patterns', async () => {
    const m = await loadIgnoreMatcher(dir, ['*.bak']);
    expect(m.patterns).toEqual([...DEFAULT_IGNORE_PATTERNS, '*.bak', ...ENFORCED_IGNORE_PATTERNS]);
    expect(m.ignores('x.bak', false)).toBe(true);
  });

  it('orders defaults, .syncignore, config: .syncignore negation re-includes a default, config overrides .syncignore', async () => {
    await writeFile(path.join(dir, '.syncignore'), 'dist/\n!.env.example\n*.tmp\n');
    const m = await loadIgnoreMatcher(dir, ['!keep.tmp']);
    expect(m.patterns).toEqual([...DEFAULT_IGNORE_PATTERNS, 'dist/', '!.env.example', '*.tmp', '!keep.tmp', ...ENFORCED_IGNORE_PATTERNS]);
    expect(m.ignores('.env', false)).toBe(true);
    expect(m.ignores('.env.example', false)).toBe(false);
    expect(m.ignores('dist', true)).toBe(true);
    expect(m.ignores('a.tmp', false)).toBe(true);
    expect(m.ignores('keep.tmp', false)).toBe(false);
  });

  it('cannot be talked into syncing .hostsync/', async () => {
    await writeFile(path.join(dir, '.syncignore'), '!.hostsync/\n!.hostsync/**\n');
    const m = await loadIgnoreMatcher(dir, ['!.hostsync/']);
    expect(m.ignores('.hostsync', true)).toBe(true);
    expect(m.ignores('.hostsync/statcache.bin', false)).toBe(true);
  });
});
