/**
 * `npm start`, the README's first command: the demo pushes the web app, then the bot on a
 * deployment of its own, and both come up. It runs from a copy of scripts/ and examples/
 * (dist/ linked), because the demo writes each example's .hostsync/ state and other tests
 * copy examples/hello.
 */
import { spawn } from 'node:child_process';
import { cp, symlink } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from '../helpers/tree.js';

const REPO = path.resolve(import.meta.dirname, '../..');
let copy: { dir: string; cleanup: () => Promise<void> };

beforeAll(async () => {
  copy = await tempDir('hostsync-demo-');
  await cp(path.join(REPO, 'scripts'), path.join(copy.dir, 'scripts'), { recursive: true });
  await cp(path.join(REPO, 'examples'), path.join(copy.dir, 'examples'), {
    recursive: true,
    filter: (src) => path.basename(src) !== '.hostsync',
  });
  await symlink(path.join(REPO, 'dist'), path.join(copy.dir, 'dist'));
});
afterAll(async () => {
  await copy?.cleanup();
});

function runDemo(): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    // CI set and stdout piped: the demo pushes and leaves instead of watching.
    const env = { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', NO_COLOR: '1', CI: '1' };
    const child = spawn(process.execPath, [path.join(copy.dir, 'scripts/demo.mjs')], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('error', reject);
    child.on('exit', (code) => resolve({ code: code ?? 1, stdout, stderr }));
  });
}

describe('npm start (the demo)', () => {
  it('deploys the web app, then the bot on its own deployment, and both come up', async () => {
    const r = await runDemo();
    expect(r.code, r.stdout + r.stderr).toBe(0);
    const web = r.stdout.indexOf('$ hostsync push --dir examples/hello');
    const bot = r.stdout.indexOf('$ hostsync push --dir examples/discord-bot');
    expect(web).toBeGreaterThan(-1);
    expect(bot).toBeGreaterThan(web);
    expect(r.stdout.slice(web, bot)).toMatch(/✔ deployment running · HTTP 200 · "Hello from hostsync"/);
    const botPart = r.stdout.slice(bot);
    expect(botPart).toMatch(/✔ deployment running · worker · ready: "Logged in as ExampleBot#0001"/);
    // The summary of a worker names no HTTP status it never had.
    expect(botPart).toMatch(/^Pushed to deployment dep_\w+ .* · running worker, ready$/m);
    expect(botPart).not.toMatch(/HTTP 0/);
  }, 120_000);
});
