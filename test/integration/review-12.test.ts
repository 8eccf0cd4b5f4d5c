/** Regressions for the adversarial review of issue #12: each test fails on the code before its fix. */
import { readFile, readdir, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startEmulator, type RunningEmulator } from '../../src/emulator/index.js';
import { tempDir, writeTree } from '../helpers/tree.js';
import { pushOnce } from '../helpers/push.js';
import { archiveName } from '../../src/sync/remote-read.js';

let emu: RunningEmulator;
let work: { dir: string; cleanup: () => Promise<void> };

beforeAll(async () => {
  emu = await startEmulator({ runtime: 'static', seed: 12, rateLimit: 1_000_000, userRateLimit: 1_000_000 });
});
afterAll(async () => {
  await emu?.close();
});
beforeEach(async () => {
  work = await tempDir('hostsync-review12-');
  for (const name of await readdir(emu.volume)) await rm(path.join(emu.volume, name), { recursive: true, force: true });
});
afterEach(async () => {
  emu.setFaults('');
  await work.cleanup();
});

describe('partial writeMany (review 1)', () => {
  const v = (n: number) => ({ 'a.js': `a v${n}\n`, 'b.js': `b v${n}\n`, 'c.js': `c v${n}\n` });

  it('a node write failure that persists holds back the apply: no restart into a v2/v1 mix', async () => {
    await writeTree(work.dir, v(1));
    await pushOnce(emu, work.dir, { noApply: false });
    emu.setFaults('partial=1');
    await writeTree(work.dir, v(2));
    const { report } = await pushOnce(emu, work.dir, { noApply: false });
    expect(report.failures.length).toBeGreaterThan(0);
    expect(report.failures.every((f) => !f.permanent)).toBe(true);
    expect(report.apply).toBeNull();
    // The apply stays pending: once the node recovers, the next push completes and applies.
    emu.setFaults('');
    const again = await pushOnce(emu, work.dir, { noApply: false });
    expect(again.report.failures).toEqual([]);
    expect(again.report.apply).not.toBeNull();
    expect(again.report.leftOut).toEqual([]);
    for (const [p, c] of Object.entries(v(2))) expect(await readFile(path.join(emu.volume, p), 'utf8')).toBe(c);
  });

  it('a transient node write failure is retried within the push, which then lands everything and applies', async () => {
    await writeTree(work.dir, v(1));
    await pushOnce(emu, work.dir, { noApply: false });
    emu.setFaults('partial=0.5');
    await writeTree(work.dir, v(2));
    const { report } = await pushOnce(emu, work.dir, { noApply: false });
    emu.setFaults('');
    expect(report.failures).toEqual([]);
    expect(report.apply).not.toBeNull();
    for (const [p, c] of Object.entries(v(2))) expect(await readFile(path.join(emu.volume, p), 'utf8')).toBe(c);
  });

  it('an apply that goes ahead without a file retrying cannot land names it in leftOut', async () => {
    await writeTree(emu.volume, { 'd/theirs.txt': 'keep\n' });
    await writeTree(work.dir, { d: 'a file\n', 'ok.js': 'ok\n' });
    const { report } = await pushOnce(emu, work.dir, { noApply: false, force: true });
    expect(report.failures.map((f) => [f.path, f.permanent])).toEqual([['d', true]]);
    expect(report.apply).not.toBeNull();
    expect(report.leftOut).toEqual(['d']);
  });
});

describe('upload archive (review 4)', () => {
  it('carries 128 random bits in its name', () => {
    const a = archiveName();
    expect(a).toMatch(/^\.hostsync-upload-[0-9a-f]{32}\.tar\.gz$/);
    expect(archiveName()).not.toBe(a);
  });

  it('a leftover archive is removed first thing, even by a push that then refuses', async () => {
    const files = Object.fromEntries(Array.from({ length: 30 }, (_, i) => [`f${i}.txt`, `${i}\n`]));
    await writeTree(work.dir, files);
    await pushOnce(emu, work.dir);
    const leftovers = [archiveName(), '.hostsync-upload-4242-lq2x9a.tar.gz'];
    for (const name of leftovers) await writeFile(path.join(emu.volume, name), 'project source');
    for (let i = 0; i < 25; i++) await rm(path.join(work.dir, `f${i}.txt`));
    await expect(pushOnce(emu, work.dir)).rejects.toThrow(/refusing to delete 25 of 30/);
    const names = await readdir(emu.volume);
    for (const name of leftovers) expect(names).not.toContain(name);
  });
});
