/**
 * Conformance of the endpoints beyond sync's needs (issue "The whole API, locally"):
 * for each, the documented keys of a good answer, the scope (403 for a key without
 * it), one error case, and the Destructive flag. Each row builds its own fixture so
 * rows stay independent; the deployment used is created fresh per row.
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { makeRepo } from './git-repo.js';
import { call, startTestEmulator, type TestEmulator } from './api-client.js';
import { testKey } from '../helpers/keys.js';

let t: TestEmulator;
/** A key holding no scope at all: every row's scope check must refuse it. */
const NO_SCOPE_KEY = testKey('no_scopes');
beforeAll(async () => {
  // Fixtures make several calls per row: the budget is raised so rows test their endpoint, not the rate limit.
  t = await startTestEmulator({ keys: [`${NO_SCOPE_KEY}:`], rateLimit: 100_000, userRateLimit: 100_000 });
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
  { op: 'runtimes.list', method: 'GET', route: '/runtimes', scope: 'deployments:read', keys: ['runtimes', 'services', 'databases'], error: { route: '/runtimes/nodejs', status: 404 } },
  { op: 'docs.get', method: 'GET', route: '/docs/emulator', scope: 'docs:read', keys: ['slug', 'title', 'content'], error: { route: '/docs/nope', status: 404 } },
  { op: 'packages.list', method: 'GET', route: '/deployments/:dep/packages', scope: 'packages:read', query: { manager: 'npm' }, keys: ['manager', 'file', 'exists', 'packages'], error: { query: { manager: 'gem' }, status: 400 } },
  { op: 'packages.add', method: 'POST', route: '/deployments/:dep/packages', scope: 'packages:write', body: { manager: 'npm', name: 'left-pad', spec: '^1.3.0' }, keys: ['manager', 'file', 'exists', 'packages'], error: { body: { manager: 'npm', name: 'Bad Name' }, status: 400 } },
  { op: 'packages.remove', method: 'POST', route: '/deployments/:dep/packages/remove', scope: 'packages:write', body: { manager: 'pip', name: 'flask' }, keys: ['manager', 'packages'], error: { body: { manager: 'pip', name: 'never-added' }, status: 404 } },
  { op: 'files.outline', method: 'GET', route: '/deployments/:dep/files/outline', scope: 'files:read', keys: ['files', 'truncated', 'note'], error: { query: { path: 'missing.js' }, status: 404 } },
  { op: 'deployments.enableDomains', method: 'POST', route: '/deployments/:dep/domains', scope: 'deployments:write', keys: ['subdomain', 'url', 'note'], error: { route: '/deployments/dep_missing/domains', status: 404 } },
  { op: 'deployments.setSlug', method: 'PATCH', route: '/deployments/:dep/domains/slug', scope: 'deployments:write', body: { slug: 'my-slug' }, keys: ['ok', 'url'], error: { body: { slug: '-bad-' }, status: 400 } },
  { op: 'deployments.removeSlug', method: 'DELETE', route: '/deployments/:dep/domains/slug', scope: 'deployments:write', keys: ['ok'], error: { route: '/deployments/:fresh/domains/slug', status: 404 } },
  { op: 'deployments.setCustomDomain', method: 'PATCH', route: '/deployments/:dep/domains/custom', scope: 'deployments:write', body: { domain: 'app.example.com' }, keys: ['token'], error: { body: { domain: 'not a domain' }, status: 400 } },
  { op: 'deployments.verifyCustomDomain', method: 'POST', route: '/deployments/:dep/domains/custom/verify', scope: 'deployments:write', keys: ['verified', 'reason'], error: { route: '/deployments/:fresh/domains/custom/verify', status: 404 } },
  { op: 'deployments.removeCustomDomain', method: 'DELETE', route: '/deployments/:dep/domains/custom', scope: 'deployments:write', keys: ['ok'], error: { route: '/deployments/:fresh/domains/custom', status: 404 } },
  { op: 'deployments.getGit', method: 'GET', route: '/deployments/:dep/git', scope: 'deployments:read', keys: ['linked', 'repo', 'branch', 'autoPull'], error: { route: '/deployments/dep_missing/git', status: 404 } },
  { op: 'deployments.setAutoPull', method: 'PATCH', route: '/deployments/:dep/git', scope: 'deployments:write', body: { autoPull: true }, keys: ['linked', 'autoPull'], error: { route: '/deployments/:fresh/git', status: 400 } },
  { op: 'deployments.sync', method: 'POST', route: '/deployments/:dep/sync', scope: 'deployments:write', keys: ['ok', 'commit', 'repo', 'branch'], error: { body: { repo: 'owner/repo' }, status: 400 } },
  { op: 'backups.list', method: 'GET', route: '/deployments/:dep/backups', scope: 'backups:read', keys: ['available', 'backups', 'operation'], error: { route: '/deployments/dep_missing/backups', status: 404 } },
  { op: 'backups.get', method: 'GET', route: '/deployments/:dep/backups/:backup', scope: 'backups:read', keys: ['id', 'time', 'kind', 'files', 'sizeBytes'], error: { route: '/deployments/:dep/backups/bkp_nope', status: 404 } },
  { op: 'backups.restore', method: 'POST', route: '/deployments/:dep/backups/:backup/restore', scope: 'backups:write', destructive: true, body: { mode: 'subfolder' }, keys: ['ok', 'operation'], error: { body: { mode: 'sideways' }, status: 400 } },
];

/** Deployments a row created: deleted after it, so the rows never exhaust the account's pool. */
const created: string[] = [];
afterEach(async () => {
  for (const id of created.splice(0)) await call(t.emu, 'DELETE', `/deployments/${id}`);
});

let repo: string;
beforeAll(async () => {
  repo = await makeRepo();
});

/**
 * A deployment in the state each row needs: a repository linked, a slug and a custom
 * domain set, packages in its manifests, a restore point taken. `:fresh` is one with none of that.
 */
async function fixture(route: string): Promise<string> {
  let r = route;
  if (r.includes(':fresh')) {
    const id = (await t.emu.createDeployment({ name: 'fresh' })).id;
    created.push(id);
    r = r.replace(':fresh', id);
  }
  if (r.includes(':dep')) {
    const dep = await t.emu.createDeployment({ name: 'conf' });
    created.push(dep.id);
    writeFileSync(path.join(dep.volume, 'requirements.txt'), 'flask==3.0.0\n');
    writeFileSync(path.join(dep.volume, 'app.js'), 'export function hello() {}\n');
    const base = `/deployments/${dep.id}`;
    expect((await call(t.emu, 'POST', `${base}/sync`, { body: { repo } })).status).toBe(200);
    await call(t.emu, 'PATCH', `${base}/domains/slug`, { body: { slug: `s-${dep.id.slice(4)}` } });
    await call(t.emu, 'PATCH', `${base}/domains/custom`, { body: { domain: 'conf.example.com' } });
    if (r.includes(':backup')) {
      await call(t.emu, 'POST', `${base}/files/delete`, { body: { files: ['app.js'] } });
      const list = (await call(t.emu, 'GET', `${base}/backups`)).json;
      r = r.replace(':backup', list.backups[0].id);
    }
    r = r.replace(':dep', dep.id);
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
