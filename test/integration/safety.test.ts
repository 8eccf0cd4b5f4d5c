import { chmod, readdir, readFile, rm, stat, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startEmulator, type RunningEmulator } from '../../src/emulator/index.js';
import { tempDir, writeTree } from '../helpers/tree.js';
import { runCli } from '../helpers/cli.js';
import { envFor, pushOnce } from '../helpers/push.js';
import { StateStore } from '../../src/state/store.js';

/** Regressions for what review found: each test fails on the code before its fix. */
let emu: RunningEmulator;
let work: { dir: string; cleanup: () => Promise<void> };
let vol: { dir: string; cleanup: () => Promise<void> };

const cliEnv = () => envFor(emu);

beforeAll(async () => {
  vol = await tempDir('hostsync-emu-');
  emu = await startEmulator({ dataDir: vol.dir });
});
afterAll(async () => {
  await emu?.close();
  await vol?.cleanup();
});
beforeEach(async () => {
  work = await tempDir('hostsync-safety-');
  for (const name of await readdir(emu.volume)) await rm(path.join(emu.volume, name), { recursive: true, force: true });
});
afterEach(async () => {
  await work.cleanup();
});

describe('remote symlinks', () => {
  it('never writes through a symlinked file or folder on the deployment', async () => {
    await writeTree(emu.volume, { 'secret.txt': 'remote secret\n', 'uploads/logo.txt': 'user upload\n' });
    await symlink('secret.txt', path.join(emu.volume, 'cfg.txt'));
    await symlink('uploads', path.join(emu.volume, 'static'));
    await writeTree(work.dir, { 'cfg.txt': 'local cfg\n', 'static/logo.txt': 'local logo\n', 'app.js': 'ok\n' });

    const { report } = await pushOnce(emu, work.dir, { force: true });
    expect(report.conflicts.map((c) => `${c.path} ${c.reason}`).sort()).toEqual(['cfg.txt remote-symlink', 'static/logo.txt remote-symlink']);
    expect(await readFile(path.join(emu.volume, 'secret.txt'), 'utf8')).toBe('remote secret\n');
    expect(await readFile(path.join(emu.volume, 'uploads/logo.txt'), 'utf8')).toBe('user upload\n');
    expect(await readFile(path.join(emu.volume, 'app.js'), 'utf8')).toBe('ok\n');
  });
});

describe('local paths the scan skips', () => {
  it('a pushed file replaced locally by a symlink is not deleted on the deployment', async () => {
    await writeTree(work.dir, { 'config.js': 'module.exports = 1\n', 'shared/config.js': 'x\n' });
    await pushOnce(emu, work.dir);
    await rm(path.join(work.dir, 'config.js'));
    await symlink('shared/config.js', path.join(work.dir, 'config.js'));
    const { report } = await pushOnce(emu, work.dir);
    expect(report.changes).toEqual([]);
    expect(report.warnings.some((w) => w.includes('config.js'))).toBe(true);
    expect(await readFile(path.join(emu.volume, 'config.js'), 'utf8')).toBe('module.exports = 1\n');
  });
});

describe('executable bits', () => {
  it('an edited executable binary keeps +x after its upload, and the next push is one request', async () => {
    const bin = Buffer.from([0x7f, 0x45, 0x4c, 0x46, 0, 1, 2, 0xff]);
    await writeTree(work.dir, { 'bin/tool': bin });
    await chmod(path.join(work.dir, 'bin/tool'), 0o755);
    await pushOnce(emu, work.dir);
    await writeTree(work.dir, { 'bin/tool': Buffer.concat([bin, Buffer.from([0xfe])]) });
    await chmod(path.join(work.dir, 'bin/tool'), 0o755);
    const edit = await pushOnce(emu, work.dir);
    expect(edit.report.failures).toEqual([]);
    expect((await stat(path.join(emu.volume, 'bin/tool'))).mode & 0o111).not.toBe(0);
    const next = await pushOnce(emu, work.dir);
    expect(next.report.conflicts).toEqual([]);
    expect(next.stats.total).toBe(1);
  });
});

describe('a file blocked by a remote folder', () => {
  it('is reported, and the other files of its batch still land', async () => {
    await writeTree(emu.volume, { 'd/remote-only.txt': 'theirs\n' });
    await writeTree(work.dir, { d: 'file where a folder is\n', 'e0.txt': '0\n', 'e1.txt': '1\n', 'e2.txt': '2\n' });
    const { report } = await pushOnce(emu, work.dir);
    expect(report.failures.map((f) => f.path)).toEqual(['d']);
    for (const n of ['e0', 'e1', 'e2']) expect(await readFile(path.join(emu.volume, `${n}.txt`), 'utf8')).toBe(`${n.slice(1)}\n`);
    expect(await readFile(path.join(emu.volume, 'd/remote-only.txt'), 'utf8')).toBe('theirs\n');
  });
});

describe('apply', () => {
  it('a push that transferred without applying leaves the apply pending for the next push', async () => {
    await writeTree(work.dir, { 'index.js': "require('http').createServer((q, s) => s.end('<title>t</title>')).listen(process.env.SERVER_PORT)\n" });
    expect((await runCli(['push', '--no-apply', '--dir', work.dir], cliEnv())).code).toBe(0);
    const again = await runCli(['push', '--json', '--dir', work.dir], cliEnv());
    const out = JSON.parse(again.stdout);
    expect(out.changes.written).toBe(0);
    expect(out.apply).not.toBeNull();
    expect(out.requests.byOperation['deployments.apply']).toBe(1);
    const third = await runCli(['push', '--json', '--dir', work.dir], cliEnv());
    expect(JSON.parse(third.stdout).apply).toBeNull();
  });
});

describe('push --json when the push is refused', () => {
  it('still prints one object with the contract fields', async () => {
    const files: Record<string, string> = {};
    for (let i = 0; i < 30; i++) files[`f${i}.txt`] = `${i}\n`;
    await writeTree(work.dir, files);
    expect((await runCli(['push', '--no-apply', '--dir', work.dir], cliEnv())).code).toBe(0);
    for (let i = 0; i < 30; i++) await rm(path.join(work.dir, `f${i}.txt`));
    await writeFile(path.join(work.dir, 'keep.txt'), 'k\n');
    const res = await runCli(['push', '--json', '--dir', work.dir], cliEnv());
    expect(res.code).toBe(3);
    const lines = res.stdout.trim().split('\n');
    expect(lines).toHaveLength(1);
    const out = JSON.parse(lines[0]!);
    expect(out).toMatchObject({ ok: false, exitCode: 3, changes: { written: 0, deleted: 0, moved: 0, chmod: 0 }, conflicts: [], apply: null, healthy: null });
    expect(out.requests.total).toBeGreaterThanOrEqual(1);
    expect(out.error).toMatch(/allow-mass-delete/);
  });
});

describe('a file edited between the scan and its send', () => {
  it('is reported once, then converges without a conflict with itself', async () => {
    const { loadConfig } = await import('../../src/config/config.js');
    const { openSession } = await import('../../src/sync/session.js');
    const { push } = await import('../../src/sync/push/push.js');
    const { scanTree } = await import('../../src/local/scan.js');
    await writeTree(work.dir, { 'a.txt': 'v1\n' });
    await pushOnce(emu, work.dir);

    await writeFile(path.join(work.dir, 'a.txt'), 'v2\n');
    const session = await openSession(await loadConfig({ flags: { dir: work.dir }, env: envFor(emu) }));
    try {
      const scanned = await scanTree({ root: work.dir, matcher: session.matcher });
      await writeFile(path.join(work.dir, 'a.txt'), 'v3, saved while the push ran\n');
      const raced = await push(session, { local: scanned.snapshot, noApply: true });
      expect(raced.failures.map((f) => f.path)).toEqual(['a.txt']);
      expect(raced.conflicts).toEqual([]);
    } finally {
      await session.close();
    }
    // The remote holds v3, which this push sent; a further local edit is a plain
    // modification of it, not a conflict (the base must have become v3, not stayed v1).
    await writeFile(path.join(work.dir, 'a.txt'), 'v4\n');
    const next = await pushOnce(emu, work.dir);
    expect(next.report.conflicts).toEqual([]);
    expect(next.report.failures).toEqual([]);
    expect(await readFile(path.join(emu.volume, 'a.txt'), 'utf8')).toBe('v4\n');
  });
});

describe('a corrupt state file', () => {
  it('is rebuilt from the remote, never trusted: a local deletion it would have carried deletes nothing', async () => {
    await writeTree(work.dir, { 'a.txt': 'a\n', 'b.txt': 'b\n', 'dir/c.txt': 'c\n' });
    await pushOnce(emu, work.dir);
    const stateDir = path.join(work.dir, '.hostsync', (await readdir(path.join(work.dir, '.hostsync'))).find((n) => n.startsWith(emu.deploymentId))!);
    const stateFile = path.join(stateDir, 'state.bin');
    const bytes = await readFile(stateFile);
    bytes[Math.floor(bytes.length / 2)] ^= 0xff;
    await writeFile(stateFile, bytes);
    await rm(path.join(work.dir, 'b.txt'));
    // No base anywhere: the deployment's base record (which would be a base, see
    // remote-base.test.ts) goes too.
    await rm(path.join(emu.volume, '.hostsync'), { recursive: true, force: true });

    const { report } = await pushOnce(emu, work.dir);
    expect(report.counts.deleted).toBe(0);
    expect(report.remoteOnly).toEqual(['b.txt']);
    expect(await readFile(path.join(emu.volume, 'b.txt'), 'utf8')).toBe('b\n');
    // Saved again, whole: the base is what both sides agree on.
    const state = await new StateStore(stateDir, emu.deploymentId).load();
    expect([...state.base!.keys()].sort()).toEqual(['a.txt', 'dir/c.txt']);
  });
});
