/** Behaviour of the endpoints beyond sync's needs: what each one does to the deployment, not only its shape. */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, startTestEmulator, type TestEmulator } from './api-client.js';
import { commitTo, makeRepo } from './git-repo.js';

let t: TestEmulator;
beforeAll(async () => {
  t = await startTestEmulator({ rateLimit: 100_000, userRateLimit: 100_000, autoBackups: true, backupIntervalSeconds: 0 });
});
afterAll(() => t.close());

const WEB_APP = `require('node:http').createServer((q, s) => s.end('app:' + q.headers.host)).listen(Number(process.env.SERVER_PORT), '0.0.0.0');\n`;

async function fresh(name = 'x'): Promise<{ id: string; volume: string; base: string }> {
  const d = await t.emu.createDeployment({ name });
  return { ...d, base: `/deployments/${d.id}` };
}

function getVia(host: string, port: number): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path: '/', headers: { Host: host } }, (res) => {
      let body = '';
      res.on('data', (d) => (body += d));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('runtimes.list', () => {
  it('lists every runtime value of the document, databases apart', async () => {
    const c = (await call(t.emu, 'GET', '/runtimes')).json;
    const ids = [...c.runtimes, ...c.services, ...c.databases].map((r: any) => r.id).sort();
    expect(ids).toEqual(['bun', 'cpp', 'go', 'java', 'lavalink', 'lua', 'mongodb', 'mysql', 'nodejs', 'nodemon', 'php', 'phpweb', 'postgresql', 'python', 'redis', 'rust', 'static', 'uptimekuma'].sort());
    expect(c.databases.map((d: any) => d.id).sort()).toEqual(['mongodb', 'mysql', 'postgresql', 'redis']);
    for (const d of c.databases) expect(d).not.toHaveProperty('defaultEntry');
    for (const r of c.runtimes) expect(r.versions).toContain(r.defaultVersion);
  });
});

describe('packages', () => {
  it('npm: add writes package.json (dev apart), remove takes it out, list reads it', async () => {
    const d = await fresh();
    writeFileSync(path.join(d.volume, 'package.json'), JSON.stringify({ name: 'a', dependencies: { express: '^4.0.0' } }));
    await call(t.emu, 'POST', `${d.base}/packages`, { body: { manager: 'npm', name: 'vitest', spec: '^4.0.0', dev: true } });
    const added = await call(t.emu, 'POST', `${d.base}/packages`, { body: { manager: 'npm', name: 'left-pad' } });
    expect(added.json.packages).toEqual(
      expect.arrayContaining([
        { name: 'express', spec: '^4.0.0', dev: false },
        { name: 'vitest', spec: '^4.0.0', dev: true },
        { name: 'left-pad', spec: 'latest', dev: false },
      ]),
    );
    const manifest = JSON.parse(readFileSync(path.join(d.volume, 'package.json'), 'utf8'));
    expect(manifest.devDependencies).toEqual({ vitest: '^4.0.0' });
    await call(t.emu, 'POST', `${d.base}/packages/remove`, { body: { manager: 'npm', name: 'express' } });
    const list = (await call(t.emu, 'GET', `${d.base}/packages`, { query: { manager: 'npm' } })).json;
    expect(list.packages.map((p: any) => p.name).sort()).toEqual(['left-pad', 'vitest']);
  });

  it('pip: requirements.txt is created, pinned with ==, and comments survive a remove', async () => {
    const d = await fresh();
    expect((await call(t.emu, 'GET', `${d.base}/packages`, { query: { manager: 'pip' } })).json).toMatchObject({ exists: false, file: 'requirements.txt' });
    writeFileSync(path.join(d.volume, 'requirements.txt'), '# deps\nrequests>=2\n');
    await call(t.emu, 'POST', `${d.base}/packages`, { body: { manager: 'pip', name: 'flask', spec: '3.0.0' } });
    await call(t.emu, 'POST', `${d.base}/packages/remove`, { body: { manager: 'pip', name: 'requests' } });
    expect(readFileSync(path.join(d.volume, 'requirements.txt'), 'utf8')).toBe('# deps\nflask==3.0.0\n');
  });
});

describe('files.outline', () => {
  it('finds functions, classes, methods, exports and routes in JS, TS, Python, PHP, Go and JSON', async () => {
    const d = await fresh();
    const files: Record<string, string> = {
      'server.js': "const express = require('express');\nconst app = express();\nfunction helper() {}\nclass Bot { start() {} }\napp.get('/health', (q, s) => s.end('ok'));\nexport const run = () => 1;\n",
      'lib.ts': 'export interface Opts { a: number }\nexport function build(o: Opts): string { return "" }\nrouter.post("/items", h);\n',
      'bot.py': "class Bot:\n    def start(self):\n        pass\n\n@app.route('/ping')\ndef ping():\n    return 'pong'\n",
      'index.php': "<?php\nclass Page {}\nfunction render() {}\nRoute::get('/home', fn() => 1);\n",
      'main.go': 'package main\ntype Server struct{}\nfunc (s *Server) Run() {}\nfunc main() { http.HandleFunc("/api", h) }\n',
      'config.json': '{\n  "name": "x",\n  "port": 1\n}\n',
      'node_modules/dep/index.js': 'function hidden() {}\n',
    };
    for (const [p, text] of Object.entries(files)) {
      const abs = path.join(d.volume, p);
      const { mkdirSync } = await import('node:fs');
      mkdirSync(path.dirname(abs), { recursive: true });
      writeFileSync(abs, text);
    }
    const o = (await call(t.emu, 'GET', `${d.base}/files/outline`)).json;
    const of = (p: string) => o.files.find((f: any) => f.path === p)?.symbols.map((s: any) => `${s.kind}:${s.name}@${s.line}`);
    expect(of('server.js')).toEqual(expect.arrayContaining(['function:helper@3', 'class:Bot@4', 'method:Bot.start@4', 'route:GET /health@5', 'function:run@6', 'export:run@6']));
    expect(of('lib.ts')).toEqual(expect.arrayContaining(['type:Opts@1', 'export:build@2', 'function:build@2', 'route:POST /items@3']));
    expect(of('bot.py')).toEqual(expect.arrayContaining(['class:Bot@1', 'method:start@2', 'route:ANY /ping@5', 'function:ping@6']));
    expect(of('index.php')).toEqual(expect.arrayContaining(['class:Page@2', 'function:render@3', 'route:GET /home@4']));
    expect(of('main.go')).toEqual(expect.arrayContaining(['type:Server@2', 'method:Run@3', 'function:main@4', 'route:ANY /api@4']));
    expect(of('config.json')).toEqual(['key:name@2', 'key:port@3']);
    expect(o.files.map((f: any) => f.path)).not.toContain('node_modules/dep/index.js');
    const one = (await call(t.emu, 'GET', `${d.base}/files/outline`, { query: { path: 'bot.py' } })).json;
    expect(one.files).toHaveLength(1);
    expect(one.files[0].lines).toBe(7);
  });
});

describe('domains', () => {
  it('the subdomain and a slug reach the running app through the emulator port; removal stops it', async () => {
    const d = await fresh('Shop');
    writeFileSync(path.join(d.volume, 'index.js'), WEB_APP);
    expect((await call(t.emu, 'POST', `${d.base}/apply`, { body: { restart: true } })).json.state).toBe('running');
    const en = (await call(t.emu, 'POST', `${d.base}/domains`)).json;
    expect(en.subdomain).toBe('shop.apps.localhost');
    const port = Number(new URL(t.emu.baseUrl).port);
    expect(new URL(en.url).port).toBe(String(port));
    expect((await call(t.emu, 'POST', `${d.base}/domains`)).json.subdomain).toBe(en.subdomain); // idempotent
    const viaSub = await getVia(`shop.apps.localhost:${port}`, port);
    expect(viaSub).toEqual({ status: 200, body: `app:shop.apps.localhost:${port}` });
    await call(t.emu, 'PATCH', `${d.base}/domains/slug`, { body: { slug: 'bestshop' } });
    expect((await getVia(`bestshop.localhost:${port}`, port)).body).toContain('app:');
    const other = await fresh();
    expect((await call(t.emu, 'PATCH', `${other.base}/domains/slug`, { body: { slug: 'bestshop' } })).status).toBe(409);
    await call(t.emu, 'DELETE', `${d.base}/domains/slug`);
    expect((await getVia(`bestshop.localhost:${port}`, port)).status).toBe(404);
    await call(t.emu, 'POST', `${d.base}/power`, { body: { action: 'kill' } });
  });

  it('a custom domain verifies only when the emulator is told the DNS is right', async () => {
    const d = await fresh();
    const { token } = (await call(t.emu, 'PATCH', `${d.base}/domains/custom`, { body: { domain: 'Shop.Example.com' } })).json;
    const v = (await call(t.emu, 'POST', `${d.base}/domains/custom/verify`)).json;
    expect(v.verified).toBe(false);
    expect(v.reason).toContain(token);
    expect((await call(t.emu, 'GET', d.base)).json.domains.custom).toBe('shop.example.com');
  });
});

describe('git', () => {
  it('sync links a local repository, copies its files in, keeps app files, and repoints on request', async () => {
    const d = await fresh();
    writeFileSync(path.join(d.volume, 'data.json'), '{"kept":true}');
    const repo = await makeRepo();
    const s = (await call(t.emu, 'POST', `${d.base}/sync`, { body: { repo } })).json;
    expect(s).toMatchObject({ ok: true, repo, branch: 'main' });
    expect(s.commit).toMatch(/^[0-9a-f]{40}$/);
    expect(readFileSync(path.join(d.volume, 'index.js'), 'utf8')).toContain('from git');
    expect(existsSync(path.join(d.volume, '.git'))).toBe(false);
    expect(existsSync(path.join(d.volume, 'data.json'))).toBe(true);
    expect((await call(t.emu, 'GET', `${d.base}/git`)).json).toEqual({ linked: true, repo, branch: 'main', autoPull: false });
    expect((await call(t.emu, 'PATCH', `${d.base}/git`, { body: { autoPull: true } })).json.autoPull).toBe(true);
    const missing = await call(t.emu, 'POST', `${d.base}/sync`, { body: { branch: 'nope' } });
    expect(missing.status).toBe(400);
    expect(missing.json.error).toMatch(/git/);
  });
  it('autoPull re-pulls the linked repository on every (re)start, and only when on', async () => {
    const d = await fresh();
    const repo = await makeRepo({ 'index.js': 'console.log("v1")\n' });
    await call(t.emu, 'POST', `${d.base}/sync`, { body: { repo } });
    commitTo(repo, 'index.js', 'console.log("v2")\n');
    const restart = async (): Promise<string> => {
      expect((await call(t.emu, 'POST', `${d.base}/power`, { body: { action: 'restart', waitSeconds: 10 } })).status).toBe(200);
      return readFileSync(path.join(d.volume, 'index.js'), 'utf8');
    };
    expect(await restart()).toContain('v1');
    await call(t.emu, 'PATCH', `${d.base}/git`, { body: { autoPull: true } });
    expect(await restart()).toContain('v2');
    const logs = (await call(t.emu, 'GET', `${d.base}/logs?size=50`)).json;
    expect(JSON.stringify(logs)).toMatch(/autoPull: .* main at [0-9a-f]{12}/);
  });
});

describe('backups', () => {
  it('a restore point is taken before a destructive call; restore replace brings the files back', async () => {
    const d = await fresh();
    writeFileSync(path.join(d.volume, 'a.txt'), 'A');
    await call(t.emu, 'POST', `${d.base}/files/delete`, { body: { files: ['a.txt'] } });
    expect(existsSync(path.join(d.volume, 'a.txt'))).toBe(false);
    const list = (await call(t.emu, 'GET', `${d.base}/backups`)).json;
    expect(list.available).toBe(true);
    expect(list.backups).toHaveLength(1);
    expect(list.backups[0]).toMatchObject({ kind: 'safety', files: 1 });
    writeFileSync(path.join(d.volume, 'b.txt'), 'B');
    const r = (await call(t.emu, 'POST', `${d.base}/backups/${list.backups[0].id}/restore`, { body: { mode: 'replace' } })).json;
    expect(r.operation.state).toBe('running');
    await expect.poll(async () => (await call(t.emu, 'GET', `${d.base}/backups`)).json.operation.state).toBe('done');
    expect(readFileSync(path.join(d.volume, 'a.txt'), 'utf8')).toBe('A');
    expect(existsSync(path.join(d.volume, 'b.txt'))).toBe(false);
  });

  it('restore subfolder copies the named paths into /restored-<date>/ and touches nothing else', async () => {
    const d = await fresh();
    writeFileSync(path.join(d.volume, 'keep.txt'), 'v1');
    writeFileSync(path.join(d.volume, 'other.txt'), 'o');
    await call(t.emu, 'POST', `${d.base}/files/delete`, { body: { files: ['other.txt'] } });
    writeFileSync(path.join(d.volume, 'keep.txt'), 'v2');
    const id = (await call(t.emu, 'GET', `${d.base}/backups`)).json.backups[0].id;
    await call(t.emu, 'POST', `${d.base}/backups/${id}/restore`, { body: { mode: 'subfolder', paths: ['keep.txt'] } });
    await expect.poll(async () => (await call(t.emu, 'GET', `${d.base}/backups`)).json.operation.state).toBe('done');
    const detail = (await call(t.emu, 'GET', `${d.base}/backups`)).json.operation.detail as string;
    const folder = /\/(restored-[^/]+)\//.exec(detail)![1]!;
    expect(readFileSync(path.join(d.volume, folder, 'keep.txt'), 'utf8')).toBe('v1');
    expect(existsSync(path.join(d.volume, folder, 'other.txt'))).toBe(false);
    expect(readFileSync(path.join(d.volume, 'keep.txt'), 'utf8')).toBe('v2');
  });
});

describe('deployments.create from a repository or a template', () => {
  it('github source clones a local repository; an unreachable one is refused and creates nothing', async () => {
    const repo = await makeRepo({ 'index.js': 'console.log("cloned")\n' });
    const c = await call(t.emu, 'POST', '/deployments', { body: { name: 'from-git', source: 'github', githubRepo: `file://${repo}` } });
    expect(c.status).toBe(200);
    const id = c.json.deployment.id;
    expect((await call(t.emu, 'GET', `/deployments/${id}/git`)).json).toMatchObject({ linked: true, branch: 'main' });
    const before = (await call(t.emu, 'GET', '/deployments')).json.deployments.length;
    const bad = await call(t.emu, 'POST', '/deployments', { body: { name: 'nope', source: 'github', githubRepo: 'owner/repo' } });
    expect(bad.status).toBe(400);
    expect((await call(t.emu, 'GET', '/deployments')).json.deployments.length).toBe(before);
  });

  it('template source writes the template files; an unknown template is a 404 naming the known ones', async () => {
    const c = await call(t.emu, 'POST', '/deployments', { body: { name: 'tpl', source: 'template', templateId: 'static-hello' } });
    expect(c.json.deployment.runtime).toBe('static');
    const read = await call(t.emu, 'GET', `/deployments/${c.json.deployment.id}/files/content`, { query: { path: 'index.html' } });
    expect(read.json.content).toContain('Hello from a template');
    const bad = await call(t.emu, 'POST', '/deployments', { body: { name: 'tpl', source: 'template', templateId: 'rails' } });
    expect(bad.status).toBe(404);
    expect(bad.json.error).toContain('node-hello');
  });
});
