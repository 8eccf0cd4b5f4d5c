import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  DEFAULT_IGNORE_PATTERNS,
  ENFORCED_IGNORE_PATTERNS,
  createIgnoreMatcher,
  credentialTail,
  parseIgnoreFile,
} from '../../src/local/ignore.js';
import { loadIgnoreMatcher } from '../../src/local/ignore-file.js';
import { fileNameCheck } from '../../src/local/ignore-names.js';
import ignore from 'ignore';
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
    // A `!` among the user's rules: the credential rules follow them (credentials-enforced.test.ts).
    expect(m.patterns).toEqual([...DEFAULT_IGNORE_PATTERNS, 'dist/', '!.env.example', '*.tmp', '!keep.tmp', ...credentialTail(['dist/', '!.env.example', '*.tmp', '!keep.tmp']), ...ENFORCED_IGNORE_PATTERNS]);
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

describe("hostsync's own temp files (issue 28, item 11)", () => {
  const temps = ['X.HOSTSYNC-ZZ-ZZ-ZZ.PART', '.a.Hostsync-        .tmp', '.app.js.hostsync-0a1b2c3d.tmp', '.app.js.hostsync-0a1b2c3d.tmp.hostsync-deadbeef.part', 'big.bin.hostsync-12345678.part', 'sub/.f1.txt.hostsync-aaaaaaaa.tmp'];

  it('are ignored whatever .syncignore and config say, and each agrees with the ignore package', async () => {
    const { dir, cleanup } = await tempDir('hostsync-ignore-');
    try {
      await writeFile(path.join(dir, '.syncignore'), '!*.part\n!*.tmp\n!.*\n');
      const m = await loadIgnoreMatcher(dir, ['!*.hostsync-*']);
      const pkg = ignore({ allowRelativePaths: true }).add([...m.patterns]);
      for (const rel of temps) {
        expect(m.ignores(rel, false), rel).toBe(true);
        expect(m.ignoresFileIn!(rel, rel.split('/').at(-1)!), rel).toBe(true);
        expect(pkg.ignores(rel), rel).toBe(true);
      }
      // Look-alikes a user may well have stay synced.
      for (const rel of ['notes.part', 'app.js.tmp', 'a.hostsync-notes.md', 'x.hostsync-123.part']) expect(m.ignores(rel, false), rel).toBe(false);
      expect(fileNameCheck(m.patterns)).not.toBeNull();
      // And with the defaults alone (the name pre-check's fast path).
      const plain = await loadIgnoreMatcher(path.join(dir, 'none'));
      for (const rel of temps) expect(plain.ignoresFileIn!(rel, rel.split('/').at(-1)!), rel).toBe(true);
      expect(plain.ignoresFileIn!('x.hostsync-123.part', 'x.hostsync-123.part')).toBe(false);
    } finally {
      await cleanup();
    }
  });
});

describe('file names no pattern can match (ignore-names.ts)', () => {
  it('understands the defaults, and names the defaults cannot match are told apart in any case', () => {
    const check = fileNameCheck([...DEFAULT_IGNORE_PATTERNS, ...ENFORCED_IGNORE_PATTERNS])!;
    expect(check).not.toBeNull();
    for (const name of ['index.js', 'README.md', 'file73984.js', '.gitignore', 'node_modules', '.hostsync', 'envy']) expect(check(name), name).toBe(false);
    for (const name of ['.env', '.ENV.local', 'server.PEM', 'ID_RSA.pub', 'config.json', 'Credentials.JSON', 'a.swp', 'notes~', '.#lock', '4913']) expect(check(name), name).toBe(true);
  });

  it('gives up (null) on a pattern whose shape it does not understand', () => {
    for (const p of ['*', 'a?c', '[ab].js', 'a/**', 'a/*.js', '\\#x', 'a b', '#x', 'é.txt', 'a/b/']) expect(fileNameCheck(['x.js', p]), p).toBeNull();
  });

  it('never changes a verdict: the matcher answers every file and folder as the ignore package does', () => {
    let seed = 16;
    const rand = (n: number): number => {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      return (seed >>> 12) % n; // the high bits: an LCG's low bits repeat with a short period
    };
    const pick = <T>(xs: readonly T[]): T => xs[rand(xs.length)]!;
    const names = ['a', 'B', 'x.js', 'X.JS', '.env', '.env.local', 'id_rsa', 'ID_RSA.pub', 'config.json', '.docker', 'foo~', '.#x', 'ca.PEM', '4913', 'K.js', '\u212a.js', 'ab', 'ba', 'aXa'];
    const literal = ['a', 'b', 'x.js', '.env', 'id_rsa', 'config.json', '.docker', '~', '.#', '.pem', '4913', 'k.js', 'x'];
    const shapes: ((l: string) => string)[] = [
      (l) => l, (l) => `*${l}`, (l) => `${l}*`, (l) => `*${l}*`, (l) => `${l}/`, (l) => `/${l}`,
      (l) => `${pick(literal)}/${l}`, (l) => `**/${pick(literal)}/${l}`, (l) => `**/${l}`, (l) => l.toUpperCase(),
      (l) => `${pick(literal)}/${l}/`, (l) => `/${l}/`, (l) => `*${l}/`, (l) => `**/${l}/`,
    ];
    for (let round = 0; round < 600; round++) {
      const patterns = Array.from({ length: 1 + rand(6) }, () => `${rand(4) === 0 ? '!' : ''}${pick(shapes)(pick(literal))}`);
      const mine = createIgnoreMatcher(patterns);
      const theirs = ignore({ allowRelativePaths: true }).add(patterns);
      for (let i = 0; i < 60; i++) {
        const rel = Array.from({ length: 1 + rand(3) }, () => pick(names)).join('/');
        expect(mine.ignores(rel, false), `${JSON.stringify(patterns)} ${rel}`).toBe(theirs.ignores(rel));
        // ...and every folder, as the walk asks about each one it meets (folderNameCheck).
        expect(mine.ignores(rel, true), `${JSON.stringify(patterns)} ${rel}/`).toBe(theirs.ignores(`${rel}/`));
        // As a walk asks: only about a file whose every folder the package keeps.
        const parts = rel.split('/');
        if (parts.slice(0, -1).every((_, k) => !theirs.ignores(`${parts.slice(0, k + 1).join('/')}/`))) {
          expect(mine.ignoresFileIn!(rel, parts.at(-1)!), `${JSON.stringify(patterns)} ${rel} (in a kept folder)`).toBe(theirs.ignores(rel));
        }
      }
    }
  });
});
