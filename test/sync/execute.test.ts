/** executePlan against the emulator: what lands, what fails and how, what is not a failure. */
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator, type RunningEmulator } from '../../src/emulator/index.js';
import { ApiError } from '../../src/remote/errors.js';
import { createIgnoreMatcher, DEFAULT_IGNORE_PATTERNS } from '../../src/local/ignore.js';
import { scanTree } from '../../src/local/scan.js';
import { HostingClient } from '../../src/remote/client.js';
import { decide } from '../../src/sync/core/decide.js';
import { executePlan, remoteFolders, type ExecuteOptions } from '../../src/sync/push/execute.js';
import { LazySnapshot } from '../../src/model/lazy-snapshot.js';
import { TreeSnapshot } from '../../src/model/tree-snapshot.js';
import type { Entry } from '../../src/model/types.js';
import { readRemote, readRemoteScope } from '../../src/sync/remote-read/remote-read.js';
import { tempDir, writeTree } from '../helpers/tree.js';
import { testKey } from '../helpers/keys.js';

const READ_ONLY_KEY = testKey('exec_readonly');
let emu: RunningEmulator;
beforeAll(async () => {
  emu = await startEmulator({ rateLimit: 1_000_000, userRateLimit: 1_000_000, keys: [`${READ_ONLY_KEY}:files:read`] });
});
afterAll(async () => {
  await emu?.close();
});

const matcher = createIgnoreMatcher([...DEFAULT_IGNORE_PATTERNS]);

/** A local tree, a deployment holding `remoteFiles`, and the plan a first push (forced) would run. */
async function setup(localFiles: Record<string, string>, remoteFiles: Record<string, string>, { apiKey = emu.apiKey, mirror = false } = {}) {
  const local = await tempDir('hostsync-exec-');
  await writeTree(local.dir, localFiles);
  const dep = await emu.createDeployment({ runtime: 'static' });
  await writeTree(dep.volume, remoteFiles);
  const client = new HostingClient({ baseUrl: emu.baseUrl, apiKey, deploymentId: dep.id });
  const admin = new HostingClient({ baseUrl: emu.baseUrl, apiKey: emu.apiKey, deploymentId: dep.id });
  const remote = await readRemote(admin, matcher, null);
  await admin.close();
  const scan = await scanTree({ root: local.dir, matcher });
  const decision = decide({ base: null, scanned: scan.snapshot, skipped: [], remote, options: { force: true, mirror } });
  const run = (extra: Partial<ExecuteOptions> = {}) => executePlan(decision.plan, { client, root: local.dir, remote: remote.snapshot, ...extra });
  const recheck = (paths: string[]) => readRemoteScope(client, matcher, paths);
  const done = async () => {
    await client.close();
    await local.cleanup();
  };
  return { local, dep, run, done, decision, client, recheck };
}

describe('executePlan: remote edits during the push (the API has no conditional write)', () => {
  it('re-checks right before writing: a file the app changed since the plan read it is held back, the rest is written', async () => {
    const s = await setup({ 'mod.txt': 'mine\n', 'src/new.txt': 'n\n', 'src/other.txt': 'o\n' }, { 'mod.txt': 'theirs\n' });
    try {
      await writeFile(path.join(s.dep.volume, 'mod.txt'), 'the app wrote this\n');
      await mkdir(path.join(s.dep.volume, 'src'));
      await writeFile(path.join(s.dep.volume, 'src/other.txt'), 'created by the app\n');
      const r = await s.run({ recheck: s.recheck });
      expect(r.held.sort()).toEqual(['mod.txt', 'src/other.txt']);
      expect(r.failures).toEqual([]);
      expect(await readFile(path.join(s.dep.volume, 'mod.txt'), 'utf8')).toBe('the app wrote this\n');
      expect(await readFile(path.join(s.dep.volume, 'src/other.txt'), 'utf8')).toBe('created by the app\n');
      expect(await readFile(path.join(s.dep.volume, 'src/new.txt'), 'utf8')).toBe('n\n');
    } finally {
      await s.done();
    }
  });

  it('an edit that lands after the re-check is overwritten but reported, with the files.history version that keeps it', async () => {
    const s = await setup({ 'mod.txt': 'mine\n', 'b.txt': 'b2\n' }, { 'mod.txt': 'theirs\n', 'b.txt': 'b1\n' });
    try {
      // The app writes in the instant between the re-check and the write.
      const r = await s.run({
        recheck: async (paths) => {
          const now = await s.recheck(paths);
          await writeFile(path.join(s.dep.volume, 'mod.txt'), 'the app wrote this late\n');
          return now;
        },
      });
      expect(r.held).toEqual([]);
      expect(r.overwritten).toEqual([{ path: 'mod.txt', versionId: expect.any(String), bytes: 'the app wrote this late\n'.length }]);
      expect(await readFile(path.join(s.dep.volume, 'mod.txt'), 'utf8')).toBe('mine\n');
      await s.client.files.restore('mod.txt', r.overwritten[0]!.versionId);
      expect(await readFile(path.join(s.dep.volume, 'mod.txt'), 'utf8')).toBe('the app wrote this late\n');
    } finally {
      await s.done();
    }
  });
});

describe('executePlan', () => {
  it('writes, overwrites and deletes, counts them, and records the hash of the bytes it sent', async () => {
    const s = await setup({ 'new.txt': 'n\n', 'mod.txt': 'mine\n' }, { 'mod.txt': 'theirs\n', 'old.txt': 'o\n' }, { mirror: true });
    try {
      const r = await s.run();
      expect(r).toMatchObject({ written: 2, deleted: 1, failures: [], outcomeUnknown: false, vanished: [] });
      expect(await readFile(path.join(s.dep.volume, 'mod.txt'), 'utf8')).toBe('mine\n');
      await expect(readFile(path.join(s.dep.volume, 'old.txt'))).rejects.toThrow();
      expect(r.sent.get('new.txt')).toBe(s.decision.local.get('new.txt')!.hash);
    } finally {
      await s.done();
    }
  });

  it('a file gone locally before its send is "vanished", neither sent nor a failure', async () => {
    const s = await setup({ 'a.txt': 'a\n', 'b.txt': 'b\n' }, {});
    try {
      await rm(path.join(s.local.dir, 'b.txt'));
      const r = await s.run();
      expect(r.vanished).toEqual(['b.txt']);
      expect(r.failures).toEqual([]);
      expect(await readFile(path.join(s.dep.volume, 'a.txt'), 'utf8')).toBe('a\n');
    } finally {
      await s.done();
    }
  });

  it('a non-empty remote folder where a file goes is a permanent failure of that path only', async () => {
    const s = await setup({ d: 'a file\n', 'ok.txt': 'ok\n' }, { 'd/theirs.txt': 'keep\n' });
    try {
      const r = await s.run();
      expect(r.failures.map((f) => [f.path, f.permanent])).toEqual([['d', true]]);
      expect(await readFile(path.join(s.dep.volume, 'd/theirs.txt'), 'utf8')).toBe('keep\n');
      expect(await readFile(path.join(s.dep.volume, 'ok.txt'), 'utf8')).toBe('ok\n');
    } finally {
      await s.done();
    }
  });

  it('a key lacking a scope stops the whole run (it would fail every step alike)', async () => {
    const s = await setup({ 'a.txt': 'a\n' }, {}, { apiKey: READ_ONLY_KEY });
    try {
      const err = await s.run().catch((e: unknown) => e);
      expect(err).toBeInstanceOf(ApiError);
      expect((err as ApiError).status).toBe(403);
    } finally {
      await s.done();
    }
  });
});

describe('remoteFolders: which paths of a push are folders on the deployment', () => {
  const entry = (p: string): Entry => ({ path: p, hash: '0123456789abcdef', size: 1, executable: false });
  const paths = ['a.txt', 'd/x.txt', 'd/e/y.txt', 'de.txt', 'f/g.txt'];
  const asked = ['a.txt', 'd', 'd/e', 'de', 'f/g.txt', 'new.txt', 'd'];

  it.each([
    ['a Map', () => new Map(paths.map((p) => [p, entry(p)]))],
    ['a TreeSnapshot', () => new TreeSnapshot(paths.map((p) => [p, entry(p)]))],
    ['a LazySnapshot', () => new LazySnapshot(paths.length, () => paths.map(entry))],
  ])('in %s: the folders, each once, in the order asked', (_kind, make) => {
    expect(remoteFolders(make(), asked)).toEqual(['d', 'd/e']);
  });

  it('paths the deployment holds files at need no pass over its paths (a remote kept unmade stays so)', () => {
    const files = new Map(paths.map((p) => [p, entry(p)]));
    const lazy = new LazySnapshot(paths.length, () => paths.map(entry), null, (k) => files.get(k));
    expect(remoteFolders(lazy, ['a.txt', 'd/e/y.txt'])).toEqual([]);
    expect(lazy.lazy).toBe(true);
    expect(remoteFolders(lazy, ['d'])).toEqual(['d']);
    expect(lazy.lazy).toBe(false);
  });
});
