/**
 * The emulator as strict as the real service (issue #30): the document's default size
 * and its out-of-memory install, logs' size cap, a small live console, what sits in
 * front of the API (an HTML challenge page), and the rate header on every answer.
 */
import { writeFileSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { call, startTestEmulator, type TestEmulator } from './api-client.js';

const open: TestEmulator[] = [];
const offlineBefore = process.env.npm_config_offline;
afterEach(async () => {
  await Promise.all(open.splice(0).map((t) => t.close()));
  if (offlineBefore === undefined) delete process.env.npm_config_offline;
  else process.env.npm_config_offline = offlineBefore;
});
async function emulator(opts: Parameters<typeof startTestEmulator>[0] = {}): Promise<TestEmulator> {
  const t = await startTestEmulator(opts);
  open.push(t);
  return t;
}

/** An app whose one dependency is a local package, so npm install runs offline. */
function writeApp(volume: string, deps: Record<string, string> = { greet: 'file:./vendor/greet' }): void {
  mkdirSync(path.join(volume, 'vendor', 'greet'), { recursive: true });
  writeFileSync(path.join(volume, 'vendor', 'greet', 'package.json'), JSON.stringify({ name: 'greet', version: '1.0.0' }));
  writeFileSync(path.join(volume, 'package.json'), JSON.stringify({ name: 'app', private: true, dependencies: deps }));
  writeFileSync(path.join(volume, 'index.js'), "require('node:http').createServer((q, s) => s.end('ok')).listen(Number(process.env.SERVER_PORT), '0.0.0.0');\n");
}

describe('memory: the document\'s default size and its out-of-memory install', () => {
  it('a new deployment gets 256 MB, the equal share of the free pool when that is smaller; the start deployment too', async () => {
    const t = await emulator();
    expect((await call(t.emu, 'GET', '~')).json.resources.ramMB).toBe(256);
    const made = await call(t.emu, 'POST', '/deployments', { body: { name: 'second', source: 'blank' } });
    expect(made.status).toBe(200);
    expect(made.json.deployment.resources.ramMB).toBe(256);
    // Spend most of the pool on one deployment: the equal share of what is left drops below 256.
    const account = (await call(t.emu, 'GET', '/account')).json.quota;
    const big = account.pool.ramMB - account.used.ramMB - 30 * 100;
    expect((await call(t.emu, 'PATCH', `/deployments/${made.json.deployment.id}/resize`, { body: { ramMB: 256 + big, cpuPct: 100, storageMB: 5120 } })).status).toBe(200);
    const third = await call(t.emu, 'POST', '/deployments', { body: { name: 'third', source: 'blank' } });
    expect(third.json.deployment.resources.ramMB).toBe(100);
  });

  it('npm install at the default size is killed: exit 137, "Out of memory: true", state offline; after resize to 512 the app comes up', async () => {
    process.env.npm_config_offline = 'true'; // the install passes it on to npm: no registry
    const t = await emulator();
    writeApp(t.emu.volume);
    const applied = await call(t.emu, 'POST', '~/apply', { body: {} });
    expect(applied.json.state).toBe('offline');
    expect(applied.json.logs).toContain('[emulator] npm install exited with code 137');
    expect(applied.json.logs.some((l: string) => l.startsWith('[emulator] Out of memory: true'))).toBe(true);
    expect(applied.json.hint).toMatch(/Out of memory: true.*256 MB.*512 MB or more; resize it \(deployments\.resize\)/);
    const resized = await call(t.emu, 'PATCH', '~/resize', { body: { ramMB: 512, cpuPct: 100, storageMB: 5120 } });
    expect(resized.json.resources.ramMB).toBe(512);
    const again = await call(t.emu, 'POST', '~/apply', { body: {} });
    expect(again.json.state).toBe('running');
  });

  it('--ram-mb gives the start deployment its RAM (what tests and the demo use to install a modern stack)', async () => {
    const t = await emulator({ ramMB: 1024 });
    expect((await call(t.emu, 'GET', '~')).json.resources.ramMB).toBe(1024);
    expect((await call(t.emu, 'GET', '~/diagnose')).json.resources.ramLimitMB).toBe(1024);
  });
});

describe('logs as strict as the evidence', () => {
  it('deployments.logs refuses a size above 500 with 400 and one line; 500 is fine', async () => {
    const t = await emulator();
    const refused = await call(t.emu, 'GET', '~/logs', { query: { size: 501 } });
    expect(refused.status).toBe(400);
    expect(refused.json.error).toBe('size must be at most 500 lines (got 501); deployments.searchLogs reads further back');
    expect((await call(t.emu, 'GET', '~/logs', { query: { size: 500 } })).status).toBe(200);
  });

  it('--console-lines 20: boot lines rotate out of the live console, searchLogs still finds them', async () => {
    const t = await emulator({ consoleLines: 20 });
    writeFileSync(path.join(t.emu.volume, 'index.js'), "console.log('READY on port');\nfor (let i = 1; i <= 40; i++) console.log('tick ' + i);\nsetInterval(() => {}, 60000);\n");
    const applied = await call(t.emu, 'POST', '~/apply', { body: {} });
    expect(applied.json.state).toBe('running');
    const logs = (await call(t.emu, 'GET', '~/logs', { query: { size: 500 } })).json.lines as string[];
    expect(logs).toHaveLength(20);
    expect(logs).not.toContain('READY on port');
    const found = await call(t.emu, 'GET', '~/logs/search', { query: { pattern: 'READY' } });
    expect(found.json.matches.map((m: { text: string }) => m.text)).toEqual(['READY on port']);
  });
});

describe('what sits in front of the API', () => {
  it('html403=1 answers an HTML 403 challenge page, without the API\'s JSON or rate header, before the key is checked', async () => {
    const t = await emulator({ faults: 'html403=1' });
    for (const key of [t.emu.apiKey, null]) {
      const r = await call(t.emu, 'GET', '~', { key });
      expect(r.status).toBe(403);
      expect(r.headers.get('content-type')).toMatch(/^text\/html/);
      expect(String(r.json)).toMatch(/^<!DOCTYPE html>.*<title>Just a moment\.\.\.<\/title>/);
      expect(r.headers.get('x-ratelimit-remaining')).toBeNull();
    }
  });

  it('every 401 and 429 carries X-RateLimit-Remaining (and a 429 Retry-After)', async () => {
    const t = await emulator({ rateLimit: 1 });
    for (const key of [null, 'not-a-key']) {
      const r = await call(t.emu, 'GET', '~', { key });
      expect(r.status).toBe(401);
      expect(r.headers.get('x-ratelimit-remaining')).toMatch(/^\d+$/);
    }
    expect((await call(t.emu, 'GET', '~')).status).toBe(200);
    const limited = await call(t.emu, 'GET', '~');
    expect(limited.status).toBe(429);
    expect(limited.headers.get('x-ratelimit-remaining')).toBe('0');
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
  });
});
