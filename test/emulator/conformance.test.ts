/**
 * Conformance of the endpoints beyond sync's needs (issue "The whole API, locally"):
 * for each, the documented keys of a good answer, the scope (403 for a key without
 * it), one error case, and the Destructive flag. Each row builds its own fixture so
 * rows stay independent; the deployment used is created fresh per row.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { call, startTestEmulator, type TestEmulator } from './api-client.js';

let t: TestEmulator;
/** A key holding no scope at all: every row's scope check must refuse it. */
const NO_SCOPE_KEY = 'conformance-no-scopes';
beforeAll(async () => {
  t = await startTestEmulator({ keys: [`${NO_SCOPE_KEY}:`] });
});
afterAll(() => t.close());

interface Row {
  op: string;
  method: string;
  /** `:dep` is replaced by a fresh deployment's id. */
  route: string;
  scope: string;
  destructive?: boolean;
  body?: unknown;
  query?: Record<string, string | number | boolean>;
  keys: string[];
  /** One documented failure: [route, body or query, status]. */
  error: { route?: string; body?: unknown; query?: Record<string, string>; status: number };
}

const ROWS: Row[] = [
  { op: 'projects.list', method: 'GET', route: '/projects', scope: 'projects:read', keys: ['projects'], error: { route: '/projects/nope', status: 405 } },
  { op: 'projects.create', method: 'POST', route: '/projects', scope: 'projects:write', body: { name: 'p' }, keys: ['id', 'name', 'isOwner', 'createdAt'], error: { body: {}, status: 400 } },
  { op: 'projects.delete', method: 'DELETE', route: '/projects/:project', scope: 'projects:write', destructive: true, keys: ['ok'], error: { route: '/projects/prj_shared', status: 403 } },
  { op: 'deployments.update', method: 'PATCH', route: '/deployments/:dep', scope: 'deployments:write', body: { name: 'renamed' }, keys: ['id', 'name', 'state', 'ports'], error: { body: { name: 5 }, status: 400 } },
  { op: 'deployments.delete', method: 'DELETE', route: '/deployments/:dep', scope: 'deployments:write', destructive: true, keys: ['ok'], error: { route: '/deployments/dep_missing', status: 404 } },
  { op: 'deployments.move', method: 'POST', route: '/deployments/:dep/move', scope: 'deployments:write', body: { toProjectId: 'prj_shared' }, keys: ['id', 'projectId'], error: { body: { toProjectId: 'prj_nope' }, status: 404 } },
  { op: 'deployments.resize', method: 'PATCH', route: '/deployments/:dep/resize', scope: 'deployments:write', body: { ramMB: 1024, cpuPct: 100, storageMB: 2048 }, keys: ['id', 'resources'], error: { body: { ramMB: 999_999, cpuPct: 100, storageMB: 2048 }, status: 400 } },
  { op: 'deployments.sftp', method: 'GET', route: '/deployments/:dep/sftp', scope: 'deployments:read', keys: ['host', 'port', 'username', 'password'], error: { route: '/deployments/dep_missing/sftp', status: 404 } },
  { op: 'deployments.shell', method: 'POST', route: '/deployments/:dep/shell', scope: 'deployments:shell', destructive: true, body: { command: 'echo hi' }, keys: ['exitCode', 'output', 'truncated', 'cwd', 'durationMs', 'target', 'timedOut', 'outputLimit', 'backgroundStopped', 'untrusted'], error: { body: { command: 'true', cwd: '/etc' }, status: 400 } },
];

/** Deployments a row created: deleted after it, so the rows never exhaust the account's pool. */
const created: string[] = [];
afterEach(async () => {
  for (const id of created.splice(0)) await call(t.emu, 'DELETE', `/deployments/${id}`);
});

async function fixture(route: string): Promise<string> {
  let r = route;
  if (r.includes(':dep')) {
    const id = (await t.emu.createDeployment({ name: 'conf' })).id;
    created.push(id);
    r = r.replace(':dep', id);
  }
  if (r.includes(':project')) r = r.replace(':project', (await call(t.emu, 'POST', '/projects', { body: { name: 'doomed' } })).json.id);
  return r;
}

describe.each(ROWS)('$op', (row) => {
  it('answers with the documented keys', async () => {
    const a = await call(t.emu, row.method, await fixture(row.route), { body: row.body, query: row.query });
    expect(a.status, JSON.stringify(a.json)).toBe(200);
    for (const k of row.keys) expect(a.json).toHaveProperty(k);
    expect(a.headers.get('x-destructive')).toBe(row.destructive ? 'true' : null);
  });

  it(`refuses a key without ${row.scope} (403 naming the scope)`, async () => {
    const a = await call(t.emu, row.method, await fixture(row.route), { body: row.body, query: row.query, key: NO_SCOPE_KEY });
    expect(a.status).toBe(403);
    expect(a.json.error).toContain(row.scope);
  });

  it(`answers ${row.error.status} to a bad call`, async () => {
    const a = await call(t.emu, row.method, await fixture(row.error.route ?? row.route), { body: row.error.body ?? row.body, query: row.error.query ?? row.query });
    expect(a.status, JSON.stringify(a.json)).toBe(row.error.status);
    if (a.status !== 405) expect(typeof a.json.error).toBe('string');
  });
});
