import { randomBytes } from 'node:crypto';
import { chmod, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startEmulator, type RunningEmulator } from '../../src/emulator/index.js';
import { fileDigests, tempDir, writeTree } from '../helpers/tree.js';
import { runCli } from '../helpers/cli.js';
import { envFor } from '../helpers/push.js';
import { push } from '../../src/app/push.js';
import { status } from '../../src/app/status.js';
import { undo } from '../../src/app/undo.js';
import { history } from '../../src/app/history.js';
import { watch } from '../../src/app/watch.js';

let emu: RunningEmulator;
let work: { dir: string; cleanup: () => Promise<void> };
const env = () => envFor(emu);
const cli = (...args: string[]) => runCli([...args, '--dir', work.dir], env());
const conn = () => ({ dir: work.dir, env: env() });
const pushed = async (opts: { force?: boolean; mirror?: boolean; backup?: boolean } = {}) => {
  const r = await push({ ...conn(), apply: false, ...opts });
  expect(r.error).toBeUndefined();
  return r;
};
/** The volume as a user sees it: hostsync's own `.hostsync/` (the copies) left out. */
const remoteTree = () => fileDigests(emu.volume, (rel) => rel === '.hostsync');
const localTree = () => fileDigests(work.dir, (rel) => rel === '.hostsync');
const remote = (rel: string) => readFile(path.join(emu.volume, rel), 'utf8');

beforeAll(async () => {
  emu = await startEmulator({});
});
afterAll(async () => {
  await emu?.close();
});
beforeEach(async () => {
  work = await tempDir('hostsync-undo-');
  for (const name of await readdir(emu.volume)) await rm(path.join(emu.volume, name), { recursive: true, force: true });
});
afterEach(async () => {
  await work.cleanup();
});

describe('undo', () => {
  it('takes back a push that edited, deleted, added, renamed and chmod-ed: the remote is byte-identical to before, local untouched', async () => {
    await writeTree(work.dir, {
      'app.js': 'console.log(1)\n',
      'gone.txt': 'to be deleted\n',
      'docs/old-name.md': 'a file that moves, long enough to be worth a rename on the wire '.repeat(40),
      'run.sh': 'echo hi\n',
      'keep.txt': 'untouched\n',
    });
    await pushed();
    const before = await remoteTree();

    await writeTree(work.dir, { 'app.js': 'console.log(2)\n', 'new/added.txt': 'brand new\n' });
    await rm(path.join(work.dir, 'gone.txt'));
    const moved = await readFile(path.join(work.dir, 'docs/old-name.md'));
    await rm(path.join(work.dir, 'docs/old-name.md'));
    await writeTree(work.dir, { 'docs/new-name.md': moved });
    await chmod(path.join(work.dir, 'run.sh'), 0o755);
    const p = await pushed();
    expect(p.changes).toMatchObject({ written: 2, deleted: 1, moved: 1, chmod: 1 });
    const localAfterPush = await localTree();
    expect(await remoteTree()).toEqual(localAfterPush);

    const dry = await undo({ ...conn(), dryRun: true, apply: false });
    expect(dry.ok).toBe(true);
    expect(dry.undone[0]).toMatchObject({ restored: ['app.js', 'gone.txt'], deleted: ['new/added.txt'], movedBack: [{ from: 'docs/new-name.md', to: 'docs/old-name.md' }] });
    expect(await remoteTree()).toEqual(localAfterPush);

    const u = await undo({ ...conn(), apply: false });
    expect(u.error).toBeUndefined();
    expect(u.counts).toMatchObject({ restored: 2, deleted: 1, moved: 1 });
    expect(u.requests.total).toBeGreaterThan(0);
    expect(await remoteTree()).toEqual(before);
    // Never touches the local tree: the edits are still here, and status offers them again.
    expect(await localTree()).toEqual(localAfterPush);
    const s = await status(conn());
    expect(s.changes.length).toBeGreaterThan(0);
    expect(s.conflicts).toEqual([]);
    // Pushing again lands them again.
    await pushed();
    expect(await remoteTree()).toEqual(localAfterPush);
  });

  it('is refused (exit 3) after a remote edit, which stays intact; nothing else is touched', async () => {
    await writeTree(work.dir, { 'a.txt': 'a1\n', 'b.txt': 'b1\n' });
    await pushed();
    await writeTree(work.dir, { 'a.txt': 'a2\n', 'b.txt': 'b2\n' });
    await pushed();
    await writeFile(path.join(emu.volume, 'a.txt'), 'hot-fix on the server\n');

    const u = await undo({ ...conn(), apply: false });
    expect(u.exitCode).toBe(3);
    expect(u.error).toMatch(/a\.txt \(modified\)/);
    expect(await remote('a.txt')).toBe('hot-fix on the server\n');
    expect(await remote('b.txt')).toBe('b2\n');
    const human = await cli('undo', '--no-apply');
    expect(human.code).toBe(3);
    expect(human.stderr).toMatch(/changed since the push/);
  });

  it('twice goes back two pushes, each restoring the right version of a file edited in both', async () => {
    await writeTree(work.dir, { 'v.txt': 'version 1\n' });
    await pushed();
    // Same sizes on purpose: the version is found by when the push saved it, not by size alone.
    await writeTree(work.dir, { 'v.txt': 'version 2\n' });
    await pushed();
    await writeTree(work.dir, { 'v.txt': 'version 3\n', 'extra.txt': 'x\n' });
    await pushed();

    const h = await history(conn());
    expect(h.pushes.map((p) => p.state)).toEqual(['done', 'done', 'done']);
    expect([...h.pushes[0]!.paths].sort()).toEqual(['extra.txt', 'v.txt']);

    expect((await undo({ ...conn(), apply: false })).error).toBeUndefined();
    expect(await remote('v.txt')).toBe('version 2\n');
    expect((await undo({ ...conn(), apply: false })).error).toBeUndefined();
    expect(await remote('v.txt')).toBe('version 1\n');
    await expect(readFile(path.join(emu.volume, 'extra.txt'))).rejects.toThrow();
    const after = await history(conn());
    expect(after.pushes.map((p) => p.state)).toEqual(['undone', 'undone', 'done']);

    const listed = await cli('history', '--local');
    expect(listed.code).toBe(0);
    expect(listed.stdout).toMatch(/undone/);
    expect(listed.stdout).toMatch(/undo 1/);
  });

  it('--steps 2 takes back two pushes in one go', async () => {
    await writeTree(work.dir, { 'v.txt': 'one\n' });
    await pushed();
    await writeTree(work.dir, { 'v.txt': 'two\n' });
    await pushed();
    await writeTree(work.dir, { 'v.txt': 'three!\n' });
    await pushed();
    const u = await undo({ ...conn(), steps: 2, apply: false });
    expect(u.error).toBeUndefined();
    expect(u.undone).toHaveLength(2);
    expect(await remote('v.txt')).toBe('one\n');
  });

  it('a binary file an upload overwrote comes back from the undo copy', async () => {
    const v1 = randomBytes(300 * 1024);
    await writeTree(work.dir, { 'img/photo.bin': v1, 'index.html': '<p>hi</p>\n' });
    await pushed();
    await writeTree(work.dir, { 'img/photo.bin': randomBytes(200 * 1024) });
    await pushed();
    const h = await history(conn());
    expect(h.pushes[0]!.copies).toMatchObject([{ kind: 'undo', paths: ['img/photo.bin'] }]);

    expect((await undo({ ...conn(), apply: false })).error).toBeUndefined();
    expect((await readFile(path.join(emu.volume, 'img/photo.bin'))).equals(v1)).toBe(true);
  });

  it('with nothing pushed, refuses (exit 3)', async () => {
    await writeTree(work.dir, { 'a.txt': 'a\n' });
    const u = await undo({ ...conn(), apply: false });
    expect(u.exitCode).toBe(3);
    expect(u.error).toMatch(/no push to undo/);
  });
});

/**
 * The enclosing describe runs on an emulator of its own: the tests of the first block spend
 * about 115 of the key's 120 requests a minute, and the shared budget ledger rightly holds
 * the next requests until the window slides.
 */
function withOwnEmulator(): void {
  let outer: RunningEmulator;
  beforeAll(async () => {
    outer = emu;
    emu = await startEmulator({});
  });
  afterAll(async () => {
    await emu.close();
    emu = outer;
  });
}

describe('undo of a watch cycle', () => {
  // The daemon paces itself against the budget ledger: after the tests above it waited for
  // the window to slide (a 60 s timeout in a loaded full run).
  withOwnEmulator();

  it('takes back a watch cycle', async () => {
    await writeTree(work.dir, { 'a.txt': 'a1\n' });
    await pushed();
    const w = watch({ ...conn(), apply: false });
    try {
      // The start cycle finds nothing to send; the edit's cycle sends it.
      const sent = new Promise<void>((resolve) => w.on('cycle', (e) => e.changes.written > 0 && resolve()));
      await new Promise<void>((resolve) => w.on('ready', () => resolve()));
      await writeFile(path.join(work.dir, 'a.txt'), 'a2 from watch\n');
      await sent;
    } finally {
      await w.stop();
    }
    expect(await remote('a.txt')).toBe('a2 from watch\n');
    const u = await undo({ ...conn(), apply: false });
    expect(u.error).toBeUndefined();
    expect(u.undone[0]!.restored).toEqual(['a.txt']);
    expect(await remote('a.txt')).toBe('a1\n');
  });
});

describe('safety copy before a destructive push', () => {
  withOwnEmulator();

  it('--force keeps a copy of the remote edit it overwrites, prints its path, and undo brings the edit back', async () => {
    await writeTree(work.dir, { 'a.txt': 'a1\n', 'b.txt': 'b1\n' });
    await pushed();
    await writeFile(path.join(emu.volume, 'a.txt'), 'edited on the server\n');
    await writeTree(work.dir, { 'a.txt': 'mine\n' });

    const human = await cli('push', '--force', '--no-apply');
    expect(human.code).toBe(0);
    const m = /safety copy of 1 file: (\.hostsync\/backups\/\S+\.tar\.gz)/.exec(human.stdout);
    expect(m).not.toBeNull();
    expect(await remote('a.txt')).toBe('mine\n');
    const h = await history(conn());
    expect(h.pushes[0]!.copies).toEqual([{ kind: 'safety', archive: m![1], paths: ['a.txt'] }]);

    expect((await undo({ ...conn(), apply: false })).error).toBeUndefined();
    expect(await remote('a.txt')).toBe('edited on the server\n');
  });

  it('--mirror keeps a copy of the remote-only files it deletes; --no-backup takes none', async () => {
    await writeTree(work.dir, { 'a.txt': 'a\n' });
    await pushed();
    await writeTree(emu.volume, { 'uploads/u1.txt': 'user upload\n' });

    const p = await pushed({ mirror: true });
    expect(p.backup).toMatchObject({ paths: ['uploads/u1.txt'] });
    expect((await undo({ ...conn(), apply: false })).error).toBeUndefined();
    expect(await remote('uploads/u1.txt')).toBe('user upload\n');

    const bare = await pushed({ mirror: true, backup: false });
    expect(bare.backup).toBeNull();
    await expect(readFile(path.join(emu.volume, 'uploads/u1.txt'))).rejects.toThrow();
  });
});
