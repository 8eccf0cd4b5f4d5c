import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, startTestEmulator, type TestEmulator } from './api-client.js';

let t: TestEmulator;
beforeAll(async () => {
  t = await startTestEmulator();
});
afterAll(() => t.close());

const HELLO_APP = `
const http = require('node:http');
console.log('booting hello app');
http.createServer((req, res) => {
  res.writeHead(200, { 'Content-Type': 'text/html' });
  res.end('<!doctype html><html><head><title>Hello</title></head><body>hi</body></html>');
}).listen(Number(process.env.SERVER_PORT), '0.0.0.0', () => console.log('listening on ' + process.env.SERVER_PORT));
`;

describe('deployments: records', () => {
  it('get returns the full record; a new deployment is offline (installed, not started)', async () => {
    const d = await call(t.emu, 'GET', '~');
    expect(d.status).toBe(200);
    expect(d.json).toMatchObject({
      id: t.emu.deploymentId,
      state: 'offline',
      status: 'active',
      owned: true,
      owner: { id: expect.any(String), username: expect.any(String) },
      shared: [],
      runtime: 'nodejs',
      entryFile: 'index.js',
      node: { fqdn: '127.0.0.1' },
      port: null,
      ports: [],
      startup: { kind: 'runtime', runtime: 'nodejs', entryFile: 'index.js' },
    });
    expect(Number.isNaN(Date.parse(d.json.createdAt))).toBe(false);
  });

  it('list returns owned deployments, filters by name, and gives brief rows', async () => {
    const other = await t.emu.createDeployment({ name: 'Other-Site', runtime: 'static', entryFile: '' });
    const all = await call(t.emu, 'GET', '/deployments');
    expect(all.json.deployments.map((d: any) => d.id).sort()).toEqual([t.emu.deploymentId, other.id].sort());
    const filtered = await call(t.emu, 'GET', '/deployments', { query: { name: 'other' } });
    expect(filtered.json.deployments.map((d: any) => d.id)).toEqual([other.id]);
    const brief = await call(t.emu, 'GET', '/deployments', { query: { brief: true, name: 'other' } });
    expect(Object.keys(brief.json.deployments[0]).sort()).toEqual(['entryFile', 'id', 'name', 'runtime', 'state', 'url']);
    // Each deployment has its own volume.
    expect(other.volume).not.toBe(t.emu.volume);
    writeFileSync(path.join(other.volume, 'only-there.txt'), 'x');
    const mine = await call(t.emu, 'POST', '~/files/index', { body: {} });
    expect(mine.json.entries.some((e: any) => e.path === 'only-there.txt')).toBe(false);
    const theirs = await call(t.emu, 'POST', `/deployments/${other.id}/files/index`, { body: {} });
    expect(theirs.json.entries.some((e: any) => e.path === 'only-there.txt')).toBe(true);
  });

  it('getStartup returns the startup config; account.get the plan and quota', async () => {
    const s = await call(t.emu, 'GET', '~/startup');
    expect(Object.keys(s.json).sort()).toEqual(['engine', 'entryFile', 'kind', 'runtime', 'runtimeVersion', 'startCommand']);
    const a = await call(t.emu, 'GET', '/account');
    expect(a.json.quota.used.slots).toBe(2);
  });
});

describe('deployments: running the app', () => {
  it('apply of a node app that listens answers running, http.ok and the page title', async () => {
    writeFileSync(path.join(t.emu.volume, 'index.js'), HELLO_APP);
    const a = await call(t.emu, 'POST', '~/apply', { body: {} });
    expect(a.status).toBe(200);
    expect(a.json.state).toBe('running');
    expect(a.json.restarted).toBe(true);
    expect(typeof a.json.skippedRestart).toBe('string');
    expect(a.json.http.ok).toBe(true);
    expect(a.json.http.status).toBe(200);
    expect(a.json.http.title).toBe('Hello');
    for (const k of ['state', 'installing', 'resources', 'logs', 'startup', 'http', 'direct', 'hint']) expect(a.json, k).toHaveProperty(k);

    const d = await call(t.emu, 'GET', '~');
    expect(d.json.state).toBe('running');
    expect(d.json.port).toEqual(expect.any(Number));
    expect(d.json.ports).toEqual([d.json.port]);
    expect(d.json.domains.url).toBe(`http://127.0.0.1:${d.json.port}`);
    const page = await fetch(d.json.domains.url);
    expect(await page.text()).toContain('<title>Hello</title>');

    const diag = await call(t.emu, 'GET', '~/diagnose');
    expect(diag.json).toMatchObject({ state: 'running', installing: false, http: { ok: true, title: 'Hello' } });
    const logs = await call(t.emu, 'GET', '~/logs', { query: { size: 50 } });
    expect(logs.json.lines.join('\n')).toContain('booting hello app');
    expect(logs.json.state).toBe('running');
    expect(typeof logs.json.settled).toBe('boolean');
    const found = await call(t.emu, 'GET', '~/logs/search', { query: { pattern: 'BOOTING' } });
    expect(found.json.matches.length).toBeGreaterThanOrEqual(1);
    expect(found.json.matches[0].text).toContain('booting hello app');
    expect(found.json.scanned).toBeGreaterThanOrEqual(1);
    expect((await call(t.emu, 'GET', '~/logs/search')).status).toBe(400);
  });

  it('power stop takes it offline; power start brings it back', async () => {
    const stop = await call(t.emu, 'POST', '~/power', { body: { action: 'stop', waitSeconds: 10 } });
    expect(stop.status).toBe(200);
    expect(stop.json).toMatchObject({ ok: true, action: 'stop', state: 'offline' });
    const start = await call(t.emu, 'POST', '~/power', { body: { action: 'start' } });
    expect(start.json).toMatchObject({ ok: true, action: 'start', state: 'running' });
    expect(Array.isArray(start.json.logs)).toBe(true);
    expect((await call(t.emu, 'POST', '~/power', { body: { action: 'explode' } })).status).toBe(400);
    expect((await call(t.emu, 'POST', '~/power', { body: {} })).status).toBe(400);
  });

  it('apply of an app that throws at start answers offline, with the error in the logs', async () => {
    writeFileSync(path.join(t.emu.volume, 'index.js'), "throw new Error('kaboom at startup');\n");
    const a = await call(t.emu, 'POST', '~/apply', { body: {} });
    expect(a.status).toBe(200);
    expect(a.json.state).toBe('offline');
    expect(a.json.http.ok).toBe(false);
    expect(a.json.logs.join('\n')).toContain('kaboom at startup');
    const logs = await call(t.emu, 'GET', '~/logs');
    expect(logs.json.lines.join('\n')).toContain('kaboom at startup');
    expect(logs.json.state).toBe('offline');
  });
});

describe('close', () => {
  it('stops every app process it started', async () => {
    const own = await startTestEmulator();
    writeFileSync(path.join(own.emu.volume, 'index.js'), HELLO_APP);
    const a = await call(own.emu, 'POST', '~/apply', { body: {} });
    expect(a.json.state).toBe('running');
    const url = a.json.http.url as string;
    expect((await fetch(url)).status).toBe(200);
    await own.close();
    await expect(fetch(url)).rejects.toThrow();
  });
});
