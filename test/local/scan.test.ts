import fs from 'node:fs';
import { chmod, mkdir, readFile, rename, rm, symlink, utimes, writeFile } from 'node:fs/promises';
import path from 'node:path';
import xxhash from 'xxhash-wasm';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { HASH_STREAM_THRESHOLD_BYTES } from '../../src/local/tunables.js';
import { createIgnoreMatcher, DEFAULT_IGNORE_PATTERNS } from '../../src/local/ignore.js';
import { loadIgnoreMatcher } from '../../src/local/ignore-file.js';
import { rescanPaths, scanTree } from '../../src/local/scan.js';
import { StatCache } from '../../src/local/statcache.js';
import { lstatKind } from '../../src/local/walk.js';
import type { Snapshot } from '../../src/model/types.js';
import { tempDir, writeTree } from '../helpers/tree.js';
import { mkfifoSync } from './mkfifo.js';

vi.mock('../../src/local/fast-stat.js', async (importOriginal) => {
  const real = await importOriginal<typeof import('../../src/local/fast-stat.js')>();
  const { default: nodeFs } = await import('node:fs');
  const { fileStatOf } = await import('../../src/local/filestat.js');
  return {
    ...real,
    lstatOf: (abs: string) => {
      const st = nodeFs.lstatSync(abs, { throwIfNoEntry: false });
      return st === undefined ? undefined : fileStatOf(st);
    },
  };
});

const defaults = createIgnoreMatcher(DEFAULT_IGNORE_PATTERNS);

async function refHash(abs: string): Promise<string> {
  const { h64Raw } = await xxhash();
  return h64Raw(await readFile(abs)).toString(16).padStart(16, '0');
}

let root: string;
let cleanup: () => Promise<void>;
beforeEach(async () => {
  ({ dir: root, cleanup } = await tempDir('hostsync-scan-'));
});
afterEach(async () => {
  vi.restoreAllMocks();
  await cleanup();
});

describe('scanTree', () => {
  it('applies defaults, .syncignore (with negation) and config, and never reads an ignored directory', async () => {
    await writeTree(root, {
      'index.js': 'console.log(1)\n',
      'src/app.ts': 'export {}\n',
      '.env': 'SECRET=1\n',
      '.env.example': 'SECRET=\n',
      'deploy.pem': 'key',
      'node_modules/a/b/c/deep.js': 'x',
      'src/node_modules/x/y.js': 'x',
      '.git/HEAD': 'ref: refs/heads/main\n',
      'dist/bundle.js': 'built',
      'debug.log': 'log',
      'logs/keep.txt': 'kept',
      '.syncignore': 'dist/\n!.env.example\n',
    });
    const matcher = await loadIgnoreMatcher(root, ['*.log']);
    const dirsRead: string[] = [];
    const readdirSpy = vi.spyOn(fs, 'readdirSync');

    const r = await scanTree({ root, matcher, onDirectory: (d) => dirsRead.push(d) });

    expect([...r.snapshot.keys()].sort()).toEqual(['.env.example', '.syncignore', 'index.js', 'logs/keep.txt', 'src/app.ts']);
    expect(dirsRead.sort()).toEqual(['', 'logs', 'src']);
    const readPaths = readdirSpy.mock.calls.map((c) => String(c[0]));
    expect(readPaths.length).toBe(3);
    for (const p of readPaths) expect(p).not.toMatch(/node_modules|\.git|dist/);
    expect(r.stats).toMatchObject({ files: 5, hashed: 5, cached: 0, dirs: 3 });
    expect(r.warnings).toEqual([]);
  });

  it('entries carry the XXH64 of the content, size, text and executable flags', async () => {
    await writeTree(root, {
      'run.sh': '#!/bin/sh\necho hi\n',
      'group-exec': 'x',
      'plain.txt': 'hello\r\nworld\r\n',
      'img.bin': Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x00, 0x01]),
      'empty': '',
    });
    await chmod(path.join(root, 'run.sh'), 0o755);
    await chmod(path.join(root, 'group-exec'), 0o610); // one execute bit is enough
    await chmod(path.join(root, 'plain.txt'), 0o644);
    const r = await scanTree({ root, matcher: defaults });
    const get = (p: string) => r.snapshot.get(p)!;
    for (const p of ['run.sh', 'group-exec', 'plain.txt', 'img.bin', 'empty']) {
      expect(get(p).path).toBe(p);
      expect(get(p).hash).toBe(await refHash(path.join(root, p)));
      expect(get(p).size).toBe(fs.statSync(path.join(root, p)).size);
    }
    expect(get('run.sh')).toMatchObject({ executable: true, text: true });
    expect(get('group-exec').executable).toBe(true);
    expect(get('plain.txt')).toMatchObject({ executable: false, text: true });
    expect(get('img.bin')).toMatchObject({ executable: false, text: false });
    expect(get('empty')).toMatchObject({ size: 0, text: true });
  });

  it('keeps Unicode and spaces in names exactly as the file system gives them', async () => {
    const names = ['héllo wörld.txt', '日本/ファイル 1.md', 'a b/c  d.txt', 'e\u0301.txt' /* decomposed é */, '\u00e9.txt'];
    await writeTree(root, Object.fromEntries(names.map((n) => [n, `content of ${n}`])));
    const r = await scanTree({ root, matcher: defaults });
    expect([...r.snapshot.keys()].sort()).toEqual([...names].sort());
    for (const n of names) expect(r.snapshot.get(n)!.hash).toBe(await refHash(path.join(root, ...n.split('/'))));
  });

  it('skips symlinks (never followed out of the root) and special files, one warning each', async () => {
    const outside = await tempDir('hostsync-outside-');
    try {
      await writeTree(outside.dir, { 'secret.txt': 'outside', 'sub/more.txt': 'more' });
      await writeTree(root, { 'real.txt': 'real', 'inner/target.txt': 't' });
      await symlink(path.join(outside.dir, 'secret.txt'), path.join(root, 'file-link'));
      await symlink(outside.dir, path.join(root, 'dir-link'));
      await symlink('target.txt', path.join(root, 'inner', 'rel-link'));
      await symlink('/nonexistent/dangling', path.join(root, 'dangling'));
      const fifo = mkfifoSync(path.join(root, 'pipe'));

      const r = await scanTree({ root, matcher: defaults });
      expect([...r.snapshot.keys()].sort()).toEqual(['inner/target.txt', 'real.txt']);
      const expected = [
        `symlink skipped (links are not followed): dangling -> /nonexistent/dangling`,
        `symlink skipped (links are not followed): dir-link -> ${outside.dir}`,
        `symlink skipped (links are not followed): file-link -> ${path.join(outside.dir, 'secret.txt')}`,
        `symlink skipped (links are not followed): inner/rel-link -> target.txt`,
      ];
      if (fifo) expected.push('special file skipped (fifo): pipe');
      expect([...r.warnings].sort()).toEqual(expected.sort());
    } finally {
      await outside.cleanup();
    }
  });

  it('hashes a file above the streaming threshold like any other', async () => {
    const big = Buffer.alloc(HASH_STREAM_THRESHOLD_BYTES + 1, 'abc\n');
    await writeTree(root, { 'big.txt': big, 'small.txt': 's' });
    const r = await scanTree({ root, matcher: defaults, hashConcurrency: 1 });
    expect(r.snapshot.get('big.txt')).toEqual({ path: 'big.txt', hash: await refHash(path.join(root, 'big.txt')), size: big.length, executable: false, text: true });
  });

  it('an empty tree is an empty snapshot', async () => {
    const r = await scanTree({ root, matcher: defaults });
    expect(r.snapshot.size).toBe(0);
    expect(r.stats).toMatchObject({ files: 0, hashed: 0, dirs: 1 });
  });
});

describe('rescanPaths', () => {
  /** rescanPaths must always agree with a full scan of the same tree. */
  async function expectMatchesFullScan(previous: Snapshot, touched: string[], cache?: StatCache): Promise<Snapshot> {
    const opts = cache ? { root, matcher: defaults, cache } : { root, matcher: defaults };
    const partial = await rescanPaths(opts, previous, touched);
    const full = await scanTree({ root, matcher: defaults });
    expect(new Map([...partial.snapshot].sort())).toEqual(new Map([...full.snapshot].sort()));
    return partial.snapshot;
  }

  beforeEach(async () => {
    await writeTree(root, {
      'keep.txt': 'keep',
      'x': 'x is a file for now',
      'gone.txt': 'soon deleted',
      'd/one.txt': '1',
      'd/sub/two.txt': '2',
      'd/sub/deeper/three.txt': '3',
      'become-file/inner.txt': 'i',
      'node_modules/pkg/index.js': 'x',
    });
  });

  it('handles a new file, a changed file and a deleted file', async () => {
    const before = (await scanTree({ root, matcher: defaults })).snapshot;
    await writeFile(path.join(root, 'new.txt'), 'new');
    await writeFile(path.join(root, 'keep.txt'), 'changed');
    await rm(path.join(root, 'gone.txt'));
    const after = await expectMatchesFullScan(before, ['new.txt', 'keep.txt', 'gone.txt']);
    expect(after.has('gone.txt')).toBe(false);
    expect(after.get('new.txt')!.hash).toBe(await refHash(path.join(root, 'new.txt')));
    expect(before.has('gone.txt')).toBe(true); // previous is left alone
  });

  it('walks a file that became a directory, and drops a directory that became a file', async () => {
    const before = (await scanTree({ root, matcher: defaults })).snapshot;
    await rm(path.join(root, 'x'));
    await writeTree(root, { 'x/a.txt': 'a', 'x/b/c.txt': 'c' });
    await rm(path.join(root, 'become-file'), { recursive: true });
    await writeFile(path.join(root, 'become-file'), 'now a file');
    const after = await expectMatchesFullScan(before, ['x', 'become-file']);
    expect([...after.keys()].filter((k) => k.startsWith('x')).sort()).toEqual(['x/a.txt', 'x/b/c.txt']);
    expect(after.has('become-file/inner.txt')).toBe(false);
  });

  it('drops everything under a deleted directory, and re-walks a directory renamed into place', async () => {
    const before = (await scanTree({ root, matcher: defaults })).snapshot;
    await rename(path.join(root, 'd', 'sub'), path.join(root, 'moved'));
    const after = await expectMatchesFullScan(before, ['d/sub', 'moved']);
    expect(after.has('moved/deeper/three.txt')).toBe(true);
    await rm(path.join(root, 'd'), { recursive: true });
    await expectMatchesFullScan(after, ['d']);
  });

  it('ignores touched paths inside ignored directories and paths that escape the root', async () => {
    const before = (await scanTree({ root, matcher: defaults })).snapshot;
    await writeFile(path.join(root, 'node_modules', 'pkg', 'index.js'), 'changed');
    const r = await rescanPaths({ root, matcher: defaults }, before, ['node_modules/pkg/index.js', 'node_modules', '../outside', '/abs/../../etc']);
    expect(r.snapshot).toEqual(before);
    expect(r.stats.hashed).toBe(0);
  });

  it('does not reach through a directory replaced by a symlink', async () => {
    const outside = await tempDir('hostsync-outside-');
    try {
      await writeTree(outside.dir, { 'one.txt': 'outside', 'sub/two.txt': 'outside' });
      const before = (await scanTree({ root, matcher: defaults })).snapshot;
      await rm(path.join(root, 'd'), { recursive: true });
      await symlink(outside.dir, path.join(root, 'd'));
      const r = await rescanPaths({ root, matcher: defaults }, before, ['d/one.txt', 'd/sub/two.txt']);
      expect([...r.snapshot.keys()].filter((k) => k.startsWith('d/'))).toEqual([]);
      await expectMatchesFullScan(before, ['d']);
    } finally {
      await outside.cleanup();
    }
  });

  it('reads a file once when it is touched both itself and through its directory', async () => {
    const before = (await scanTree({ root, matcher: defaults })).snapshot;
    await writeFile(path.join(root, 'd', 'one.txt'), 'changed');
    const r = await rescanPaths({ root, matcher: defaults }, before, ['d/one.txt', 'd', 'd/sub/two.txt']);
    expect(r.stats.hashed).toBe(3); // d/one.txt, d/sub/two.txt, d/sub/deeper/three.txt
    await expectMatchesFullScan(before, ['d', 'd/one.txt']);
  });

  it('treats the root itself ("" or ".") as a full rescan', async () => {
    const before = (await scanTree({ root, matcher: defaults })).snapshot;
    await rm(path.join(root, 'd'), { recursive: true });
    await writeFile(path.join(root, 'fresh.txt'), 'fresh');
    await expectMatchesFullScan(before, ['.']);
  });

  it('uses the stat cache for untouched content of a re-walked directory', async () => {
    const cache = StatCache.inMemory();
    const old = new Date(Date.now() - 3_600_000);
    for (const rel of ['d/one.txt', 'd/sub/two.txt', 'd/sub/deeper/three.txt']) fs.utimesSync(path.join(root, rel), old, old);
    const before = (await scanTree({ root, matcher: defaults, cache })).snapshot;
    await writeFile(path.join(root, 'd', 'added.txt'), 'added');
    const r = await rescanPaths({ root, matcher: defaults, cache }, before, ['d']);
    expect(r.stats).toMatchObject({ hashed: 1, cached: 3 });
    expect(r.snapshot.get('d/added.txt')!.hash).toBe(await refHash(path.join(root, 'd', 'added.txt')));
  });

  it('does not break on a directory it cannot read (reported, not thrown)', async () => {
    // Runs as root in CI, where permissions do not stop reads: only assert no throw and consistency.
    await mkdir(path.join(root, 'locked'));
    await writeFile(path.join(root, 'locked', 'f.txt'), 'f');
    await chmod(path.join(root, 'locked'), 0o000);
    try {
      const r = await scanTree({ root, matcher: defaults });
      const readable = (() => {
        try {
          fs.readdirSync(path.join(root, 'locked'));
          return true;
        } catch {
          return false;
        }
      })();
      expect(r.snapshot.has('locked/f.txt')).toBe(readable);
      if (!readable) expect(r.warnings.some((w) => w.includes('locked'))).toBe(true);
    } finally {
      await chmod(path.join(root, 'locked'), 0o755);
    }
  });
});

/**
 * Makes fs.lstatSync fail with `code` for exactly `abs` (tests run as root, where chmod 000
 * stops nothing). walk.ts and scan.ts reach it through fast-stat.ts's lstatOf, made here to
 * take the public path (its fast path answers exactly alike: see fast-stat.test.ts).
 */
function failLstat(abs: string, code: string): void {
  const real = fs.lstatSync.bind(fs) as (p: fs.PathLike, o?: fs.StatSyncOptions) => unknown;
  vi.spyOn(fs, 'lstatSync').mockImplementation(((p: fs.PathLike, o?: fs.StatSyncOptions) => {
    if (String(p) === abs) throw Object.assign(new Error(`${code}: simulated, lstat '${abs}'`), { code });
    return real(p, o);
  }) as typeof fs.lstatSync);
}

describe('files the stat cache does not hold', () => {
  it('are not lstat\'ed by the walk: read once, their stat taken from the open file', async () => {
    await writeTree(root, { 'a.txt': 'A', 'd/b.txt': 'B', 'd/e/c.bin': Buffer.from([0, 1, 2]) });
    await chmod(path.join(root, 'a.txt'), 0o755);
    const HOUR_AGO = new Date(Date.now() - 3_600_000); // older than the racy window: cacheable
    for (const rel of ['a.txt', 'd/b.txt', 'd/e/c.bin']) await utimes(path.join(root, rel), HOUR_AGO, HOUR_AGO);
    const lstat = vi.spyOn(fs, 'lstatSync');
    const cache = StatCache.inMemory();
    const cold = await scanTree({ root, matcher: defaults, cache });
    expect(lstat).not.toHaveBeenCalled();
    expect(cold.stats).toMatchObject({ files: 3, hashed: 3, cached: 0 });
    expect(cold.snapshot.get('a.txt')).toMatchObject({ size: 1, executable: true, text: true, hash: await refHash(path.join(root, 'a.txt')) });
    expect(cold.snapshot.get('d/e/c.bin')).toMatchObject({ size: 3, executable: false, text: false });
    // What the cache now holds is compared by lstat, and matches what the read recorded.
    const warm = await scanTree({ root, matcher: defaults, cache });
    expect(lstat).toHaveBeenCalledTimes(3);
    expect(warm.stats).toMatchObject({ files: 3, hashed: 0, cached: 3 });
    expect([...warm.snapshot.values()]).toEqual([...cold.snapshot.values()]);
  });

  it('a name that is not valid UTF-8 is skipped with a warning, with or without the cache', async () => {
    await writeTree(root, { 'ok.txt': 'ok' });
    fs.writeFileSync(Buffer.concat([Buffer.from(`${root}/bad-`), Buffer.from([0xff]), Buffer.from('.txt')]), 'x');
    for (const cache of [undefined, StatCache.inMemory()]) {
      const r = await scanTree({ root, matcher: defaults, ...(cache ? { cache } : {}) });
      expect([...r.snapshot.keys()]).toEqual(['ok.txt']);
      expect(r.warnings).toEqual(['file name is not valid UTF-8, skipped: bad-\uFFFD.txt']);
    }
  });
});

describe('paths lstat cannot answer for', () => {
  beforeEach(async () => {
    await writeTree(root, { 'keep.txt': 'keep', 'd/one.txt': '1', 'd/sub/two.txt': '2', 'f': 'a file, once a folder' });
  });

  it('lstatKind: a path under what is now a file (ENOTDIR) is gone; any other failure is unreadable, never thrown', async () => {
    expect(lstatKind(path.join(root, 'f', 'b', 'x.txt'))).toEqual({ kind: 'gone' });
    failLstat(path.join(root, 'd', 'one.txt'), 'EACCES');
    expect(lstatKind(path.join(root, 'd', 'one.txt'))).toEqual({ kind: 'unreadable', code: 'EACCES' });
    expect(lstatKind(path.join(root, 'keep.txt')).kind).toBe('file');
  });

  it('rescanPaths skips an unreadable touched path (with a warning) and still applies the rest of the batch', async () => {
    const before = (await scanTree({ root, matcher: defaults })).snapshot;
    await writeFile(path.join(root, 'keep.txt'), 'changed');
    failLstat(path.join(root, 'd', 'one.txt'), 'EACCES');
    const r = await rescanPaths({ root, matcher: defaults }, before, ['d/one.txt', 'keep.txt', 'f/x']);
    expect(r.skipped).toContain('d/one.txt');
    expect(r.warnings).toContainEqual(expect.stringMatching(/d\/one\.txt.*EACCES/));
    expect(r.snapshot.get('keep.txt')!.hash).toBe(await refHash(path.join(root, 'keep.txt')));
    expect(r.snapshot.has('d/sub/two.txt')).toBe(true);
  });

  it('rescanPaths skips everything under a folder it cannot lstat', async () => {
    const before = (await scanTree({ root, matcher: defaults })).snapshot;
    failLstat(path.join(root, 'd', 'sub'), 'EIO');
    const r = await rescanPaths({ root, matcher: defaults }, before, ['d/sub/two.txt', 'd/sub/new.txt']);
    expect(r.skipped).toContain('d/sub/');
    expect(r.warnings.filter((w) => w.includes('d/sub'))).toHaveLength(1);
    expect(r.snapshot.has('d/one.txt')).toBe(true);
  });

  it('a touched path whose folder became a file between checks (ENOTDIR) is gone, not thrown', async () => {
    const before = (await scanTree({ root, matcher: defaults })).snapshot;
    failLstat(path.join(root, 'd', 'one.txt'), 'ENOTDIR');
    const r = await rescanPaths({ root, matcher: defaults }, before, ['d/one.txt']);
    expect(r.snapshot.has('d/one.txt')).toBe(false);
    expect(r.skipped).toEqual([]);
  });

  it('scanTree skips a file it cannot lstat, with a warning, instead of throwing', async () => {
    // Files the stat cache holds are lstat'ed by the walk (the others only when read).
    const cache = StatCache.inMemory();
    await scanTree({ root, matcher: defaults, cache });
    failLstat(path.join(root, 'd', 'one.txt'), 'EACCES');
    const r = await scanTree({ root, matcher: defaults, cache });
    expect(r.skipped).toEqual(['d/one.txt']);
    expect(r.warnings).toContainEqual(expect.stringMatching(/d\/one\.txt.*EACCES/));
    expect([...r.snapshot.keys()].sort()).toEqual(['d/sub/two.txt', 'f', 'keep.txt']);
  });
});
