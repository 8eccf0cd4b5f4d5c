/**
 * Windows and macOS file semantics, simulated on Linux through HOSTSYNC_FS (issue 33):
 * the same switch a user reporting a bug would set.
 */
import { chmod, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startEmulator, type RunningEmulator } from '../../src/emulator/index.js';
import { tempDir, writeTree } from '../helpers/tree.js';
import { runCli } from '../helpers/cli.js';
import { envFor, pushOnce } from '../helpers/push.js';
import { push } from '../../src/app/push.js';
import { pull } from '../../src/app/pull.js';
import { status } from '../../src/app/status.js';
import { diff } from '../../src/app/diff.js';
import { lineEndingsNote } from '../../src/sync/two-way/line-endings.js';

let emu: RunningEmulator;
let work: { dir: string; cleanup: () => Promise<void> };

const NFC = 'caf\u00e9.txt';
const NFD = 'cafe\u0301.txt';

const env = (fs?: string) => ({ ...envFor(emu), ...(fs ? { HOSTSYNC_FS: fs } : {}) });
const pushWith = (fs?: string) => push({ dir: work.dir, env: env(fs), apply: false }) as Promise<any>;
const pullWith = (fs?: string, extra: { dryRun?: boolean } = {}) =>
  pull({ dir: work.dir, env: env(fs), paths: [], cwd: work.dir, ...extra }) as Promise<any>;
const remoteNames = async () => (await readdir(emu.volume)).filter((n) => n !== '.hostsync').sort();
const localNames = async () => (await readdir(work.dir)).filter((n) => n !== '.hostsync').sort();
const isExec = async (abs: string) => ((await stat(abs)).mode & 0o111) !== 0;

beforeAll(async () => {
  emu = await startEmulator({});
});
afterAll(async () => {
  await emu?.close();
});
beforeEach(async () => {
  work = await tempDir('hostsync-platforms-');
  for (const name of await readdir(emu.volume)) await rm(path.join(emu.volume, name), { recursive: true, force: true });
});
afterEach(async () => {
  await work.cleanup();
});

describe('Unicode normalisation: NFC on the wire, the local form on disk', () => {
  it('an NFD local name against an NFC remote name is one file, with no churn over three pushes', async () => {
    await writeFile(path.join(emu.volume, NFC), 'bonjour\n');
    await writeTree(work.dir, { [NFD]: 'bonjour\n', 'app.js': 'x\n' });

    const first = await pushWith();
    expect(first.exitCode ?? 0).toBe(0);
    expect(first.conflicts).toEqual([]);
    expect(await remoteNames()).toEqual(['app.js', NFC]);

    await writeFile(path.join(work.dir, NFD), 'bonjour, encore\n');
    for (let i = 0; i < 3; i++) {
      const r = await pushWith();
      expect(r.exitCode ?? 0).toBe(0);
      expect(r.conflicts).toEqual([]);
      // The edit goes up once, under the NFC name; then nothing: no delete + add churn.
      expect(r.planned).toEqual(i === 0 ? [expect.objectContaining({ path: NFC })] : []);
      expect(await remoteNames()).toEqual(['app.js', NFC]);
    }
    expect(await readFile(path.join(emu.volume, NFC), 'utf8')).toBe('bonjour, encore\n');
  });

  it('a new NFD file travels in NFC, also inside an archive-sized push', async () => {
    // Binary files in many folders: one archive is the cheapest way, and tar names entries by their disk path.
    const files: Record<string, string | Buffer> = { [`sche\u0301ma/${NFD}`]: Buffer.from([0, 1, 2, 3]) };
    for (let i = 0; i < 120; i++) files[`d${i}/f.bin`] = Buffer.from([0, i, 2, 3]);
    await writeTree(work.dir, files);
    const { report } = await pushOnce(emu, work.dir);
    expect(report.failures).toEqual([]);
    expect(report.plan.steps.map((s) => s.op)).toContain('archive');
    expect((await readdir(emu.volume)).filter((n) => n.startsWith('sch'))).toEqual(['sch\u00e9ma']);
    expect(await readdir(path.join(emu.volume, 'sch\u00e9ma'))).toEqual([NFC]);
    expect((await pushWith()).planned).toEqual([]);
  });

  it('pull writes a changed file under the name the disk already has, and a new one in NFC', async () => {
    await writeTree(work.dir, { [NFD]: 'one\n' });
    expect((await pushWith()).exitCode ?? 0).toBe(0);
    await writeFile(path.join(emu.volume, NFC), 'two\n');
    await writeFile(path.join(emu.volume, 'r\u00e9sum\u00e9.md'), 'new\n');

    const p = await pullWith();
    expect(p.exitCode ?? 0).toBe(0);
    expect(await localNames()).toEqual(['cafe\u0301.txt', 'r\u00e9sum\u00e9.md'].sort());
    expect(await readFile(path.join(work.dir, NFD), 'utf8')).toBe('two\n');
    expect((await pushWith()).planned).toEqual([]);
  });
});

describe('a file system without executable bits (no-exec)', () => {
  it('keeps start.sh executable on the deployment, and says so once', async () => {
    await writeTree(work.dir, { 'start.sh': '#!/bin/sh\necho hi\n', 'app.js': 'x\n' });
    await chmod(path.join(work.dir, 'start.sh'), 0o755);
    expect((await pushWith()).exitCode ?? 0).toBe(0);
    expect(await isExec(path.join(emu.volume, 'start.sh'))).toBe(true);

    // What Windows reads: no bit anywhere. Unchanged content: nothing to send.
    await chmod(path.join(work.dir, 'start.sh'), 0o644);
    const same = await pushWith('no-exec');
    expect(same.planned).toEqual([]);
    expect(same.warnings.filter((w: string) => w.includes('executable bits'))).toHaveLength(1);
    expect(await isExec(path.join(emu.volume, 'start.sh'))).toBe(true);

    // An edit goes up with the deployment's bit.
    await writeFile(path.join(work.dir, 'start.sh'), '#!/bin/sh\necho hello\n');
    const edit = await pushWith('no-exec');
    expect(edit.exitCode ?? 0).toBe(0);
    expect(await readFile(path.join(emu.volume, 'start.sh'), 'utf8')).toBe('#!/bin/sh\necho hello\n');
    expect(await isExec(path.join(emu.volume, 'start.sh'))).toBe(true);
    expect((await pushWith('no-exec')).planned).toEqual([]);
  });

  it('without the simulation the same tree takes the bit off (the behaviour no-exec prevents)', async () => {
    await writeTree(work.dir, { 'start.sh': '#!/bin/sh\n' });
    await chmod(path.join(work.dir, 'start.sh'), 0o755);
    await pushWith();
    await chmod(path.join(work.dir, 'start.sh'), 0o644);
    const r = await pushWith();
    expect(r.planned).toEqual([expect.objectContaining({ path: 'start.sh', kind: 'chmod' })]);
  });
});

describe('a case-insensitive file system', () => {
  it('refuses to pull A.txt and a.txt, naming both, before writing anything (exit 3)', async () => {
    await writeTree(emu.volume, { 'A.txt': 'upper\n', 'a.txt': 'lower\n', 'other.js': 'o\n' });
    await writeTree(work.dir, { 'hostsync.json': '{}\n' });
    const before = await localNames();

    const r = await pullWith('case-insensitive');
    expect(r.exitCode).toBe(3);
    expect(r.error).toContain('A.txt and a.txt');
    expect(await localNames()).toEqual(before);

    // The same, run from outside as a user reporting a bug would.
    const cli = await runCli(['pull', '--dir', work.dir], env('case-insensitive,no-exec'));
    expect(cli.code).toBe(3);
    expect(cli.stderr).toContain('A.txt and a.txt');
    expect(await localNames()).toEqual(before);

    // A case-sensitive file system takes both.
    expect((await pullWith('case-sensitive')).exitCode ?? 0).toBe(0);
    expect(await localNames()).toEqual(['A.txt', 'a.txt', 'hostsync.json', 'other.js']);
  });

  it('folders that differ only in case are refused too', async () => {
    await writeTree(emu.volume, { 'Docs/a.md': 'a\n', 'docs/b.md': 'b\n' });
    const r = await pullWith('macos');
    expect(r.exitCode).toBe(3);
    expect(r.error).toContain('Docs and docs');
    expect(await localNames()).toEqual([]);
  });

  it('a case-only rename is pushed as a rename, and pulled without losing the file', async () => {
    await writeTree(work.dir, { 'Readme.md': 'read me\n' });
    expect((await pushWith('case-insensitive')).exitCode ?? 0).toBe(0);
    await rm(path.join(work.dir, 'Readme.md'));
    await writeTree(work.dir, { 'README.md': 'read me\n' });
    const r = await pushWith('case-insensitive');
    expect(r.planned).toEqual([expect.objectContaining({ kind: 'rename', from: 'Readme.md', to: 'README.md' })]);
    expect(await remoteNames()).toEqual(['README.md']);

    // And back, renamed on the deployment: the old name goes before the new one lands.
    await rm(path.join(emu.volume, 'README.md'));
    await writeTree(emu.volume, { 'ReadMe.md': 'read me\n' });
    const p = await pullWith('case-insensitive');
    expect(p.exitCode ?? 0).toBe(0);
    expect(await localNames()).toEqual(['ReadMe.md']);
  });
});

describe('names Windows cannot hold (windows-names)', () => {
  it('are reported by pull, one by one, and the rest lands', async () => {
    await writeTree(emu.volume, { 'con.txt': 'c\n', 'a:b.txt': 'x\n', 'dot.': 'd\n', 'ok.txt': 'ok\n', 'lib/Aux.js': 'a\n' });
    const r = await pullWith('windows');
    expect(r.exitCode).toBe(1);
    expect(r.fetched).toEqual(['ok.txt']);
    expect(r.failures.map((f: any) => f.path).sort()).toEqual(['a:b.txt', 'con.txt', 'dot.', 'lib/Aux.js']);
    expect(r.failures.find((f: any) => f.path === 'con.txt').error).toContain('reserved name on Windows');
    expect(r.error).not.toContain('run the pull again');
    expect(await localNames()).toEqual(['ok.txt']);
    // Left on the deployment: a push from here does not delete them.
    const again = await pushWith('windows');
    expect(again.planned).toEqual([]);
  });
});

describe('line endings: bytes as they are, a CRLF-only difference explained', () => {
  it('names the texts that differ only in line endings, and nothing else', () => {
    expect(lineEndingsNote('a\r\nb\r\n', 'a\nb\n')).toContain('(CRLF here, LF on the deployment)');
    expect(lineEndingsNote('a\nb\n', 'a\r\nb\r\n')).toContain('(LF here, CRLF on the deployment)');
    expect(lineEndingsNote('a\r\nb\n', 'a\nb\n')).toContain('(mixed here');
    expect(lineEndingsNote('a\r\nB\r\n', 'a\nb\n')).toBeNull();
    expect(lineEndingsNote('a\n', 'a\n')).toBeNull();
  });

  it('status and diff say so for a file git checked out with CRLF; push still sends the bytes', async () => {
    await writeTree(work.dir, { 'app.js': 'one\ntwo\n', 'real.js': 'x\n' });
    expect((await pushWith()).exitCode ?? 0).toBe(0);
    await writeTree(work.dir, { 'app.js': 'one\r\ntwo\r\n', 'real.js': 'y\n' });

    const st: any = await status({ dir: work.dir, env: env() });
    const notes = st.warnings.filter((w: string) => w.includes('line endings'));
    expect(notes).toEqual(['app.js differs only in line endings (CRLF here, LF on the deployment): see docs/platforms.md#line-endings']);

    const d: any = await diff({ dir: work.dir, env: env(), paths: [], cwd: work.dir });
    expect(d.files.find((f: any) => f.path === 'app.js').lineEndings).toContain('CRLF here, LF on the deployment');
    expect(d.files.find((f: any) => f.path === 'real.js').lineEndings).toBeUndefined();
    const human = await runCli(['diff', '--dir', work.dir], env());
    expect(human.stdout).toContain('app.js');
    expect(human.stdout).toContain('differs only in line endings');

    expect((await pushWith()).exitCode ?? 0).toBe(0);
    expect(await readFile(path.join(emu.volume, 'app.js'), 'utf8')).toBe('one\r\ntwo\r\n');
  });
});
