/**
 * Issue 46, item 9: `hostsync status` run inside one target's folder (`web/`) exited 2
 * ("pick a target with --target (web, bot)"). A command run inside exactly one target's
 * folder takes that target, and says so in one line on stderr.
 */
import { existsSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startEmulator, type RunningEmulator } from '../../src/emulator/index.js';
import { runCli } from '../helpers/cli.js';
import { tempDir, writeTree } from '../helpers/tree.js';

let emu: RunningEmulator;
let web: { id: string; volume: string };
let bot: { id: string; volume: string };
let work: { dir: string; cleanup: () => Promise<void> };
const env = () => ({ HOSTSYNC_API_KEY: emu.apiKey, HOSTSYNC_BASE_URL: emu.baseUrl });

beforeAll(async () => {
  emu = await startEmulator({});
  web = await emu.createDeployment({ name: 'web', runtime: 'static' });
  bot = await emu.createDeployment({ name: 'bot', runtime: 'static' });
});
afterAll(async () => {
  await emu?.close();
});
beforeEach(async () => {
  work = await tempDir('hostsync-target-folder-');
  await writeTree(work.dir, {
    'hostsync.json': JSON.stringify({ targets: { web: { deployment: web.id, dir: 'web' }, bot: { deployment: bot.id, dir: 'bot' } } }),
    'web/index.html': '<h1>web</h1>\n',
    'web/css/site.css': 'h1 {}\n',
    'bot/bot.txt': 'bot\n',
  });
});
afterEach(async () => {
  await work.cleanup();
});

describe('a command run inside a target\'s folder', () => {
  it('status in web/ (and below it) works on target web, and says so on stderr', async () => {
    for (const cwd of [path.join(work.dir, 'web'), path.join(work.dir, 'web/css')]) {
      const r = await runCli(['status', '--json'], env(), { cwd });
      expect(r.code, r.stderr).toBe(0);
      expect(r.stderr).toBe('hostsync: target web (this folder)\n');
      const out = JSON.parse(r.stdout);
      expect(out.deployment).toMatchObject({ id: web.id, target: 'web' });
      expect(out.changes.map((c: { path: string }) => c.path).sort()).toEqual(['css/site.css', 'index.html']);
    }
  });

  it('a push in bot/ pushes the bot\'s folder to the bot\'s deployment, and nothing to the web\'s', async () => {
    const r = await runCli(['push', '--no-apply'], env(), { cwd: path.join(work.dir, 'bot') });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain('target bot (this folder)');
    expect(await readFile(path.join(bot.volume, 'bot.txt'), 'utf8')).toBe('bot\n');
    expect(existsSync(path.join(web.volume, 'bot.txt'))).toBe(false);
  });

  it('at the project root, or in a folder two targets share, it still asks for --target; --target and HOSTSYNC_TARGET outrank the folder', async () => {
    const root = await runCli(['status'], env(), { cwd: work.dir });
    expect(root.code).toBe(2);
    expect(root.stderr).toMatch(/pick a target with --target \(web, bot\)/);

    await writeFile(path.join(work.dir, 'hostsync.json'), JSON.stringify({ targets: { web: { deployment: web.id, dir: 'web' }, staging: { deployment: bot.id, dir: 'web' } } }));
    const shared = await runCli(['status'], env(), { cwd: path.join(work.dir, 'web') });
    expect(shared.code).toBe(2);

    await writeFile(path.join(work.dir, 'hostsync.json'), JSON.stringify({ targets: { web: { deployment: web.id, dir: 'web' }, bot: { deployment: bot.id, dir: 'bot' } } }));
    await mkdir(path.join(work.dir, 'bot'), { recursive: true });
    const named = await runCli(['status', '--json', '-t', 'bot'], env(), { cwd: path.join(work.dir, 'web') });
    expect(named.code, named.stderr).toBe(0);
    expect(named.stderr).not.toContain('this folder');
    expect(JSON.parse(named.stdout).deployment.id).toBe(bot.id);
  });
});
