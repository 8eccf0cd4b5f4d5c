import fs from 'node:fs';
import { utimes } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { digestSmallFileSync, xxhashApi } from '../../src/local/hash.js';
import { FAILED, GONE, hashInParallel, HashPool, LARGE, NOT_DONE, READ } from '../../src/local/hash-pool.js';
import type { Worker } from 'node:worker_threads';
import { createIgnoreMatcher, DEFAULT_IGNORE_PATTERNS } from '../../src/local/ignore.js';
import { scanTree } from '../../src/local/scan.js';
import { StatCache } from '../../src/local/statcache.js';
import { HASH_STREAM_THRESHOLD_BYTES } from '../../src/local/tunables.js';
import { fileStatOf } from '../../src/local/filestat.js';
import { tempDir, writeTree } from '../helpers/tree.js';

// The workers run the built dist/local/hash-worker.js (a TypeScript runner cannot start a
// .ts worker): `npx tsc -p tsconfig.json` before this file, as for the CLI-spawning tests.

const matcher = createIgnoreMatcher(DEFAULT_IGNORE_PATTERNS);

let root: string;
let cleanup: () => Promise<void>;
beforeEach(async () => {
  ({ dir: root, cleanup } = await tempDir('hostsync-hash-pool-'));
});
afterEach(async () => {
  await cleanup();
});

/** A tree of every kind of file a scan meets: text, binary, empty, executable, non-UTF-8, large, many small. */
async function makeTree(): Promise<string[]> {
  const files: Record<string, string | Buffer> = {
    'a.txt': 'hello\n',
    'empty': '',
    'bin.dat': Buffer.from([0, 1, 2, 255, 0]),
    'latin1.txt': Buffer.from([0x63, 0x61, 0x66, 0xe9]),
    'deep/er/still/x.js': 'export {};\n',
  };
  for (let i = 0; i < 700; i++) files[`many/d${i % 17}/f${i}.js`] = `module.exports = ${i};\n`.repeat(1 + (i % 40));
  await writeTree(root, files);
  fs.chmodSync(path.join(root, 'a.txt'), 0o755);
  fs.writeFileSync(path.join(root, 'large.bin'), Buffer.alloc(HASH_STREAM_THRESHOLD_BYTES + 3, 7));
  // Old mtimes: every file past the racy window, so both scans cache every one of them.
  const old = new Date(Date.now() - 3_600_000);
  const rels = listFiles(root);
  for (const rel of rels) await utimes(path.join(root, rel), old, old);
  return rels;
}

function listFiles(dir: string, rel = ''): string[] {
  const out: string[] = [];
  for (const d of fs.readdirSync(path.join(dir, rel), { withFileTypes: true })) {
    const r = rel ? `${rel}/${d.name}` : d.name;
    if (d.isDirectory()) out.push(...listFiles(dir, r));
    else out.push(r);
  }
  return out.sort();
}

/** What a stat cache answers for each file as it is now. */
function cacheView(cache: StatCache, rels: readonly string[]): unknown[] {
  return rels.map((rel) => [rel, cache.has(rel), cache.lookup(rel, fileStatOf(fs.lstatSync(path.join(root, rel))))]);
}

describe('hash pool', () => {
  it('worker threads alone read every file exactly as digestSmallFileSync does', async () => {
    const rels = await makeTree();
    const files = [...rels, 'vanished.txt'].map((rel) => ({ abs: path.join(root, rel), stat: rel === 'bin.dat' ? fileStatOf(fs.lstatSync(path.join(root, rel))) : undefined }));
    const xx = await xxhashApi();
    const { columns: c, errors } = await hashInParallel(files, xx, 2, { mainThreadReads: false });
    expect(errors.size).toBe(0);
    files.forEach((f, i) => {
      const d = digestSmallFileSync(f.abs, xx, f.stat);
      if (d === null) return expect(c.outcome[i]).toBe(GONE);
      if (d === 'large') return expect(c.outcome[i]).toBe(LARGE);
      expect(c.outcome[i]).toBe(READ);
      expect([c.hashLo[i], c.hashHi[i], c.text[i] === 1, c.size[i], c.mtimeMs[i], c.ctimeMs[i], c.ino[i], c.mode[i]]).toEqual([
        d.hashLo, d.hashHi, d.text, d.size, d.stat.mtimeMs, d.stat.ctimeMs, d.stat.ino, d.stat.mode,
      ]);
    });
  });

  it('workers fed in segments read each file once, as digestSmallFileSync does, errors named by their index among all files', async () => {
    const rels = await makeTree();
    // A name past any file system's limit cannot be opened: the one error, in the fifth segment.
    const paths = rels.map((rel) => path.join(root, rel));
    paths.splice(450, 0, path.join(root, 'x'.repeat(300)));
    const files = paths.map((abs) => ({ abs, stat: undefined }));
    const xx = await xxhashApi();
    const pool = HashPool.start(2);
    for (let i = 0; i < 600; i += 100) pool.feed(files.slice(i, i + 100));
    const { columns: c, errors } = await pool.hash(files, xx, { mainThreadReads: false });
    expect(c.paths).toEqual(paths);
    expect([...errors]).toEqual([[450, 'ENAMETOOLONG']]);
    expect(c.outcome[450]).toBe(FAILED);
    files.forEach((f, i) => {
      if (i === 450) return;
      const d = digestSmallFileSync(f.abs, xx, f.stat);
      if (d === 'large') return expect(c.outcome[i]).toBe(LARGE);
      if (d === null) throw new Error(`${f.abs} is gone`);
      expect(c.outcome[i]).toBe(READ);
      expect([c.hashLo[i], c.hashHi[i], c.size[i], c.ino[i]]).toEqual([d.hashLo, d.hashHi, d.size, d.stat.ino]);
    });
  });

  it('a worker gone before it is given files costs no answer and no hang: the main thread reads them', async () => {
    const rels = await makeTree();
    const files = rels.map((rel) => ({ abs: path.join(root, rel), stat: undefined }));
    const pool = HashPool.start(1);
    const [worker] = (pool as unknown as { workers: Worker[] }).workers;
    await worker!.terminate();
    const { columns: c } = await pool.hash(files, await xxhashApi());
    expect([...c.outcome].filter((o) => o === NOT_DONE)).toEqual([]);
  });

  it('a parallel cold scan gives the same snapshot and stat cache as a serial one', async () => {
    const rels = await makeTree();
    const serialCache = StatCache.inMemory();
    const parallelCache = StatCache.inMemory();
    const serial = await scanTree({ root, matcher, cache: serialCache, hashWorkers: 0 });
    const parallel = await scanTree({ root, matcher, cache: parallelCache, hashWorkers: 2, hashWorkersMinFiles: 0, hashSegmentFiles: 100 });
    expect(parallel.stats.hashed).toBe(rels.length);
    expect([...parallel.snapshot.values()]).toEqual([...serial.snapshot.values()]);
    expect(parallel.warnings).toEqual(serial.warnings);
    expect(cacheView(parallelCache, rels)).toEqual(cacheView(serialCache, rels));

    // Every mtime changed (a fresh clone): the walk's stat now stands in for a first fstat.
    const older = new Date(Date.now() - 7_200_000);
    for (const rel of rels) await utimes(path.join(root, rel), older, older);
    const serial2 = await scanTree({ root, matcher, cache: serialCache, hashWorkers: 0 });
    const parallel2 = await scanTree({ root, matcher, cache: parallelCache, hashWorkers: 2, hashWorkersMinFiles: 0, hashSegmentFiles: 100 });
    expect(parallel2.stats.hashed).toBe(rels.length);
    expect([...parallel2.snapshot.values()]).toEqual([...serial2.snapshot.values()]);
    expect(cacheView(parallelCache, rels)).toEqual(cacheView(serialCache, rels));
    expect(cacheView(parallelCache, rels).every((v) => (v as unknown[])[2] !== undefined)).toBe(true);
  });
});
