/** Issue 28, Low wording items: each line says what is true, in agreeing English. */
import { readdir, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startEmulator, type RunningEmulator } from '../../src/emulator/index.js';
import { tempDir, writeTree } from '../helpers/tree.js';
import { runCli } from '../helpers/cli.js';
import { envFor } from '../helpers/push.js';

let emu: RunningEmulator;
let work: { dir: string; cleanup: () => Promise<void> };
const cli = (args: string[], env: Record<string, string> = envFor(emu)) => runCli([...args, '--dir', work.dir], env);

beforeAll(async () => {
  emu = await startEmulator({ rateLimit: 1_000_000, userRateLimit: 1_000_000 });
});
afterAll(async () => {
  await emu?.close();
});
beforeEach(async () => {
  work = await tempDir('hostsync-wording-');
  await writeFile(path.join(work.dir, 'hostsync.json'), JSON.stringify({ restart: 'never' }));
  for (const name of await readdir(emu.volume)) await rm(path.join(emu.volume, name), { recursive: true, force: true });
});
afterEach(async () => {
  await work.cleanup();
});

describe('wording (issue 28, Low)', () => {
  it('undo says "2 pushes", not "2 pushs"', async () => {
    for (const v of ['one', 'two', 'three']) {
      await writeTree(work.dir, { 'v.txt': `${v}\n` });
      expect((await cli(['push', '--no-apply'])).code).toBe(0);
    }
    const dry = await cli(['undo', '--steps', '2', '--dry-run']);
    expect(dry.stdout).toMatch(/would take back 2 pushes on/);
    const done = await cli(['undo', '--steps', '2', '--no-apply']);
    expect(done.code).toBe(0);
    expect(done.stdout).toMatch(/Took back 2 pushes on/);
    expect(done.stdout).not.toMatch(/pushs/);
  });

  it('diff says "1 file differs", and a text file over 2 MiB is "too large to show", not "binary"', async () => {
    const line = 'a line of plain text, repeated until the file is past the diff limit\n';
    const big = line.repeat(Math.ceil((3 * 1024 * 1024) / line.length));
    await writeTree(work.dir, { 'big.log': big, 'small.txt': 'one\n' });
    expect((await cli(['push', '--no-apply'])).code).toBe(0);

    await writeTree(work.dir, { 'small.txt': 'two\n' });
    expect((await cli(['diff'])).stdout).toMatch(/1 file differs from/);

    await writeTree(work.dir, { 'small.txt': 'one\n', 'big.log': `${big}one more line\n` });
    const json = JSON.parse((await cli(['diff', '--json'])).stdout);
    expect(json.files).toEqual([expect.objectContaining({ path: 'big.log', binary: true, tooLarge: true, patch: null })]);
    const human = await cli(['diff']);
    expect(human.stdout).toMatch(/big\.log .*over 2 MiB, too large to show as a diff/);
    expect(human.stdout).not.toMatch(/binary/);
  });

  it('diff still calls a real binary file binary', async () => {
    await writeTree(work.dir, { 'img.bin': Buffer.from([0, 1, 2, 3, 0, 255]) });
    expect((await cli(['push', '--no-apply'])).code).toBe(0);
    await writeTree(work.dir, { 'img.bin': Buffer.from([0, 1, 2, 4, 0, 255]) });
    const json = JSON.parse((await cli(['diff', '--json'])).stdout);
    expect(json.files).toEqual([expect.objectContaining({ path: 'img.bin', binary: true, tooLarge: false })]);
  });

  it('doctor does not call an entry file "synced" when the deployment is empty', async () => {
    const empty = await emu.createDeployment({ name: 'empty-28' });
    await writeTree(work.dir, { 'index.js': "console.log('hi');\n" });
    const r = await cli(['doctor', '--json'], { ...envFor(emu), HOSTSYNC_DEPLOYMENT: empty.id });
    const entry = JSON.parse(r.stdout).checks.find((c: { id: string }) => c.id === 'entry');
    expect(entry).toMatchObject({ ok: false, detail: expect.stringMatching(/index\.js exists here but is not on the deployment yet/), fix: expect.stringMatching(/hostsync push/) });
    expect(entry.detail).not.toMatch(/synced/);
  });
});
