/**
 * Issue 46, item 13: lines a push printed every time. "deployments.updateStartup: applies
 * at the next (re)start" when the same push restarted the app; "health: auto judged it a
 * web ...; pin it" on every push (it is said once, per deployment, from this folder); and
 * `push -q` naming JSON fields (health.logs, apply.hint) in an error a human reads.
 */
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startEmulator, type RunningEmulator } from '../../src/emulator/index.js';
import { runCli } from '../helpers/cli.js';
import { tempDir, writeTree } from '../helpers/tree.js';

const WEB = "require('node:http').createServer((q, s) => s.end('<title>w</title>')).listen(Number(process.env.SERVER_PORT), '0.0.0.0');\n";
let emu: RunningEmulator;
let work: { dir: string; cleanup: () => Promise<void> };
let env: Record<string, string>;
const cli = (...args: string[]) => runCli([...args, '--dir', work.dir], env);

beforeAll(async () => {
  emu = await startEmulator({ rateLimit: 1_000_000, userRateLimit: 1_000_000 });
});
afterAll(async () => {
  await emu?.close();
});
beforeEach(async () => {
  const dep = await emu.createDeployment({ runtime: 'nodejs' });
  work = await tempDir('hostsync-repeated-');
  env = { HOSTSYNC_API_KEY: emu.apiKey, HOSTSYNC_BASE_URL: emu.baseUrl, HOSTSYNC_DEPLOYMENT: dep.id };
});
afterEach(async () => {
  await work.cleanup();
});

describe('lines a push no longer repeats', () => {
  it('a push that changes the start settings and restarts the app does not say the change applies at the next (re)start', async () => {
    await writeTree(work.dir, { 'hostsync.json': JSON.stringify({ startup: { entryFile: 'server.js' } }), 'server.js': WEB });
    const r = await cli('push');
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(r.stdout).toMatch(/restarted/);
    expect(r.stdout + r.stderr).not.toContain('applies at the next (re)start');
    // --no-apply restarts nothing: there the warning is the news.
    await writeTree(work.dir, { 'hostsync.json': JSON.stringify({ startup: { entryFile: 'main.js' } }), 'main.js': WEB });
    const held = await cli('push', '--no-apply');
    expect(held.code, held.stdout + held.stderr).toBe(0);
    expect(held.stdout).toContain('deployments.updateStartup: applies at the next (re)start');
  });

  it('"auto judged it a web" is said on the first push, not on the next ones', async () => {
    await writeTree(work.dir, { 'index.js': WEB });
    const first = await cli('push');
    expect(first.code, first.stdout + first.stderr).toBe(0);
    expect(first.stdout).toContain('health: auto judged it a web');
    for (const v of ['a', 'b']) {
      await writeTree(work.dir, { 'index.js': `${WEB}// ${v}\n` });
      const next = await cli('push');
      expect(next.code, next.stdout + next.stderr).toBe(0);
      expect(next.stdout).toMatch(/HTTP 200/);
      expect(next.stdout).not.toContain('auto judged');
    }
    // --json still says how health was decided, every time.
    await writeTree(work.dir, { 'index.js': `${WEB}// c\n` });
    const json = JSON.parse((await cli('push', '--json')).stdout);
    expect(json.health).toMatchObject({ kind: 'web', decided: 'auto' });
  });

  it('push -q on an app that crashes names no JSON field in its error', async () => {
    await writeTree(work.dir, { 'hostsync.json': JSON.stringify({ health: { kind: 'web', timeoutSeconds: 3 } }), 'index.js': 'throw new Error("boom at start")\n' });
    const r = await cli('push', '-q');
    expect(r.code).toBe(4);
    expect(r.stderr).toMatch(/^hostsync: the deployment is unhealthy after the push: .*; `hostsync logs` shows the app's console\n$/);
    expect(r.stderr).not.toMatch(/health\.logs|apply\.hint/);
  });
});
