/**
 * Issue 48: every push is a version. `history` lists the deployment's pushes from every
 * machine (the base record), and `rollback <id>` puts the files back to what they were right
 * after one of them, from any machine, through files.history/files.restore.
 */
import { copyFile, mkdir, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import type { RunningEmulator } from '../../src/emulator/index.js';
import { emulatorPerFile } from '../helpers/emulator.js';

import { runCli } from '../helpers/cli.js';
import { envFor } from '../helpers/push.js';
import { clone, commit, repo } from '../helpers/git.js';

const { current, dataDir } = emulatorPerFile();
let emu: RunningEmulator;
beforeEach(() => {
  emu = current();
});

const PROJECT = {
  'hostsync.json': JSON.stringify({ remoteOwned: ['data/'] }),
  'index.html': '<h1>hi</h1>\n',
  'src/app.js': 'console.log(1)\n',
  'package.json': '{"name":"site"}\n',
};

const cli = (dir: string, ...args: string[]) => runCli([...args, '--dir', dir], { ...envFor(emu), CI: 'true' });
const json = async (dir: string, ...args: string[]) => {
  const r = await cli(dir, ...args, '--json');
  return { code: r.code, out: JSON.parse(r.stdout) as Record<string, any>, raw: r.stdout + r.stderr };
};
const onDeployment = (rel: string) => readFile(path.join(emu.volume, rel), 'utf8');

/** Machine one (a laptop) pushes the first commit; machine two (a fresh clone) changes app.js, adds new.js and pushes. */
async function twoPushes(): Promise<{ laptop: string; ci: string; first: string; second: string }> {
  const laptop = (await repo('laptop', PROJECT, '2026-11-01T10:00:00Z')).dir;
  expect((await cli(laptop, 'push', '--no-apply')).code).toBe(0);
  const ci = clone(laptop, 'ci');
  await commit(ci, { 'src/app.js': 'console.log("two")\n', 'src/new.js': 'export {}\n' }, 'Second: a new module\n\nbody', '2026-11-02T10:00:00Z');
  const pushed = await cli(ci, 'push', '--no-apply');
  expect(pushed.code, pushed.stdout + pushed.stderr).toBe(0);
  const third = clone(laptop, 'third');
  const h = await json(third, 'history');
  expect(h.code, h.raw).toBe(0);
  const [second, first] = h.out.batches as Array<Record<string, any>>;
  return { laptop, ci, first: first!.id, second: second!.id };
}

describe('history from any machine', () => {
  it('a third machine (a fresh clone) lists both pushes, newest first, with who and the commit subject; history <id> shows the paths', async () => {
    const { first, second } = await twoPushes();
    const third = clone((await repo('x', PROJECT, '2026-11-01T10:00:00Z')).dir, 'third');
    const h = await json(third, 'history');
    expect(h.out.batches).toHaveLength(2);
    expect(h.out.batches[0], JSON.stringify(h.out.batches[0])).toMatchObject({ id: second, kind: 'push', files: 2, git: { subject: 'Second: a new module', clean: true } });
    expect(h.out.batches[1], JSON.stringify(h.out.batches[1])).toMatchObject({ id: first, kind: 'snapshot', git: { subject: 'first' } });
    // One index listing only the record, one read of it: whatever the tree's size.
    expect(h.out.requests.total).toBe(2);
    const one = await json(third, 'history', second.slice(0, 6));
    expect(one.code).toBe(0);
    expect(one.out.batch.paths.map((p: { path: string }) => p.path)).toEqual(['src/app.js', 'src/new.js']);
    expect(one.out.batch.paths[1].before).toBeNull();
    const human = await cli(third, 'history');
    expect(human.stdout).toContain(second.slice(0, 8));
    expect(human.stdout).toContain('Second: a new module');
  });
});

describe('rollback', () => {
  it('a third machine rolls back to the first push: app.js restored, new.js deleted, app data untouched; recorded, listed, and undone', async () => {
    const { ci, first } = await twoPushes();
    await mkdir(path.join(emu.volume, 'data'), { recursive: true });
    await writeFile(path.join(emu.volume, 'data/db.json'), '{"users":3}\n');
    const third = clone(ci, 'third');
    const dry = await json(third, 'rollback', first, '--dry-run');
    expect(dry.code, dry.raw).toBe(0);
    expect(dry.out).toMatchObject({ dryRun: true, restored: ['src/app.js'], deleted: ['src/new.js'], conflicts: [], missing: [] });
    // files.history + files.restore for app.js, one delete, the record's edit, the verifying index.
    expect(dry.out.plannedRequests).toBe(5);
    expect(await onDeployment('src/app.js')).toBe('console.log("two")\n');

    const r = await json(third, 'rollback', first, '--no-apply');
    expect(r.code, r.raw).toBe(0);
    expect(r.out.counts).toEqual({ restored: 1, deleted: 1, chmod: 0 });
    expect(await onDeployment('src/app.js')).toBe('console.log(1)\n');
    await expect(onDeployment('src/new.js')).rejects.toThrow();
    expect(await onDeployment('data/db.json')).toBe('{"users":3}\n');

    const h = await json(third, 'history');
    expect(h.out.batches[0]).toMatchObject({ kind: 'rollback', to: first, id: r.out.batchId });

    // The copy that pushed the second commit: its files read as ahead of the deployment, not as a change to pull.
    const st = await json(ci, 'status');
    expect(st.out.conflicts, st.raw).toEqual([]);
    expect(st.out.changes.map((c: { path: string }) => c.path).sort(), st.raw).toEqual(['src/app.js', 'src/new.js']);
    // ...and status says why, and the two ways on.
    expect(st.out.rolledBack).toMatchObject({ to: first });
    const said = await cli(ci, 'status');
    expect(said.stdout).toContain(`The deployment was rolled back to ${first}`);
    expect(said.stdout).toContain('push to deploy this copy again, or pull --force to take the rollback');

    // undo (on the machine that rolled back) takes the rollback back.
    const u = await json(third, 'undo', '--no-apply');
    expect(u.code, u.raw).toBe(0);
    expect(await onDeployment('src/app.js')).toBe('console.log("two")\n');
    expect(await onDeployment('src/new.js')).toBe('export {}\n');
    expect(await onDeployment('data/db.json')).toBe('{"users":3}\n');
  });

  it('a file edited on the deployment since is a conflict: exit 3 naming it, nothing changed; --force rolls back anyway', async () => {
    const { first } = await twoPushes();
    await writeFile(path.join(emu.volume, 'src/app.js'), 'hotfix by hand\n');
    const third = clone((await repo('y', PROJECT, '2026-11-01T10:00:00Z')).dir, 'third');
    const r = await json(third, 'rollback', first, '--no-apply');
    expect(r.code).toBe(3);
    expect(r.out.error).toContain('src/app.js');
    expect(r.out.conflicts).toEqual([{ path: 'src/app.js', why: expect.stringContaining('changed on the deployment') }]);
    expect(await onDeployment('src/app.js')).toBe('hotfix by hand\n');
    expect(await onDeployment('src/new.js')).toBe('export {}\n');
    const forced = await json(third, 'rollback', first, '--no-apply', '--force');
    expect(forced.code, forced.raw).toBe(0);
    expect(await onDeployment('src/app.js')).toBe('console.log(1)\n');
  });

  it('a version no longer in the deployment\'s file history refuses the whole rollback before anything changes', async () => {
    const { first } = await twoPushes();
    // The service dropped every saved version (its history keeps the latest ones only).
    await rm(path.join(dataDir(), 'history', emu.deploymentId), { recursive: true, force: true });
    const third = clone((await repo('z', PROJECT, '2026-11-01T10:00:00Z')).dir, 'third');
    const r = await json(third, 'rollback', first, '--no-apply');
    expect(r.code).toBe(3);
    expect(r.out.missing).toEqual(['src/app.js']);
    expect(r.out.error).toContain('changed nothing');
    expect(await onDeployment('src/app.js')).toBe('console.log("two")\n');
    expect(await onDeployment('src/new.js')).toBe('export {}\n');
    const h = await json(third, 'history');
    expect(h.out.batches[0].kind).toBe('push');
  });
});

/** Bytes the planner sends by upload (binary: never writeMany), so files.history keeps no version of what they replace. */
const bin = (s: string) => `\u0000BIN\u0000${s}\u0000`;

/**
 * The laptop pushes logo.bin (one), then overwrites it by upload (two: the push takes its undo
 * copy of one, named in the record); a CI clone overwrites it again (three) and changes app.js.
 */
async function uploadPushes(): Promise<{ first: string; ci: string }> {
  const laptop = (await repo('laptop', { ...PROJECT, 'logo.bin': bin('one') }, '2026-11-01T10:00:00Z')).dir;
  expect((await cli(laptop, 'push', '--no-apply')).code).toBe(0);
  await commit(laptop, { 'logo.bin': bin('two, longer') }, 'Second logo', '2026-11-02T10:00:00Z');
  const second = await json(laptop, 'push', '--no-apply');
  expect(second.code, second.raw).toBe(0);
  // Sent by upload, after the undo copy of what it replaced.
  expect(second.out.requests.byOperation, second.raw).toMatchObject({ 'files.uploadUrl': 1, 'files.compress': 1 });
  const ci = clone(laptop, 'ci');
  await commit(ci, { 'logo.bin': bin('three, longer still'), 'src/app.js': 'console.log("two")\n' }, 'Third logo', '2026-11-03T10:00:00Z');
  const third = await cli(ci, 'push', '--no-apply');
  expect(third.code, third.stdout + third.stderr).toBe(0);
  const h = await json(clone(laptop, 'reader'), 'history');
  return { first: (h.out.batches as Array<{ id: string }>).at(-1)!.id, ci };
}

const recordFile = async () => path.join(emu.volume, '.hostsync', (await readdir(path.join(emu.volume, '.hostsync'))).find((n) => n.endsWith('.rec'))!);
const recordText = async () => readFile(await recordFile(), 'utf8');

/** The copy folders on the deployment, each with what it holds. */
async function copies(): Promise<Record<string, string[]>> {
  const root = path.join(emu.volume, '.hostsync/backups');
  const out: Record<string, string[]> = {};
  for (const d of await readdir(root).catch(() => [])) out[d] = (await readdir(path.join(root, d))).sort();
  return out;
}

describe('rollback of a file an upload overwrote (no files.history version)', () => {
  it('a third machine brings it back from the undo copy the later push named in the record; the copy stays; dry run counts it', async () => {
    const { first } = await uploadPushes();
    const before = await copies();
    // One copy per overwriting push (laptop: one; CI: two), each a single archive.
    expect(Object.values(before).map((f) => f.length)).toEqual([1, 1]);
    const third = clone((await repo('t', PROJECT, '2026-11-01T10:00:00Z')).dir, 'third');
    const dry = await json(third, 'rollback', first, '--dry-run');
    expect(dry.code, dry.raw).toBe(0);
    expect(dry.out.restored).toEqual(['logo.bin', 'src/app.js']);
    expect(dry.out.missing).toEqual([]);
    expect(dry.out.fromCopy).toEqual([{ path: 'logo.bin', archive: expect.stringMatching(/^\.hostsync\/backups\/[0-9a-f]{32}\/archive-[^/]+\.tar\.gz$/) }]);
    // app.js: history + restore (2); logo.bin: history, list, decompress, index, delete, move, clean-up (7); the record's edit and the verifying index (2).
    expect(dry.out.plannedRequests).toBe(11);
    const human = await cli(third, 'rollback', first, '--dry-run');
    expect(human.stdout).toContain('brought back from the copy .hostsync/backups/');
    expect(await onDeployment('logo.bin')).toBe(bin('three, longer still'));

    const r = await json(third, 'rollback', first, '--no-apply');
    expect(r.code, r.raw).toBe(0);
    expect(r.out.counts).toEqual({ restored: 2, deleted: 0, chmod: 0 });
    expect(r.out.failures).toEqual([]);
    expect(await onDeployment('logo.bin')).toBe(bin('one'));
    expect(await onDeployment('src/app.js')).toBe('console.log(1)\n');
    // The copy is still there, and nothing it unpacked is left beside it.
    expect(await copies()).toEqual(before);
    // The laptop's copy, not CI's: the first later push is the one that replaced it.
    const headers = (await recordText()).split('\n').filter((l) => l.startsWith('B ')).map((l) => JSON.parse(l.slice(2)) as { kind: string; dir: string; copy?: string }).filter((h) => h.kind === 'push');
    expect(headers.map((h) => h.copy !== undefined)).toEqual([true, true]);
    expect(r.out.fromCopy[0].archive.startsWith(`${headers.find((h) => h.dir.startsWith('laptop'))!.copy}/`)).toBe(true);
    expect(r.out.requests.byOperation, r.raw).toMatchObject({ 'files.list': 1, 'files.decompress': 1, 'files.move': 1, 'files.restore': 1, 'files.delete': 2 });
  });

  it('a record whose header names a copy outside .hostsync/backups/ is not followed: the file is refused, nothing changes', async () => {
    const { first } = await uploadPushes();
    const recPath = await recordFile();
    const text = await readFile(recPath, 'utf8');
    // The laptop's copy, moved where the forged header points (a folder the app could write).
    const laptopFolder = /"copy":"(\.hostsync\/backups\/[0-9a-f]{32})"/.exec(text)![1]!;
    const [archive] = await readdir(path.join(emu.volume, laptopFolder));
    await mkdir(path.join(emu.volume, '.hostsync/stash'), { recursive: true });
    await copyFile(path.join(emu.volume, laptopFolder, archive!), path.join(emu.volume, '.hostsync/stash', archive!));
    await writeFile(recPath, text.replace(`"copy":"${laptopFolder}"`, '"copy":".hostsync/stash"'));
    const third = clone((await repo('t', PROJECT, '2026-11-01T10:00:00Z')).dir, 'third');
    const r = await json(third, 'rollback', first, '--no-apply');
    expect(r.code, r.raw).toBe(3);
    expect(r.out.missing).toEqual(['logo.bin']);
    expect(r.out.missingReasons[0].why).toContain('outside .hostsync/backups/');
    expect(r.out.error).toContain('logo.bin');
    expect(await onDeployment('logo.bin')).toBe(bin('three, longer still'));
    expect(await onDeployment('src/app.js')).toBe('console.log("two")\n');
  });
});
