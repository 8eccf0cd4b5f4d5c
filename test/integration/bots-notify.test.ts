/**
 * Issue 47, item 6: crashes that find you. A webhook server on 127.0.0.1 receives the crash
 * of a push and of a bot that goes down after it came up under watch, and the watch's stop;
 * never the API key, never a value of the env file, and the hook's URL never shows whole.
 */
import { spawn } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import { readdir, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startEmulator, type RunningEmulator } from '../../src/emulator/index.js';
import { CLI, runCli } from '../helpers/cli.js';
import { envFor } from '../helpers/push.js';
import { tempDir, writeTree } from '../helpers/tree.js';

const TOKEN = 'MTIz.NDU2.the-bot-token-never-sent';
const HOOK_SECRET = 'hook-secret-part-0123456789';
let emu: RunningEmulator;
let work: { dir: string; cleanup: () => Promise<void> };
let hook: Server;
let hookUrl = '';
let received: Array<{ path: string; type: string | undefined; body: { content: string; allowed_mentions?: unknown } }> = [];
let arrived = (): void => undefined;
const nextPost = (pred: (content: string) => boolean) =>
  new Promise<string>((resolve) => {
    arrived = () => {
      const hit = received.find((r) => pred(r.body.content));
      if (hit) resolve(hit.body.content);
    };
    arrived();
  });

const cli = (...args: string[]) => runCli([...args, '--dir', work.dir], envFor(emu));

beforeAll(async () => {
  emu = await startEmulator({});
  hook = createServer((req, res) => {
    let body = '';
    req.on('data', (d) => (body += d));
    req.on('end', () => {
      received.push({ path: req.url ?? '', type: req.headers['content-type'], body: JSON.parse(body) });
      res.writeHead(204).end();
      arrived();
    });
  });
  await new Promise<void>((r) => hook.listen(0, '127.0.0.1', r));
  const port = (hook.address() as { port: number }).port;
  hookUrl = `http://127.0.0.1:${port}/api/webhooks/1/${HOOK_SECRET}`;
});
afterAll(async () => {
  await emu?.close();
  await new Promise((r) => hook?.close(r));
});
beforeEach(async () => {
  work = await tempDir('hostsync-notify-');
  received = [];
  for (const name of await readdir(emu.volume)) await rm(path.join(emu.volume, name), { recursive: true, force: true });
});
afterEach(async () => {
  await work.cleanup();
});

async function project(bot: string): Promise<void> {
  await writeTree(work.dir, { 'index.js': bot, '.env': `DISCORD_TOKEN=${TOKEN}\n` });
  await writeFile(path.join(work.dir, 'hostsync.json'), JSON.stringify({ health: { kind: 'worker', ready: 'ready' }, notify: { webhook: hookUrl } }));
  // The bot gets its token the usual way; then it prints it in its crash.
  expect((await cli('env', 'push')).code).toBe(0);
}

describe('notify', () => {
  it('a push whose bot crashes at start posts the crash with its last lines, the token cut out', async () => {
    await project("throw new Error('invalid token ' + process.env.DISCORD_TOKEN);\n");
    const r = await cli('push');
    expect(r.code).toBe(4);
    const content = await nextPost((c) => c.includes('after the push'));
    expect(received).toHaveLength(1);
    expect(received[0]!.type).toBe('application/json');
    expect(received[0]!.path).toBe(`/api/webhooks/1/${HOOK_SECRET}`);
    expect(Object.keys(received[0]!.body).sort()).toEqual(['allowed_mentions', 'content']);
    expect(content).toMatch(/^hostsync, deployment \S+ \(127\.0\.0\.1:\d+\): the app is offline after the push/);
    expect(content, content).toContain('Error: invalid token [redacted]');
    expect(content).not.toContain(TOKEN);
    expect(content).not.toContain(emu.apiKey);
    expect(r.stdout + r.stderr).not.toContain(HOOK_SECRET);
  });

  it.runIf(process.platform === 'linux')('watch posts a bot that goes down after it came up, then the watch\'s stop', async () => {
    await project("console.log('ready');\nsetTimeout(() => { console.log('token', process.env.DISCORD_TOKEN); throw new Error('lost the gateway'); }, 4000);\nsetInterval(() => {}, 1000);\n");
    const child = spawn(process.execPath, [CLI, 'watch', '--dir', work.dir], {
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', NO_COLOR: '1', ...envFor(emu) },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout!.on('data', (d) => (out += d));
    child.stderr!.on('data', (d) => (out += d));
    const exit = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    try {
      const crash = await nextPost((c) => c.includes('after it came up'));
      expect(crash).toContain('the app went offline after it came up: Error: lost the gateway');
      expect(crash).not.toContain(TOKEN);
      child.kill('SIGTERM');
      expect(await exit).toBe(0);
      expect(received.map((r) => r.body.content).some((c) => c.endsWith(': watch stopped'))).toBe(true);
      expect(out).not.toContain(HOOK_SECRET);
      expect(out).not.toContain(TOKEN);
    } finally {
      if (child.exitCode === null) child.kill('SIGKILL');
    }
  });
});
