/**
 * Issue 46, item 10: `hostsync open` on a bot printed the address the service lists for
 * it, which refuses connections (a worker listens on no port). It says the app is a
 * worker with no public URL instead: known from `"health": {"kind": "worker"}`, or with the
 * kind left to auto, from a bot package the project depends on.
 */
import { cp } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator, type RunningEmulator } from '../../src/emulator/index.js';
import { runCli } from '../helpers/cli.js';
import { tempDir, writeTree } from '../helpers/tree.js';

const REPO = path.resolve(import.meta.dirname, '../..');
let emu: RunningEmulator;
const cleanups: Array<() => Promise<void>> = [];
beforeAll(async () => {
  emu = await startEmulator({});
});
afterAll(async () => {
  await emu?.close();
});
afterEach(async () => {
  await Promise.all(cleanups.splice(0).map((c) => c()));
});

async function project(files: Record<string, string> | null): Promise<{ dir: string; env: Record<string, string> }> {
  const dep = await emu.createDeployment({ runtime: 'nodejs' });
  const t = await tempDir('hostsync-open-worker-');
  cleanups.push(t.cleanup);
  if (files) await writeTree(t.dir, files);
  else await cp(path.join(REPO, 'examples/discord-bot'), t.dir, { recursive: true });
  return { dir: t.dir, env: { HOSTSYNC_API_KEY: emu.apiKey, HOSTSYNC_BASE_URL: emu.baseUrl, HOSTSYNC_DEPLOYMENT: dep.id } };
}

describe('hostsync open on a worker', () => {
  it('examples/discord-bot ("health" kind worker): no URL printed, the error says it is a worker with no public URL', async () => {
    const p = await project(null);
    const r = await runCli(['open', '--dir', p.dir], p.env);
    expect(r.code).toBe(1);
    expect(r.stdout.trim()).toBe('');
    expect(r.stderr).toMatch(/is a worker \("health": \{"kind": "worker"\} in hostsync\.json\): it has no public URL/);
    const j = await runCli(['open', '--json', '--dir', p.dir], p.env);
    expect(JSON.parse(j.stdout)).toMatchObject({ ok: false, url: null, exitCode: 1 });
  });

  it('a bot whose health kind is left to auto, known by its package (discord.js): the same', async () => {
    const p = await project({ 'package.json': JSON.stringify({ name: 'b', main: 'bot.js', dependencies: { 'discord.js': '^14.0.0' } }), 'bot.js': 'console.log("Logged in as x")\n' });
    const r = await runCli(['open', '--dir', p.dir], p.env);
    expect(r.code).toBe(1);
    expect(r.stdout.trim()).toBe('');
    expect(r.stderr).toContain('is a worker (package.json lists discord.js): it has no public URL');
  });

  it('a web app (kind left to auto, no known package) still gets its URL', async () => {
    const web = "require('node:http').createServer((q, s) => s.end('<title>w</title>')).listen(Number(process.env.SERVER_PORT), '0.0.0.0');\n";
    const p = await project({ 'index.js': web });
    expect((await runCli(['push', '--dir', p.dir], p.env)).code).toBe(0);
    const r = await runCli(['open', '--dir', p.dir], p.env);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout.trim()).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/?$/);
  });
});
