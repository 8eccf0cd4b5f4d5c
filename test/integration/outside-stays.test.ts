/**
 * What comes from outside stays in its place (issue 44): a setting, a stray folder, an id
 * or an answer the user did not write cannot move the project, the synced folder or the
 * API path elsewhere. Each test is the repro.
 */
import { access, mkdir, readFile, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startEmulator, type RunningEmulator } from '../../src/emulator/index.js';
import { runCli } from '../helpers/cli.js';
import { envFor } from '../helpers/push.js';
import { tempDir, writeTree } from '../helpers/tree.js';

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0)) await c();
});

async function setup(opts: Parameters<typeof startEmulator>[0] = {}): Promise<{ emu: RunningEmulator; dir: string }> {
  const emu = await startEmulator(opts);
  const work = await tempDir('hostsync-outside-');
  cleanups.push(() => emu.close(), work.cleanup);
  return { emu, dir: work.dir };
}

const exists = (p: string): Promise<boolean> => access(p).then(() => true, () => false);
const changedPaths = (stdout: string): string[] => (JSON.parse(stdout).changes as Array<{ path: string }>).map((c) => c.path).sort();

describe('the project root (item 7)', () => {
  it('a stray .hostsync/ in a parent folder does not make that folder the project', async () => {
    const t = await setup();
    const home = path.join(t.dir, 'h');
    await mkdir(path.join(home, '.hostsync'), { recursive: true });
    await writeTree(home, { 'Documents/tax.pdf': 'private\n', 'newproj/app.js': 'console.log(1);\n' });
    const r = await runCli(['status', '--json'], envFor(t.emu), { cwd: path.join(home, 'newproj') });
    expect(r.code, r.stderr).toBe(0);
    expect(changedPaths(r.stdout)).toEqual(['app.js']);
  });

  it('a .hostsync/ holding a deployment\'s state still marks a project run on the environment alone', async () => {
    const t = await setup();
    await writeTree(t.dir, { 'app.js': 'console.log(1);\n', 'src/util.js': 'module.exports = 1;\n' });
    expect((await runCli(['push', '--no-apply'], envFor(t.emu), { cwd: t.dir })).code).toBe(0);
    const r = await runCli(['status', '--json'], envFor(t.emu), { cwd: path.join(t.dir, 'src') });
    expect(r.code, r.stderr).toBe(0);
    expect(changedPaths(r.stdout)).toEqual([]);
    expect(await exists(path.join(t.dir, 'src', '.hostsync'))).toBe(false);
  });
});
