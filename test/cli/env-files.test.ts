/**
 * Issue 28, item 17 and the Low wording item: `env pull` through a `.env` symlink, and the
 * lines dotenv skips named instead of dropped without a word.
 */
import { lstat, mkdir, readFile, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startEmulator, type RunningEmulator } from '../../src/emulator/index.js';
import { skippedLines } from '../../src/local/envfile.js';
import { runCli } from '../helpers/cli.js';
import { tempDir, writeTree } from '../helpers/tree.js';

let emu: RunningEmulator;
let dep: { id: string; volume: string };
let work: { dir: string; cleanup: () => Promise<void> };
let outside: { dir: string; cleanup: () => Promise<void> };

const env = () => ({ HOSTSYNC_API_KEY: emu.apiKey, HOSTSYNC_BASE_URL: emu.baseUrl, HOSTSYNC_DEPLOYMENT: dep.id });
const cli = (args: string[]) => runCli([...args, '--dir', work.dir], env());
const setPlain = (key: string, value: string) =>
  fetch(`${emu.baseUrl}/api/v1/deployments/${dep.id}/env`, {
    method: 'POST',
    headers: { authorization: `Bearer ${emu.apiKey}`, 'content-type': 'application/json' },
    body: JSON.stringify({ key, value, secret: false }),
  });

beforeAll(async () => {
  emu = await startEmulator({});
});
afterAll(async () => {
  await emu?.close();
});
beforeEach(async () => {
  dep = await emu.createDeployment({ name: `envf-${Date.now()}` });
  work = await tempDir('hostsync-envf-');
  outside = await tempDir('hostsync-envf-out-');
  await writeFile(path.join(work.dir, 'hostsync.json'), JSON.stringify({ restart: 'never' }));
});
afterEach(async () => {
  await work.cleanup();
  await outside.cleanup();
});

describe('env pull through a .env symlink (item 17)', () => {
  it('writes the file the link points to inside the project, and the link stays a link', async () => {
    expect((await setPlain('MODE', 'production')).ok).toBe(true);
    await mkdir(path.join(work.dir, 'config'));
    await writeFile(path.join(work.dir, 'config/dev.env'), '# shared\nMODE=dev\n');
    await symlink('config/dev.env', path.join(work.dir, '.env'));
    const r = await cli(['env', 'pull']);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect((await lstat(path.join(work.dir, '.env'))).isSymbolicLink()).toBe(true);
    expect(await readFile(path.join(work.dir, 'config/dev.env'), 'utf8')).toBe('# shared\nMODE=production\n');
  });

  it('refuses, in one line and exit 2, a link that points outside the project; nothing is written', async () => {
    expect((await setPlain('MODE', 'production')).ok).toBe(true);
    const target = path.join(outside.dir, 'shared.env');
    await writeFile(target, 'MODE=dev\n');
    await symlink(target, path.join(work.dir, '.env'));
    const r = await cli(['env', 'pull']);
    expect(r.code).toBe(2);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toMatch(/outside the project/);
    expect((await lstat(path.join(work.dir, '.env'))).isSymbolicLink()).toBe(true);
    expect(await readFile(target, 'utf8')).toBe('MODE=dev\n');
  });
});

describe('lines dotenv skips are named (Low: "bad .env lines dropped without a word")', () => {
  it('env diff warns once per file with the line numbers', async () => {
    await writeTree(work.dir, { '.env': '# comment\nGOOD=1\nthis is not a variable\n\nMULTI="a\nb"\nOOPS\n' });
    const r = await cli(['env', 'diff', '--json']);
    expect(r.code, r.stderr).toBe(0);
    const warnings: string[] = JSON.parse(r.stdout).warnings;
    const about = warnings.filter((w) => w.includes('.env:'));
    expect(about).toEqual([expect.stringMatching(/lines 3, 7 are not KEY=VALUE/)]);
  });

  it('skippedLines: blank lines, comments, export, `KEY: value` and quoted multi-line values are not reported', () => {
    expect(skippedLines('A=1\r\nexport B=2\n  # indented comment\nC: 3\nD="x\ny"\nE=\n')).toEqual([]);
    expect(skippedLines('A=1\n=nokey\n just words\n-\n')).toEqual([2, 3, 4]);
  });
});
