import { randomBytes } from 'node:crypto';
import { chmod, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startEmulator, type RunningEmulator } from '../../src/emulator/index.js';
import { fileDigests, tempDir, writeTree } from '../helpers/tree.js';
import { runCli } from '../helpers/cli.js';
import { envFor } from '../helpers/push.js';
import { push } from '../../src/app/push.js';
import { pull } from '../../src/app/pull.js';
import { diff } from '../../src/app/diff.js';
import { resolve } from '../../src/app/resolve.js';

let emu: RunningEmulator;
let work: { dir: string; cleanup: () => Promise<void> };
const env = () => envFor(emu);
const cli = (...args: string[]) => runCli([...args, '--dir', work.dir], env());
/**
 * A command run in-process through the library (the same result objects `--json` prints;
 * spawning the CLI for every step would make this file slow on a busy machine). The CLI's
 * own parsing and rendering are covered by the tests that use `cli`.
 */
const json = async (command: string, ...args: string[]): Promise<{ code: number; out: any }> => {
  const paths = args.filter((a) => !a.startsWith('--'));
  const has = (f: string) => args.includes(f);
  const base = { dir: work.dir, env: env(), paths, cwd: work.dir };
  const result: { exitCode?: number } =
    command === 'push' ? await push({ dir: work.dir, env: env(), apply: !has('--no-apply'), force: has('--force') })
    : command === 'pull' ? await pull({ ...base, force: has('--force'), dryRun: has('--dry-run') })
    : command === 'diff' ? await diff(base)
    : await resolve({ ...base, side: has('--ours') ? 'ours' : 'theirs' });
  return { code: result.exitCode ?? 0, out: result };
};
const local = (rel: string) => readFile(path.join(work.dir, rel), 'utf8');
const remote = (rel: string) => readFile(path.join(emu.volume, rel), 'utf8');
const skipState = (rel: string) => rel === '.hostsync';

beforeAll(async () => {
  emu = await startEmulator({});
});
afterAll(async () => {
  await emu?.close();
});
beforeEach(async () => {
  work = await tempDir('hostsync-two-way-');
  for (const name of await readdir(emu.volume)) await rm(path.join(emu.volume, name), { recursive: true, force: true });
});
afterEach(async () => {
  await work.cleanup();
});

describe('diff and pull round trip', () => {
  it('a remote edit shows in diff, pull takes it, and the next push costs one request', async () => {
    await writeTree(work.dir, { 'app.js': 'one\ntwo\nthree\n', 'keep.txt': 'k\n' });
    expect((await json('push', '--no-apply')).code).toBe(0);
    await writeFile(path.join(emu.volume, 'app.js'), 'one\nTWO\nthree\n');

    const d = await json('diff');
    expect(d.code).toBe(0);
    expect(d.out.files).toHaveLength(1);
    expect(d.out.files[0]).toMatchObject({ path: 'app.js', side: 'remote', change: 'modified', added: 1, removed: 1, binary: false });
    expect(d.out.files[0].patch).toContain('-TWO\n+two');
    expect(d.out.requests.total).toBeGreaterThan(0);
    const human = await cli('diff');
    expect(human.code).toBe(0);
    expect(human.stdout).toContain('+++ local/app.js');

    const p = await json('pull');
    expect(p.code).toBe(0);
    expect(p.out.fetched).toEqual(['app.js']);
    expect(await local('app.js')).toBe('one\nTWO\nthree\n');

    const push = await json('push', '--no-apply');
    expect(push.code).toBe(0);
    expect(push.out.planned).toEqual([]);
    expect(push.out.requests.total).toBe(1);
  });

  it('a remote-only file comes down; an ignored one only when named, and stays out of push', async () => {
    await writeTree(work.dir, { 'app.js': 'x\n', '.syncignore': 'data/\n' });
    expect((await json('push', '--no-apply')).code).toBe(0);
    await writeTree(emu.volume, { 'uploads/new.txt': 'uploaded\n', 'data/db.json': '{"n":1}\n' });

    const p = await json('pull');
    expect(p.code).toBe(0);
    expect(p.out.fetched).toEqual(['uploads/new.txt']);
    expect(await local('uploads/new.txt')).toBe('uploaded\n');
    await expect(stat(path.join(work.dir, 'data/db.json'))).rejects.toThrow();

    const named = await json('pull', 'data/db.json');
    expect(named.code).toBe(0);
    expect(named.out.fetched).toEqual(['data/db.json']);
    expect(await local('data/db.json')).toBe('{"n":1}\n');
    // A named path costs one scoped index and one read, not a walk of the remote.
    expect(named.out.requests.byOperation['files.index']).toBe(1);
    expect(named.out.requests.total).toBeLessThanOrEqual(3);

    const push = await json('push', '--no-apply');
    expect(push.out.planned).toEqual([]);
    expect(push.out.requests.total).toBe(1);
  });

  it('refuses a pull over a local edit (exit 3) and leaves the edit; --force takes the remote', async () => {
    await writeTree(work.dir, { 'a.txt': 'a1\n', 'b.txt': 'b1\n' });
    expect((await json('push', '--no-apply')).code).toBe(0);
    await writeTree(emu.volume, { 'a.txt': 'remote\n', 'b.txt': 'b-remote\n' });
    await writeTree(work.dir, { 'a.txt': 'mine\n' });

    const p = await json('pull');
    expect(p.code).toBe(3);
    expect(p.out.conflicts).toEqual([{ path: 'a.txt', reason: 'both-modified' }]);
    expect(p.out.error).toMatch(/resolve/);
    expect(await local('a.txt')).toBe('mine\n');
    // The rest still comes down.
    expect(await local('b.txt')).toBe('b-remote\n');

    const status = await cli('status');
    expect(status.stdout).toMatch(/resolve PATH --theirs/);
    expect(status.stdout).toMatch(/resolve PATH --ours/);

    const forced = await json('pull', '--force');
    expect(forced.code).toBe(0);
    expect(await local('a.txt')).toBe('remote\n');
  });

  it('resolve --theirs converges', async () => {
    await writeTree(work.dir, { 'a.txt': 'a1\n' });
    expect((await json('push', '--no-apply')).code).toBe(0);
    await writeTree(emu.volume, { 'a.txt': 'remote\n' });
    await writeTree(work.dir, { 'a.txt': 'mine\n' });
    expect((await json('push', '--no-apply')).code).toBe(3);

    const r = await json('resolve', 'a.txt', '--theirs');
    expect(r.code).toBe(0);
    expect(r.out.settled).toEqual(['a.txt']);
    expect(await local('a.txt')).toBe('remote\n');
    const push = await json('push', '--no-apply');
    expect(push.code).toBe(0);
    expect(push.out.planned).toEqual([]);
    expect(await fileDigests(work.dir, skipState)).toEqual(await fileDigests(emu.volume, skipState));
  });

  it('resolve --ours converges: the next push writes the local file without --force', async () => {
    await writeTree(work.dir, { 'a.txt': 'a1\n', 'gone.txt': 'g\n' });
    expect((await json('push', '--no-apply')).code).toBe(0);
    await writeTree(emu.volume, { 'a.txt': 'remote\n', 'gone.txt': 'remote g\n' });
    await writeTree(work.dir, { 'a.txt': 'mine\n' });
    await rm(path.join(work.dir, 'gone.txt'));
    expect((await json('push', '--no-apply')).code).toBe(3);

    const r = await json('resolve', 'a.txt', 'gone.txt', '--ours');
    expect(r.code).toBe(0);
    expect(r.out.settled).toEqual(['a.txt', 'gone.txt']);
    expect(await remote('a.txt')).toBe('remote\n');

    const push = await json('push', '--no-apply');
    expect(push.code).toBe(0);
    expect(push.out.conflicts).toEqual([]);
    expect(await remote('a.txt')).toBe('mine\n');
    expect(await fileDigests(work.dir, skipState)).toEqual(await fileDigests(emu.volume, skipState));
  });

  it('a binary file of several MB pulls byte-identical, with its executable bit', async () => {
    await writeTree(work.dir, { 'app.js': 'x\n' });
    expect((await json('push', '--no-apply')).code).toBe(0);
    const blob = randomBytes(6 * 1024 * 1024);
    await writeTree(emu.volume, { 'bin/tool': blob });
    await chmod(path.join(emu.volume, 'bin/tool'), 0o755);

    const d = await json('diff', 'bin');
    expect(d.out.files).toMatchObject([{ path: 'bin/tool', side: 'remote-only', binary: true }]);

    const p = await json('pull');
    expect(p.code).toBe(0);
    expect(p.out.fetched).toEqual(['bin/tool']);
    expect((await readFile(path.join(work.dir, 'bin/tool'))).equals(blob)).toBe(true);
    expect((await stat(path.join(work.dir, 'bin/tool'))).mode & 0o111).not.toBe(0);
    const push = await json('push', '--no-apply');
    expect(push.out.planned).toEqual([]);
    expect(push.out.requests.total).toBe(1);
  });

  it('pull keeps a local file\'s own mode bits and removes a file the deployment deleted', async () => {
    await writeTree(work.dir, { 'secret.cfg': 's1\n', 'old.txt': 'o\n' });
    await chmod(path.join(work.dir, 'secret.cfg'), 0o600);
    expect((await json('push', '--no-apply')).code).toBe(0);
    await writeTree(emu.volume, { 'secret.cfg': 's2\n' });
    await rm(path.join(emu.volume, 'old.txt'));

    const p = await json('pull', '--dry-run');
    expect(p.out.fetched).toEqual(['secret.cfg']);
    expect(p.out.removed).toEqual(['old.txt']);
    expect(await local('secret.cfg')).toBe('s1\n');

    expect((await json('pull')).code).toBe(0);
    expect(await local('secret.cfg')).toBe('s2\n');
    expect((await stat(path.join(work.dir, 'secret.cfg'))).mode & 0o777).toBe(0o600);
    await expect(stat(path.join(work.dir, 'old.txt'))).rejects.toThrow();
  });
});
