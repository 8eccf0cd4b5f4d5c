/**
 * The endpoints targets, env and doctor need (issue #14): env.*, getStartup/updateStartup,
 * resources, check, and several deployments. One table row per endpoint (documented keys,
 * scope, one error), then the behaviour each promises.
 */
import { existsSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { call, startTestEmulator, type TestEmulator } from './api-client.js';
import { testKey } from '../helpers/keys.js';

let t: TestEmulator;
const NO_SCOPE_KEY = testKey('no_scopes');
beforeAll(async () => {
  t = await startTestEmulator({ keys: [`${NO_SCOPE_KEY}:`], rateLimit: 100_000, userRateLimit: 100_000, deployments: 3 });
});
afterAll(() => t.close());

const created: string[] = [];
afterEach(async () => {
  for (const id of created.splice(0)) await call(t.emu, 'DELETE', `/deployments/${id}`);
});

/** A fresh deployment with FOO set, for `:dep`. */
async function fixture(route: string): Promise<string> {
  if (!route.includes(':dep')) return route;
  const dep = await t.emu.createDeployment({ name: 'envconf' });
  created.push(dep.id);
  expect((await call(t.emu, 'POST', `/deployments/${dep.id}/env`, { body: { key: 'FOO', value: 'bar' } })).status).toBe(200);
  return route.replace(':dep', dep.id);
}

interface Row {
  op: string;
  method: string;
  route: string;
  scope: string;
  destructive?: boolean;
  body?: unknown;
  query?: Record<string, string>;
  keys: string[];
  error: { route?: string; body?: unknown; query?: Record<string, string>; status: number };
}

const STARTUP_KEYS = ['kind', 'runtime', 'runtimeVersion', 'entryFile', 'startCommand', 'engine'];
const ROWS: Row[] = [
  { op: 'env.list', method: 'GET', route: '/deployments/:dep/env', scope: 'env:read', keys: ['variables'], error: { route: '/deployments/dep_missing/env', status: 404 } },
  { op: 'env.set', method: 'POST', route: '/deployments/:dep/env', scope: 'env:write', body: { key: 'TOKEN', value: 's3cret', secret: true }, keys: ['ok', 'key'], error: { body: { key: '1BAD', value: 'x' }, status: 400 } },
  { op: 'env.update', method: 'PATCH', route: '/deployments/:dep/env/FOO', scope: 'env:write', body: { value: 'baz' }, keys: ['ok', 'key'], error: { route: '/deployments/:dep/env/NOPE', status: 404 } },
  { op: 'env.delete', method: 'DELETE', route: '/deployments/:dep/env/FOO', scope: 'env:write', destructive: true, keys: ['ok'], error: { route: '/deployments/:dep/env/SERVER_PORT', status: 403 } },
  { op: 'env.audit', method: 'GET', route: '/deployments/:dep/env/audit', scope: 'env:read', keys: ['used', 'missing', 'unused', 'placeholders', 'note'], error: { route: '/deployments/dep_missing/env/audit', status: 404 } },
  { op: 'deployments.getStartup', method: 'GET', route: '/deployments/:dep/startup', scope: 'deployments:read', keys: STARTUP_KEYS, error: { route: '/deployments/dep_missing/startup', status: 404 } },
  { op: 'deployments.updateStartup', method: 'PATCH', route: '/deployments/:dep/startup', scope: 'deployments:write', body: { entryFile: 'main.js' }, keys: [...STARTUP_KEYS, 'warning'], error: { body: { runtime: 'static' }, status: 400 } },
  { op: 'deployments.resources', method: 'GET', route: '/deployments/:dep/resources', scope: 'deployments:read', keys: ['state', 'cpu.usedPercent', 'cpu.limitPercent', 'memory.usedBytes', 'memory.limitBytes', 'disk.usedBytes', 'disk.limitBytes', 'network.rxBytes', 'network.txBytes', 'uptimeMs'], error: { route: '/deployments/dep_missing/resources', status: 404 } },
  { op: 'deployments.check', method: 'GET', route: '/deployments/:dep/check', scope: 'deployments:read', keys: ['url', 'status', 'ok', 'contentType', 'title', 'body', 'error', 'hint', 'links', 'note'], error: { query: { method: 'TRACE' }, status: 400 } },
  { op: 'deployments.create', method: 'POST', route: '/deployments', scope: 'deployments:write', body: { name: 'made', source: 'blank', ramMB: 256 }, keys: ['deployment.id', 'deployment.startup', 'next'], error: { body: { name: 'big', source: 'blank', ramMB: 10_000_000 }, status: 400 } },
  { op: 'deployments.list', method: 'GET', route: '/deployments', scope: 'deployments:read', keys: ['deployments'], error: { route: '/deployments/dep_missing', status: 404 } },
  { op: 'deployments.get', method: 'GET', route: '/deployments/:dep', scope: 'deployments:read', keys: ['id', 'state', 'resources.ramMB', 'startup', 'connection'], error: { route: '/deployments/dep_missing', status: 404 } },
  { op: 'account.get', method: 'GET', route: '/account', scope: 'account:read', keys: ['id', 'username', 'email', 'createdAt', 'creditsCents', 'plan.tier', 'quota.pool.ramMB', 'quota.used.slots'], error: { route: '/account/x', status: 404 } },
];

describe.each(ROWS)('$op', (row) => {
  it('answers with the documented keys', async () => {
    const a = await call(t.emu, row.method, await fixture(row.route), { body: row.body, query: row.query });
    expect(a.status, JSON.stringify(a.json)).toBe(200);
    for (const k of row.keys) expect(a.json).toHaveProperty(k);
    expect(a.headers.get('x-destructive')).toBe(row.destructive ? 'true' : null);
    if (row.op === 'deployments.create') created.push(a.json.deployment.id);
  });

  it(`refuses a key without ${row.scope} (403 naming the scope)`, async () => {
    const a = await call(t.emu, row.method, await fixture(row.route), { body: row.body, query: row.query, key: NO_SCOPE_KEY });
    expect(a.status).toBe(403);
    expect(a.json.error).toContain(row.scope);
  });

  it(`answers ${row.error.status} to a bad call`, async () => {
    const a = await call(t.emu, row.method, await fixture(row.error.route ?? row.route), { body: row.error.body ?? row.body, query: row.error.query ?? row.query });
    expect(a.status, JSON.stringify(a.json)).toBe(row.error.status);
    expect(typeof a.json.error).toBe('string');
  });
});

describe('behaviour', () => {
  it('--deployments 3 starts with three; create draws its size from the pool', async () => {
    const list = (await call(t.emu, 'GET', '/deployments', { query: { brief: 'true' } })).json.deployments;
    expect(list.map((d: { name: string }) => d.name)).toEqual(expect.arrayContaining(['app', 'app-2', 'app-3']));
    const made = await call(t.emu, 'POST', '/deployments', { body: { name: 'small', source: 'blank', ramMB: 256, env: { GREETING: 'hi' } } });
    created.push(made.json.deployment.id);
    expect(made.json.deployment.resources.ramMB).toBe(256);
    const res = await call(t.emu, 'GET', `/deployments/${made.json.deployment.id}/resources`);
    expect(res.json.memory.limitBytes).toBe(256 * 1024 * 1024);
    const env = await call(t.emu, 'GET', `/deployments/${made.json.deployment.id}/env`);
    expect(env.json.variables).toContainEqual({ key: 'GREETING', value: 'hi', secret: false, system: false });
  });

  it('env.list masks secrets; system variables are listed and cannot be set; update renames and flips', async () => {
    const id = (await fixture('/deployments/:dep')).split('/')[2]!;
    const base = `/deployments/${id}/env`;
    await call(t.emu, 'POST', base, { body: { key: 'TOKEN', value: 'hunter2', secret: true } });
    const listed = await call(t.emu, 'GET', base);
    expect(JSON.stringify(listed.json)).not.toContain('hunter2');
    expect(listed.json.variables).toContainEqual({ key: 'TOKEN', value: '********', secret: true, system: false });
    expect(listed.json.variables).toContainEqual(expect.objectContaining({ key: 'SERVER_PORT', system: true }));
    expect((await call(t.emu, 'POST', base, { body: { key: 'SERVER_PORT', value: '1' } })).status).toBe(403);
    // an update of the value that does not mention `secret` keeps it secret
    await call(t.emu, 'POST', base, { body: { key: 'TOKEN', value: 'hunter3' } });
    expect((await call(t.emu, 'GET', base)).json.variables).toContainEqual(expect.objectContaining({ key: 'TOKEN', secret: true }));
    expect((await call(t.emu, 'PATCH', `${base}/FOO`, { body: { newKey: 'TOKEN' } })).status).toBe(409);
    expect((await call(t.emu, 'PATCH', `${base}/FOO`, { body: { newKey: 'BAR', secret: true } })).json).toEqual({ ok: true, key: 'BAR' });
    const after = (await call(t.emu, 'GET', base)).json.variables.map((v: { key: string; secret: boolean }) => `${v.key}:${v.secret}`);
    expect(after).toEqual(expect.arrayContaining(['BAR:true', 'TOKEN:true']));
    expect(after).not.toContain('FOO:false');
  });

  it('env.audit finds each documented read in the volume, and reports missing, unused and placeholders', async () => {
    const dep = await t.emu.createDeployment({ name: 'audit' });
    created.push(dep.id);
    writeFileSync(path.join(dep.volume, 'index.js'), "const a = process.env.DISCORD_TOKEN; const b = process.env['DB_URL'];\n");
    writeFileSync(path.join(dep.volume, 'app.py'), "import os\nx = os.environ['PY_ONE']\ny = os.getenv('PY_TWO')\n");
    writeFileSync(path.join(dep.volume, 'index.php'), "<?php echo getenv('PHP_KEY');\n");
    const base = `/deployments/${dep.id}/env`;
    await call(t.emu, 'POST', base, { body: { key: 'DB_URL', value: 'changeme' } });
    await call(t.emu, 'POST', base, { body: { key: 'UNUSED_ONE', value: 'real-value', secret: true } });
    const a = (await call(t.emu, 'GET', `${base}/audit`)).json;
    expect(a.used.map((u: { key: string }) => u.key)).toEqual(['DB_URL', 'DISCORD_TOKEN', 'PHP_KEY', 'PY_ONE', 'PY_TWO']);
    expect(a.used.find((u: { key: string }) => u.key === 'PY_TWO').files).toEqual(['app.py']);
    expect(a.missing).toEqual(['DISCORD_TOKEN', 'PHP_KEY', 'PY_ONE', 'PY_TWO']);
    expect(a.unused).toEqual(['UNUSED_ONE']);
    expect(a.placeholders).toEqual(['DB_URL']);
    expect(JSON.stringify(a)).not.toContain('real-value');
  });

  it('the app gets its variables at its next (re)start, not before', async () => {
    const dep = await t.emu.createDeployment({ name: 'envapp' });
    created.push(dep.id);
    writeFileSync(path.join(dep.volume, 'index.js'), "console.log('GREETING=' + process.env.GREETING); setInterval(() => {}, 1000);\n");
    const base = `/deployments/${dep.id}`;
    await call(t.emu, 'POST', `${base}/power`, { body: { action: 'start' } });
    await call(t.emu, 'POST', `${base}/env`, { body: { key: 'GREETING', value: 'hello' } });
    const before = (await call(t.emu, 'GET', `${base}/logs`)).json.lines.join('\n');
    expect(before).toContain('GREETING=undefined');
    expect(before).not.toContain('GREETING=hello');
    await call(t.emu, 'POST', `${base}/power`, { body: { action: 'restart' } });
    expect((await call(t.emu, 'GET', `${base}/logs`)).json.lines.join('\n')).toContain('GREETING=hello');
    await call(t.emu, 'POST', `${base}/power`, { body: { action: 'kill' } });
  });

  it('updateStartup: a change of type needs wipeFiles and then deletes every file; a new runtime brings its defaults', async () => {
    const dep = await t.emu.createDeployment({ name: 'retype' });
    created.push(dep.id);
    writeFileSync(path.join(dep.volume, 'index.js'), 'x');
    const route = `/deployments/${dep.id}/startup`;
    // same type: no wipe needed, files stay; the last step is exec'd
    const cmd = await call(t.emu, 'PATCH', route, { body: { startCommand: 'npm install && node server.js' } });
    expect(cmd.json.startCommand).toBe('npm install && exec node server.js');
    expect(existsSync(path.join(dep.volume, 'index.js'))).toBe(true);
    const refused = await call(t.emu, 'PATCH', route, { body: { runtime: 'static' } });
    expect(refused.status).toBe(400);
    expect(refused.json.error).toMatch(/wipeFiles/);
    expect(existsSync(path.join(dep.volume, 'index.js'))).toBe(true);
    const done = await call(t.emu, 'PATCH', route, { body: { runtime: 'static', wipeFiles: true } });
    expect(done.status).toBe(200);
    expect(done.json).toMatchObject({ runtime: 'static', entryFile: 'index.html', kind: 'runtime', startCommand: '' });
    expect(existsSync(path.join(dep.volume, 'index.js'))).toBe(false);
    expect((await call(t.emu, 'GET', `/deployments/${dep.id}`)).json.runtime).toBe('static');
  });

  it('deployments.check requests the app like a visitor and follows its same-origin links', async () => {
    const dep = await t.emu.createDeployment({ name: 'site', runtime: 'static' });
    created.push(dep.id);
    writeFileSync(path.join(dep.volume, 'index.html'), '<title>Home</title><nav><a href="/a.html">A</a><a href="/a.html">A</a></nav><a href="/gone.html">x</a>');
    writeFileSync(path.join(dep.volume, 'a.html'), 'a');
    const base = `/deployments/${dep.id}`;
    const stopped = (await call(t.emu, 'GET', `${base}/check`)).json;
    expect(stopped.ok).toBe(false);
    await call(t.emu, 'POST', `${base}/power`, { body: { action: 'start' } });
    const c = (await call(t.emu, 'GET', `${base}/check`)).json;
    expect(c).toMatchObject({ status: 200, ok: true, title: 'Home' });
    expect(c.links).toEqual([{ path: '/a.html', status: 200 }, { path: '/gone.html', status: 404 }]);
    expect(c.note).toMatch(/broken: \/gone\.html \(404\).*duplicated nav entries: \/a\.html/);
    await call(t.emu, 'POST', `${base}/power`, { body: { action: 'stop' } });
  });
});
