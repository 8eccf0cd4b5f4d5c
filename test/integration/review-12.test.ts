/** Regressions for the adversarial review of issue #12: each test fails on the code before its fix. */
import { readFile, readdir, rm, utimes, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startEmulator, type RunningEmulator } from '../../src/emulator/index.js';
import { tempDir, writeTree } from '../helpers/tree.js';
import { envFor, pushOnce } from '../helpers/push.js';
import { loadConfig } from '../../src/config/config.js';
import { openSession } from '../../src/sync/session.js';
import { push } from '../../src/sync/push/push.js';
import { exitCodeFor, runPush } from '../../src/app/push.js';
import { runStatus } from '../../src/app/status.js';
import { runInit } from '../../src/app/init.js';
import { describeError } from '../../src/sync/describe-error.js';
import { EXIT } from '../../src/errors.js';
import { HostingClient } from '../../src/remote/client.js';
import { OutcomeUnknownError } from '../../src/remote/errors.js';
import { runCli } from '../helpers/cli.js';
import { mkfifoSync } from '../local/mkfifo.js';
import { archiveName } from '../../src/sync/remote-read/remote-read.js';
import { ownBudgetPerTest } from '../helpers/budget.js';

// Together the file's tests pass the key's 120 requests a minute: each gets its own budget.
ownBudgetPerTest();

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
    const anHourAgo = new Date(Date.now() - 3_600_000);
    for (const name of leftovers) {
      await writeFile(path.join(emu.volume, name), 'project source');
      await utimes(path.join(emu.volume, name), anHourAgo, anHourAgo);
    }
    for (let i = 0; i < 25; i++) await rm(path.join(work.dir, `f${i}.txt`));
    await expect(pushOnce(emu, work.dir)).rejects.toThrow(/refusing to delete 25 of 30/);
    const names = await readdir(emu.volume);
    for (const name of leftovers) expect(names).not.toContain(name);
  });

  it('an archive of ours younger than 30 minutes is left alone: a push may still be unpacking it', async () => {
    await writeTree(work.dir, { 'a.txt': 'a\n' });
    await pushOnce(emu, work.dir);
    const young = archiveName();
    await writeFile(path.join(emu.volume, young), 'another push, still decompressing');
    await writeFile(path.join(work.dir, 'a.txt'), 'a, edited\n');
    const { report } = await pushOnce(emu, work.dir);
    expect(report.counts.written).toBe(1);
    expect(report.counts.deleted).toBe(0);
    expect(await readdir(emu.volume)).toContain(young);
  });
});

describe('a remote edit during the push (review 3)', () => {
  /** A push whose files.index calls run `afterIndex(n)` once answered (n counts them from 1): the app writing at that instant. */
  async function pushWithAppEdit(afterIndex: (n: number) => Promise<void>) {
    const config = await loadConfig({ flags: { dir: work.dir }, env: envFor(emu) });
    const session = await openSession(config);
    const index = session.client.files.index.bind(session.client.files);
    let calls = 0;
    session.client.files.index = async (req) => {
      const res = await index(req);
      await afterIndex(++calls);
      return res;
    };
    try {
      return await push(session, { noApply: true });
    } finally {
      await session.close();
    }
  }

  it('an edit between the pre-read and a later write is found by the re-check, left alone, and refused as a conflict (exit 3)', async () => {
    await writeTree(work.dir, { 'app.js': 'v1\n', 'other.js': 'o1\n', 'old.js': 'gone soon\n' });
    await pushOnce(emu, work.dir);
    // A deletion goes first, so the writes no longer follow the read directly and are re-checked.
    await rm(path.join(work.dir, 'old.js'));
    await writeTree(work.dir, { 'app.js': 'v2 local\n', 'other.js': 'o2\n' });
    const report = await pushWithAppEdit(async (n) => {
      if (n === 1) await writeFile(path.join(emu.volume, 'app.js'), 'written by the app\n');
    });
    expect(await readFile(path.join(emu.volume, 'app.js'), 'utf8')).toBe('written by the app\n');
    expect(await readFile(path.join(emu.volume, 'other.js'), 'utf8')).toBe('o2\n');
    expect(report.conflicts.map((c) => [c.path, c.reason])).toEqual([['app.js', 'both-modified']]);
    expect(report.failures).toEqual([]);
    expect(exitCodeFor(report)).toBe(EXIT.refused);
  });

  it('an edit that slips in while the record is written is reported with exit 3 and the files.history version keeping it', async () => {
    // The repro: one edited file, the app rewriting it while the push is under way.
    // A teammate recorded since this folder's last push: its copy of the record is behind, so
    // the record is read and written between the plan's read and the write (record-ahead.ts).
    await writeTree(work.dir, { 'app.js': 'v1\n' });
    await pushOnce(emu, work.dir);
    const mate = await tempDir('hostsync-review12-mate-');
    try {
      await writeTree(mate.dir, { 'app.js': 'v1\n', 'theirs.js': 'a teammate\n' });
      expect((await pushOnce(emu, mate.dir)).report.counts.written).toBe(1);
    } finally {
      await mate.cleanup();
    }
    await writeTree(work.dir, { 'app.js': 'v2 local\n' });
    const report = await pushWithAppEdit(async (n) => {
      if (n === 1) await writeFile(path.join(emu.volume, 'app.js'), 'written by the app, late\n');
    });
    expect(report.overwritten).toEqual([{ path: 'app.js', versionId: expect.any(String), bytes: 'written by the app, late\n'.length }]);
    expect(exitCodeFor(report)).toBe(EXIT.refused);
    expect(report.warnings.join('\n')).toContain(`files.history version ${report.overwritten[0]!.versionId}`);
    const client = new HostingClient({ baseUrl: emu.baseUrl, apiKey: emu.apiKey, deploymentId: emu.deploymentId });
    await client.files.restore('app.js', report.overwritten[0]!.versionId);
    await client.close();
    expect(await readFile(path.join(emu.volume, 'app.js'), 'utf8')).toBe('written by the app, late\n');
  });

  it('a push that records ahead writes right after its read: index and record together, writeMany, verifying index (4 requests, no slip check)', async () => {
    await writeTree(work.dir, { 'app.js': 'v1\n', 'lib.js': 'l1\n' });
    await pushOnce(emu, work.dir);
    await writeTree(work.dir, { 'app.js': 'v2 local\n' });
    const { report, stats } = await pushOnce(emu, work.dir);
    expect(report.counts.written).toBe(1);
    expect(stats.byOperation).toEqual({ 'files.index': 2, 'files.edit': 1, 'files.writeMany': 1 });
    expect(await readFile(path.join(emu.volume, 'app.js'), 'utf8')).toBe('v2 local\n');
    // The record holds the batch: a second folder with the same files has nothing to send.
    const mate = await tempDir('hostsync-review12-mate-');
    try {
      await writeTree(mate.dir, { 'app.js': 'v2 local\n', 'lib.js': 'l1\n' });
      const again = await pushOnce(emu, mate.dir);
      expect(again.report.plan.steps).toEqual([]);
      expect(again.report.conflicts).toEqual([]);
    } finally {
      await mate.cleanup();
    }
  });

  it('a batch recorded ahead whose answer was lost after it landed is this push\'s own, not another machine\'s: no conflict with itself', async () => {
    await writeTree(work.dir, { 'app.js': 'v1\n', 'lib.js': 'l1\n' });
    await pushOnce(emu, work.dir);
    await writeTree(work.dir, { 'app.js': 'v2 local\n' });
    const config = await loadConfig({ flags: { dir: work.dir }, env: envFor(emu) });
    const session = await openSession(config);
    const { files } = session.client;
    const edit = files.edit.bind(files);
    const index = files.index.bind(files);
    let landed!: () => void;
    const editLanded = new Promise<void>((resolve) => (landed = resolve));
    let edits = 0;
    let indexes = 0;
    // The record's compare-and-swap lands, and its answer is lost; the index beside it is answered after it landed.
    files.edit = async (...a: Parameters<typeof files.edit>) => {
      const res = await edit(...a);
      if (++edits > 1) return res;
      landed();
      throw new OutcomeUnknownError('the answer was lost', { operation: 'files.edit', status: 0, serverMessage: 'lost' });
    };
    files.index = async (req) => {
      if (++indexes === 1) await editLanded;
      return index(req);
    };
    try {
      const report = await push(session, { noApply: true });
      expect(report.conflicts).toEqual([]);
      expect(report.failures).toEqual([]);
      expect(exitCodeFor(report)).toBe(EXIT.ok);
    } finally {
      await session.close();
    }
    expect(await readFile(path.join(emu.volume, 'app.js'), 'utf8')).toBe('v2 local\n');
  });

  it('a hand edit the last read did not see, where the push records ahead, is a conflict: kept, never overwritten, and still one the next push', async () => {
    await writeTree(work.dir, { 'app.js': 'v1\n', 'lib.js': 'l1\n' });
    await pushOnce(emu, work.dir);
    await writeFile(path.join(emu.volume, 'app.js'), 'fixed by hand on the server\n');
    await writeTree(work.dir, { 'app.js': 'v2 local\n', 'lib.js': 'l2\n' });
    const { report } = await pushOnce(emu, work.dir);
    expect(report.conflicts.map((c) => [c.path, c.reason])).toEqual([['app.js', 'both-modified']]);
    expect(exitCodeFor(report)).toBe(EXIT.refused);
    expect(await readFile(path.join(emu.volume, 'app.js'), 'utf8')).toBe('fixed by hand on the server\n');
    expect(await readFile(path.join(emu.volume, 'lib.js'), 'utf8')).toBe('l2\n');
    const again = await pushOnce(emu, work.dir);
    expect(again.report.conflicts.map((c) => c.path)).toEqual(['app.js']);
    expect(await readFile(path.join(emu.volume, 'app.js'), 'utf8')).toBe('fixed by hand on the server\n');
    // A teammate's clone holding the old app.js does not take the batch's unlanded app.js as the deployment's.
    const mate = await tempDir('hostsync-review12-mate-');
    try {
      await writeTree(mate.dir, { 'app.js': 'v1\n', 'lib.js': 'l2\n' });
      const theirs = await pushOnce(emu, mate.dir);
      expect(theirs.report.counts.written).toBe(0);
      expect(await readFile(path.join(emu.volume, 'app.js'), 'utf8')).toBe('fixed by hand on the server\n');
    } finally {
      await mate.cleanup();
    }
  });
});

describe('an unknown deployment (review 10)', () => {
  it('push and status exit 2 naming the deployment and how to list them', async () => {
    await writeTree(work.dir, { 'a.js': 'a\n' });
    const opts = { dir: work.dir, env: { ...envFor(emu), HOSTSYNC_DEPLOYMENT: 'dep_nope' } };
    for (const result of [(await runPush(opts)).result, (await runStatus(opts)).result]) {
      expect(result.exitCode).toBe(EXIT.usage);
      expect(result.error).toMatch(/deployment "dep_nope" not found .*hostsync link/);
    }
  });

  it('a missing path is still a plain 404, not a missing deployment', async () => {
    const client = new HostingClient({ baseUrl: emu.baseUrl, apiKey: emu.apiKey, deploymentId: emu.deploymentId });
    const err = await client.files.index({ path: 'no/such/dir' }).catch((e: unknown) => e);
    await client.close();
    expect(describeError(err).exitCode).toBe(EXIT.failed);
  });
});

describe('--json warnings (review 9)', () => {
  it('push --json lists skipped files (a FIFO, a token-holding .npmrc) in warnings, with ok still true', async () => {
    await writeTree(work.dir, { 'a.js': 'a\n', '.npmrc': '//registry.npmjs.org/:_authToken=npm_x\n' });
    const fifo = mkfifoSync(path.join(work.dir, 'pipe'));
    const r = await runCli(['push', '--json', '--no-apply', '--dir', work.dir], envFor(emu));
    const out = JSON.parse(r.stdout) as { ok: boolean; warnings: string[] };
    expect(r.code).toBe(0);
    expect(out.ok).toBe(true);
    expect(out.warnings).toEqual(expect.arrayContaining([expect.stringMatching(/^\.npmrc holds a registry token/)]));
    if (fifo) expect(out.warnings).toEqual(expect.arrayContaining([expect.stringMatching(/pipe/)]));
  });
});

describe('.gitignore on the first push (review 16)', () => {
  const project = {
    '.gitignore': 'config.local.json\ndist/\nlogs/\n',
    'package.json': JSON.stringify({ name: 'app', main: 'dist/server.js', scripts: { start: 'node dist/server.js' } }),
    'config.local.json': '{"password":"hunter2"}\n',
    'dist/server.js': 'require("http")\n',
    'logs/today.log': 'x\n',
    'index.js': 'i\n',
  };

  it('undecided and no one to ask: the excluded files are named in a warning (dist/, which the app runs, is not among them)', async () => {
    await writeTree(work.dir, project);
    const { report } = await pushOnce(emu, work.dir);
    expect(report.warnings.join('\n')).toMatch(/2 file\(s\) that \.gitignore excludes are pushed \(config\.local\.json, logs\/today\.log\): set "gitignore": true/);
  });

  it('answered "keep them off": nothing .gitignore lists is sent, the answer is saved, and later pushes follow it', async () => {
    await writeTree(work.dir, project);
    let asked: string[] = [];
    const first = (await runPush({ dir: work.dir, env: envFor(emu), apply: false, onGitignored: async (paths) => ((asked = paths), true) })).result;
    expect(first.ok).toBe(true);
    expect(asked).toEqual(['config.local.json', 'logs/today.log']);
    const names = await readdir(emu.volume);
    expect(names).not.toContain('config.local.json');
    expect(names).not.toContain('logs');
    expect(await readFile(path.join(emu.volume, 'dist/server.js'), 'utf8')).toBe('require("http")\n');
    expect(JSON.parse(await readFile(path.join(work.dir, 'hostsync.json'), 'utf8'))).toMatchObject({ gitignore: true });
    await writeTree(work.dir, { 'logs/tomorrow.log': 'y\n', 'config.local.json': '{"password":"changed"}\n' });
    const again = (await runPush({ dir: work.dir, env: envFor(emu), apply: false, onGitignored: async () => { throw new Error('asked twice'); } })).result;
    expect(again.ok).toBe(true);
    expect(await readdir(emu.volume)).not.toContain('logs');
  });

  it('"gitignore": false pushes them without a word', async () => {
    await writeTree(work.dir, { ...project, 'hostsync.json': '{"gitignore": false}' });
    const { report } = await pushOnce(emu, work.dir);
    expect(report.warnings).toEqual([]);
    expect(await readFile(path.join(emu.volume, 'config.local.json'), 'utf8')).toContain('hunter2');
  });
});

describe('init and .gitignore (review 16)', () => {
  it('init asks once whether .gitignore applies and saves the answer', async () => {
    await writeTree(work.dir, { '.gitignore': 'secret.txt\n' });
    let asked = 0;
    const r = (await runInit({ dir: work.dir, env: envFor(emu), askGitignore: async () => (asked++, true) })).result;
    expect(r.ok).toBe(true);
    expect(JSON.parse(await readFile(path.join(work.dir, 'hostsync.json'), 'utf8'))).toMatchObject({ gitignore: true });
    await runInit({ dir: work.dir, env: envFor(emu), askGitignore: async () => (asked++, false) });
    expect(asked).toBe(1);
  });
});
