import { readdir, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startEmulator, type RunningEmulator } from '../../src/emulator/index.js';
import { runPush } from '../../src/app/push.js';
import { runStatus } from '../../src/app/status.js';
import { runCli } from '../helpers/cli.js';
import { envFor } from '../helpers/push.js';
import { tempDir, writeTree } from '../helpers/tree.js';

let emu: RunningEmulator;
let work: { dir: string; cleanup: () => Promise<void> };
const env = () => envFor(emu);
const cli = (...args: string[]) => runCli([...args, '--dir', work.dir], env());

beforeAll(async () => {
  emu = await startEmulator({ runtime: 'static' });
});
afterAll(async () => {
  await emu?.close();
});
beforeEach(async () => {
  work = await tempDir('hostsync-output-');
  for (const name of await readdir(emu.volume)) await rm(path.join(emu.volume, name), { recursive: true, force: true });
});
afterEach(async () => {
  await work.cleanup();
});

const opts = () => ({ dir: work.dir, baseUrl: emu.baseUrl, apiKey: emu.apiKey, deployment: emu.deploymentId, env: {} });

/** Both previews of the same tree, which must exit alike (in process: the exit code the CLI returns is the result's). */
async function previews(): Promise<[number, number]> {
  const status = (await runStatus(opts())).result;
  const dry = (await runPush({ ...opts(), dryRun: true })).result;
  return [status.exitCode ?? 0, dry.exitCode ?? 0];
}

describe('output that agrees with itself', () => {
  it('status and push --dry-run exit alike: 0 for changes and drift, 3 for a conflict and for the mass-delete guard', async () => {
    const files: Record<string, string> = { 'index.html': '<title>t</title>\n', 'c.txt': 'c\n', 'd.txt': 'd\n' };
    for (let i = 0; i < 30; i++) files[`f${i}.txt`] = `${i}\n`;
    await writeTree(work.dir, files);
    expect(await previews()).toEqual([0, 0]); // changes to push
    expect((await runPush({ ...opts(), apply: false })).result.ok).toBe(true);
    expect(await previews()).toEqual([0, 0]); // nothing to push
    await writeTree(emu.volume, { 'd.txt': 'changed there\n' });
    expect(await previews()).toEqual([0, 0]); // drift alone
    await writeTree(work.dir, { 'c.txt': 'here\n' });
    await writeTree(emu.volume, { 'c.txt': 'there\n' });
    expect(await previews()).toEqual([3, 3]); // a conflict
    await writeTree(emu.volume, { 'c.txt': 'here\n' });
    for (let i = 0; i < 30; i++) await rm(path.join(work.dir, `f${i}.txt`));
    expect(await previews()).toEqual([3, 3]); // the mass-delete guard
  });

  it('"Up to date" is never printed with conflicts; --force --dry-run marks what it would overwrite', async () => {
    await writeTree(work.dir, { 'index.html': 'v1\n', 'c.txt': 'c\n' });
    expect((await cli('push', '--no-apply')).code).toBe(0);
    await writeTree(work.dir, { 'c.txt': 'here\n' });
    await writeTree(emu.volume, { 'c.txt': 'there\n' });
    const pushed = await cli('push', '--no-apply');
    expect(pushed.code).toBe(3);
    expect(pushed.stdout).not.toMatch(/up to date/i);
    expect(pushed.stdout).toMatch(/C\s+c\.txt/);

    const forced = await cli('push', '--force', '--dry-run');
    expect(forced.stdout).toMatch(/M\s+c\.txt\s+\(would overwrite the deployment's version\)/);
    expect(forced.stdout).toMatch(/overwriting 1 file changed on the deployment/);
    const json = JSON.parse((await cli('push', '--force', '--dry-run', '--json')).stdout);
    expect(json.overwrites).toEqual(['c.txt']);
  });

  it('status names remote-only files and the app state; --no-apply says an apply is pending, and status says so too', async () => {
    await writeTree(work.dir, { 'index.html': '<title>t</title>\n' });
    await writeTree(emu.volume, { 'uploads/a.png': 'x', 'uploads/b.png': 'y' });
    const pushed = await cli('push', '--no-apply');
    expect(pushed.code).toBe(0);
    expect(pushed.stdout).toMatch(/apply pending/);
    const status = await cli('status');
    expect(status.stdout).toMatch(/Only on the deployment \(2;/);
    expect(status.stdout).toMatch(/\?\s+uploads\/a\.png/);
    expect(status.stdout).toMatch(/app (offline|running|starting)/);
    expect(status.stdout).toMatch(/An apply is pending/);
    const json = JSON.parse((await cli('status', '--json')).stdout);
    expect(json).toMatchObject({ remoteOnly: 2, remoteOnlyPaths: ['uploads/a.png', 'uploads/b.png'], applyPending: true });
    expect(typeof json.appState).toBe('string');
    const applied = JSON.parse((await cli('push', '--json')).stdout);
    expect(applied.apply).not.toBeNull();
    expect(applied.applyPending).toBe(false);
  });

  it("status's request estimate is what the push then makes", async () => {
    const files: Record<string, string | Buffer> = { 'index.html': '<title>t</title>\n', 'logo.bin': Buffer.from([0, 1, 2, 3, 255]) };
    for (let i = 0; i < 5; i++) files[`p${i}.txt`] = `${i}\n`;
    await writeTree(work.dir, files);
    for (const edit of [null, { 'p1.txt': 'edited\n' }] as const) {
      if (edit) await writeTree(work.dir, edit);
      const status = (await runStatus(opts())).result;
      const pushed = (await runPush(opts())).result;
      expect(pushed.ok).toBe(true);
      expect(status.pushRequests).toBe(pushed.requests.total);
    }
  });

  it('--quiet prints one line on success, and the error on failure', async () => {
    await writeTree(work.dir, { 'index.html': '<title>t</title>\n', 'a.txt': 'a\n' });
    for (const args of [['push'], ['status'], ['push', '--dry-run'], ['init']]) {
      const r = await cli(...args, '--quiet');
      expect(r.code, args.join(' ')).toBe(0);
      expect(r.stdout.trimEnd().split('\n'), `${args.join(' ')}: ${r.stdout}`).toHaveLength(1);
      expect(r.stderr).toBe('');
    }
    // The two-way commands too, with something to show: a file changed on the deployment.
    await writeTree(emu.volume, { 'a.txt': 'changed on the server\n' });
    for (const args of [['diff'], ['pull']]) {
      const r = await cli(...args, '--quiet');
      expect(r.code, args.join(' ')).toBe(0);
      expect(r.stdout.trimEnd().split('\n'), `${args.join(' ')}: ${r.stdout}`).toHaveLength(1);
    }
    await writeFile(path.join(work.dir, 'hostsync.json'), '{');
    const bad = await cli('push', '--quiet');
    expect(bad.code).toBe(2);
    expect(bad.stdout).toBe('');
    expect(bad.stderr).toMatch(/not valid JSON/);
  });
});
