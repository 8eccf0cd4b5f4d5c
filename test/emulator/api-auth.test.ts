import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseKeySpec } from '../../src/emulator/index.js';
import { call, startTestEmulator, type TestEmulator } from './api-client.js';
import { testKey } from '../helpers/keys.js';

const READONLY = testKey('readonly');
const NOTHING = testKey('nothing');
const DEPLOY = testKey('deploy');
const UNKNOWN = testKey('unknown');

let t: TestEmulator;
beforeAll(async () => {
  t = await startTestEmulator({ keys: [`${READONLY}:files:read`, `${NOTHING}:`, `${DEPLOY}:deployments:read,account:read`] });
});
afterAll(() => t.close());

describe('authentication and scopes', () => {
  it('answers 401 without a key, with a malformed header and with an unknown key, never echoing the key', async () => {
    const none = await call(t.emu, 'GET', '~/files', { key: null });
    expect(none.status).toBe(401);
    expect(none.json.error).toMatch(/Bearer/);
    expect(none.json.code).toBe('unauthorized');
    expect(none.headers.get('x-ratelimit-remaining')).toMatch(/^\d+$/); // every answer carries it, 401 included (hosting-api.md, Limits)

    const res = await fetch(`${t.emu.baseUrl}/api/v1/deployments`, { headers: { Authorization: `Basic ${t.emu.apiKey}` } });
    expect(res.status).toBe(401);
    expect(await res.text()).not.toContain(t.emu.apiKey);

    const unknown = await call(t.emu, 'GET', '~/files', { key: UNKNOWN });
    expect(unknown.status).toBe(401);
    expect(JSON.stringify(unknown.json)).not.toContain(UNKNOWN);
  });

  it('answers 403 naming the missing scope', async () => {
    const w = await call(t.emu, 'POST', '~/files/writeMany', { key: READONLY, body: { files: [{ path: 'a', content: 'a' }] } });
    expect(w.status).toBe(403);
    expect(w.json.error).toContain('files:write');
    expect(w.headers.get('x-ratelimit-remaining')).toMatch(/^\d+$/);
    const p = await call(t.emu, 'POST', '~/power', { key: DEPLOY, body: { action: 'start' } });
    expect(p.status).toBe(403);
    expect(p.json.error).toContain('deployments:power');
    const n = await call(t.emu, 'GET', '/account', { key: NOTHING });
    expect(n.status).toBe(403);
    expect(n.json.error).toContain('account:read');
    // The scope it does hold works.
    expect((await call(t.emu, 'GET', '~/files', { key: READONLY })).status).toBe(200);
    expect((await call(t.emu, 'GET', '/account', { key: DEPLOY })).status).toBe(200);
  });

  it('gives the printed default key every scope', async () => {
    for (const [m, r, body] of [
      ['GET', '~', undefined],
      ['GET', '/account', undefined],
      ['POST', '~/files/content', { path: 'x.txt', content: 'x' }],
      ['GET', '~/files/content', undefined],
    ] as const) {
      const a = await call(t.emu, m, r, { body, query: m === 'GET' && r.endsWith('content') ? { path: 'x.txt' } : {} });
      expect(a.status, `${m} ${r}`).toBe(200);
    }
  });

  it('answers 404 for an unknown deployment and for an unknown endpoint (counted as "unknown")', async () => {
    const d = await call(t.emu, 'GET', '/deployments/dep_nope/files');
    expect(d.status).toBe(404);
    expect(d.json.error).toContain('dep_nope');
    expect(d.headers.get('x-ratelimit-remaining')).toMatch(/^\d+$/);
    t.emu.resetStats();
    const u = await call(t.emu, 'GET', '/no/such/thing');
    expect(u.status).toBe(404);
    expect(t.emu.stats().requests.byOperation.unknown).toBe(1);
    const m = await call(t.emu, 'DELETE', '~/files/content');
    expect(m.status).toBe(405);
  });

  it('answers errors as {error, code} JSON', async () => {
    const a = await call(t.emu, 'POST', '~/files/content', { body: { path: 'x.txt' } });
    expect(a.status).toBe(400);
    expect(Object.keys(a.json).sort()).toEqual(['code', 'error']);
    expect(a.headers.get('content-type')).toMatch(/application\/json/);
    const bad = await fetch(`${t.emu.baseUrl}/api/v1/deployments/${t.emu.deploymentId}/files/content`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${t.emu.apiKey}`, 'Content-Type': 'application/json' },
      body: '{not json',
    });
    expect(bad.status).toBe(400);
    expect((await bad.json()).code).toBe('invalid_json');
    const form = await fetch(`${t.emu.baseUrl}/api/v1/deployments/${t.emu.deploymentId}/files/content`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${t.emu.apiKey}`, 'Content-Type': 'application/x-www-form-urlencoded' },
      body: 'path=a&content=b',
    });
    expect(form.status).toBe(415);
  });

  it('counts every /api/v1 request by operation, 401/403 included, and not admin routes', async () => {
    await fetch(`${t.emu.baseUrl}/__emulator/stats/reset`, { method: 'POST' });
    await call(t.emu, 'POST', '~/files/index', { body: {} });
    await call(t.emu, 'POST', '~/files/index', { body: {}, key: null });
    await call(t.emu, 'POST', '~/files/writeMany', { body: { files: [{ path: 'q', content: 'q' }] }, key: READONLY });
    const s = await (await fetch(`${t.emu.baseUrl}/__emulator/stats`)).json();
    expect(s).toEqual({ requests: { total: 3, byOperation: { 'files.index': 2, 'files.writeMany': 1 } }, rateLimited: 0 });
  });

  it('names things in the document (full deployment record, account)', async () => {
    const d = await call(t.emu, 'GET', '~');
    for (const f of ['id', 'name', 'state', 'status', 'createdAt', 'projectId', 'owned', 'owner', 'shared', 'resources', 'runtime', 'entryFile', 'domains', 'node', 'port', 'ports', 'startup', 'connection']) {
      expect(d.json, f).toHaveProperty(f);
    }
    expect(d.json.id).toBe(t.emu.deploymentId);
    const a = await call(t.emu, 'GET', '/account');
    expect(a.json.plan).toMatchObject({ tier: expect.any(String), name: expect.any(String), source: expect.any(String), status: expect.any(String) });
    for (const k of ['pool', 'used']) expect(Object.keys(a.json.quota[k]).sort()).toEqual(['cpuPct', 'ramMB', 'slots', 'storageMB']);
  });
});

describe('parseKeySpec', () => {
  it('parses TOKEN:scope,scope', () => {
    expect(parseKeySpec('abc:files:read,files:write')).toEqual({ token: 'abc', scopes: ['files:read', 'files:write'] });
    expect(parseKeySpec('abc:')).toEqual({ token: 'abc', scopes: [] });
  });
  it('throws one line naming the problem', () => {
    expect(() => parseKeySpec('nocolon')).toThrow(/TOKEN:scope/);
    expect(() => parseKeySpec(':files:read')).toThrow(/TOKEN/);
    expect(() => parseKeySpec('abc:files:reed')).toThrow(/files:reed/);
    expect(() => parseKeySpec('a b:files:read')).toThrow();
  });
});
