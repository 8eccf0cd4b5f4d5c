/**
 * Health of bots, workers and web apps, end to end: the real CLI pushes to the emulator,
 * which runs the app, and the exit code and output say whether it came up.
 */
import { cp, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startEmulator, type EmulatorOptions, type RunningEmulator } from '../../src/emulator/index.js';
import { HostingClient } from '../../src/remote/client.js';
import { runCli } from '../helpers/cli.js';
import { envFor } from '../helpers/push.js';
import { tempDir, writeTree } from '../helpers/tree.js';

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  await Promise.all(cleanups.splice(0).map((c) => c()));
});

/** A fresh emulator and a project directory holding `files`. */
async function setup(files: Record<string, string>, emuOpts: EmulatorOptions = {}): Promise<{ emu: RunningEmulator; dir: string; push: (...args: string[]) => ReturnType<typeof runCli> }> {
  const emu = await startEmulator(emuOpts);
  const work = await tempDir('hostsync-health-');
  cleanups.push(() => emu.close(), work.cleanup);
  await writeTree(work.dir, files);
  return { emu, dir: work.dir, push: (...args) => runCli(['push', ...args, '--dir', work.dir], envFor(emu)) };
}

const health = (h: Record<string, unknown>): string => JSON.stringify({ health: h });

/** A bot: prints `line` after `delayMs`, then stays alive without listening. */
const bot = (line: string, delayMs = 0): string =>
  `console.log('connecting...');\nsetTimeout(() => console.log(${JSON.stringify(line)}), ${delayMs});\nsetInterval(() => {}, 60000);\n`;

/** A web app answering every request with `status`. */
const web = (status: number): string =>
  `require('node:http').createServer((q, s) => { s.statusCode = ${status}; s.end('<title>t${status}</title>'); }).listen(Number(process.env.SERVER_PORT), '0.0.0.0');\n`;

describe('bots and workers', () => {
  it('a bot with no health settings: push exits 0, judged a worker by auto, which says how to pin it', async () => {
    const t = await setup({ 'index.js': bot('Logged in as TestBot#0001') });
    const r = await t.push();
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('✔ deployment running · worker');
    expect(r.stdout).toContain('health: auto judged it a worker (nothing answered HTTP on its port); pin it with "health": {"kind": "worker"}');
  });

  it('a bot that exits at start-up: exit 4, with its error line shown', async () => {
    const t = await setup({
      'index.js': "console.log('connecting...');\nconst token = process.env.DISCORD_TOKEN;\nif (!token) throw new Error('An invalid token was provided.');\n",
    });
    const r = await t.push();
    expect(r.code).toBe(4);
    expect(r.stdout).toContain('unhealthy: the app is not running (offline)');
    expect(r.stdout).toContain('Error: An invalid token was provided.');
  });

  it('an app that dies on a syntax error: the unhealthy report shows its file and line, the code and the marker, as logs does (issue 46, item 11)', async () => {
    const t = await setup({ 'index.js': "const http = require('node:http');\n\nconst x = 1;\nconst y = ;\nhttp.createServer((q, s) => s.end('x')).listen(Number(process.env.SERVER_PORT), '0.0.0.0');\n" });
    const r = await t.push();
    expect(r.code).toBe(4);
    expect(r.stdout).toMatch(/^ {4}\S*index\.js:4\n {4}const y = ;\n {4} {10}\^\n/m);
    expect(r.stdout).toContain("SyntaxError: Unexpected token ';'");
    const logs = await runCli(['logs', '--dir', t.dir], envFor(t.emu));
    expect(logs.stdout).toMatch(/index\.js:4\nconst y = ;\n {10}\^\n/);
  });

  it('--console-lines 20: the ready line rotated out of the live console before any read still counts (read from the restart on, not the tail)', async () => {
    const chatty = "console.log('connecting...');\nsetTimeout(() => { console.log('Logged in as TestBot#0001'); for (let i = 1; i <= 60; i++) console.log('guild ' + i); }, 200);\nsetInterval(() => {}, 60000);\n";
    const t = await setup({ 'index.js': chatty, 'hostsync.json': health({ kind: 'worker', ready: 'Logged in as', timeoutSeconds: 20 }) }, { consoleLines: 20 });
    const r = await t.push('--json');
    expect(r.code, r.stdout + r.stderr).toBe(0);
    const out = JSON.parse(r.stdout);
    expect(out.health).toMatchObject({ healthy: true, kind: 'worker', readyLine: 'Logged in as TestBot#0001' });
    // Not in any tail the service answered: the live console holds 20 lines, the app printed 60 after it.
    expect(out.apply.logs).not.toContain('Logged in as TestBot#0001');
  });

  it('a ready pattern never printed: exit 4 naming the pattern and the timeout', async () => {
    const t = await setup({ 'index.js': bot('still connecting'), 'hostsync.json': health({ kind: 'worker', ready: 'Logged in as', timeoutSeconds: 2 }) });
    const r = await t.push('--json');
    expect(r.code).toBe(4);
    const out = JSON.parse(r.stdout);
    expect(out.healthy).toBe(false);
    expect(out.health).toMatchObject({ kind: 'worker', decided: 'config', healthy: false });
    expect(out.health.reason).toBe('no line matching /Logged in as/ appeared in the logs within 2 s (health.ready)');
    // The wait reads the logs with backoff: a handful of requests, each counted.
    expect(out.health.requests).toBeGreaterThan(0);
    expect(out.requests.byOperation['deployments.logs']).toBe(out.health.requests);
  });

  it('a ready line printed after 2 s: exit 0, and the line is reported', async () => {
    const t = await setup({ 'index.js': bot('Logged in as TestBot#0001', 2000), 'hostsync.json': health({ ready: 'Logged in as \\w+#\\d{4}' }) });
    const r = await t.push('--json');
    expect(r.code).toBe(0);
    const out = JSON.parse(r.stdout);
    expect(out.health).toMatchObject({ healthy: true, kind: 'worker', readyLine: 'Logged in as TestBot#0001' });
  });

  it('a bot that crashes while its ready line is awaited: exit 4 with the crash, not a timeout', async () => {
    const t = await setup({
      'index.js': "console.log('connecting...');\nsetTimeout(() => { throw new Error('gateway refused'); }, 2500);\nsetInterval(() => {}, 60000);\n",
      'hostsync.json': health({ ready: 'Logged in as', timeoutSeconds: 60 }),
    });
    const r = await t.push();
    expect(r.code).toBe(4);
    expect(r.stdout).toContain('unhealthy: the app is not running (offline)');
    expect(r.stdout).toContain('Error: gateway refused');
  });
});

describe('web apps', () => {
  it('answering 200: exit 0', async () => {
    const t = await setup({ 'index.js': web(200) });
    const r = await t.push('--json');
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout).health).toMatchObject({ healthy: true, kind: 'web', decided: 'auto', reason: 'HTTP 200 on /' });
  });

  it('answering 500: exit 4', async () => {
    const t = await setup({ 'index.js': web(500) });
    const r = await t.push();
    expect(r.code).toBe(4);
    expect(r.stdout).toContain('unhealthy: / answered HTTP 500');
  });

  it('kind web for a process that never listens: exit 4', async () => {
    const t = await setup({ 'index.js': bot('Logged in as TestBot#0001'), 'hostsync.json': health({ kind: 'web', timeoutSeconds: 2 }) });
    const r = await t.push();
    expect(r.code).toBe(4);
    expect(r.stdout).toContain('unhealthy: / gave no HTTP answer within 2 s');
  });
});

describe('health and restarts', () => {
  it('a push with nothing to send reads the state in one request, and exits 4 once the app has crashed', async () => {
    const t = await setup({
      // Crashes when a file appears in the volume (a file the push never touches: remote-only).
      'index.js': "const fs = require('node:fs');\nconsole.log('Logged in as TestBot#0001');\nsetInterval(() => { if (fs.existsSync('crash-now')) { console.error('Error: lost the database connection'); process.exit(1); } }, 50);\n",
    });
    expect((await t.push()).code).toBe(0);
    const healthy = await t.push('--json');
    expect(healthy.code).toBe(0);
    expect(JSON.parse(healthy.stdout).requests.byOperation).toEqual({ 'files.index': 1, 'deployments.diagnose': 1 });

    await writeFile(path.join(t.emu.volume, 'crash-now'), '');
    const client = new HostingClient({ baseUrl: t.emu.baseUrl, apiKey: t.emu.apiKey, deploymentId: t.emu.deploymentId });
    try {
      // Waits (server side) until the process has died.
      for (let i = 0; i < 20 && (await client.deployments.logs(10, 5)).state !== 'offline'; i++);
    } finally {
      await client.close();
    }
    const r = await t.push();
    expect(r.code).toBe(4);
    expect(r.stdout).toContain('Up to date');
    expect(r.stdout).toContain('Error: lost the database connection');
  });

  it('a README-only change does not restart the app', async () => {
    const t = await setup({ 'index.js': bot('Logged in as TestBot#0001'), 'README.md': '# bot\n', 'docs/setup.md': 'x\n' });
    expect((await t.push()).code).toBe(0);
    await writeTree(t.dir, { 'README.md': '# bot, edited\n', 'docs/setup.md': 'y\n' });
    const r = await t.push('--json');
    expect(r.code).toBe(0);
    const out = JSON.parse(r.stdout);
    expect(out.changes.written).toBe(2);
    expect(out.apply).toMatchObject({ restarted: false, state: 'running' });
    await writeTree(t.dir, { 'index.js': bot('Logged in as TestBot#0002') });
    const code = JSON.parse((await t.push('--json')).stdout);
    expect(code.apply.restarted).toBe(true);
  });
});

describe('apps with dependencies', () => {
  it('an Express-style app comes up after the emulator installs its dependencies; node_modules/ is never sent', async () => {
    // Offline: the dependency is a file: package in the project, and npm is told never to reach a registry.
    const before = process.env.npm_config_offline;
    process.env.npm_config_offline = 'true';
    cleanups.push(async () => {
      if (before === undefined) delete process.env.npm_config_offline;
      else process.env.npm_config_offline = before;
    });
    const router = "module.exports = () => { const routes = {}; const app = (q, s) => (routes[q.url] || ((q, s) => { s.statusCode = 404; s.end(); }))(q, s); app.get = (p, h) => { routes[p] = h; }; return app; };\n";
    const t = await setup({
      'package.json': JSON.stringify({ name: 'shop', private: true, dependencies: { 'mini-express': 'file:./vendor/mini-express' } }),
      'vendor/mini-express/package.json': JSON.stringify({ name: 'mini-express', version: '1.0.0', main: 'index.js' }),
      'vendor/mini-express/index.js': router,
      // What a local `npm install` left behind: never synced, so the deployment must install its own.
      'node_modules/mini-express/index.js': 'throw new Error("the local copy must never run on the deployment");\n',
      'index.js':
        "const app = require('mini-express')();\napp.get('/', (q, s) => s.end('<title>shop</title>'));\n" +
        "require('node:http').createServer(app).listen(Number(process.env.SERVER_PORT), '0.0.0.0');\n",
      // npm install needs 512 MB (hosting-api.md); the emulator's default deployment has the service's 256.
    }, { ramMB: 512 });
    const r = await t.push('--json');
    expect(r.code, r.stdout + r.stderr).toBe(0);
    const out = JSON.parse(r.stdout);
    expect(out.health).toMatchObject({ healthy: true, kind: 'web', reason: 'HTTP 200 on /' });
    expect(out.apply.logs).toContain('[emulator] installing: npm install (package.json lists 1 dependency)');
    expect(out.planned.map((p: { path: string }) => p.path)).not.toContain('node_modules/mini-express/index.js');
  });
});

describe('python apps (issue #30)', () => {
  it('a stdlib http.server app and a python bot with a ready line pass health: exit 0', async () => {
    const app =
      'import os, http.server\n' +
      'class H(http.server.BaseHTTPRequestHandler):\n' +
      '    def do_GET(self):\n' +
      '        self.send_response(200); self.end_headers(); self.wfile.write(b"<title>py</title>")\n' +
      'http.server.HTTPServer(("0.0.0.0", int(os.environ["SERVER_PORT"])), H).serve_forever()\n';
    const webT = await setup({ 'app.py': app, 'requirements.txt': '' }, { runtime: 'python', entryFile: 'app.py' });
    const web = await webT.push('--json');
    expect(web.code, web.stdout + web.stderr).toBe(0);
    expect(JSON.parse(web.stdout).health).toMatchObject({ healthy: true, kind: 'web', reason: 'HTTP 200 on /' });

    const bot = 'import time\nprint("connecting...")\ntime.sleep(0.3)\nprint("Logged in as PyBot#0001")\nwhile True: time.sleep(60)\n';
    const botT = await setup({ 'bot.py': bot, 'hostsync.json': health({ kind: 'worker', ready: 'Logged in as' }) }, { runtime: 'python', entryFile: 'bot.py' });
    const r = await botT.push('--json');
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(JSON.parse(r.stdout).health).toMatchObject({ healthy: true, kind: 'worker', readyLine: 'Logged in as PyBot#0001' });
  });
});

describe('too little memory', () => {
  it('at the default 256 MB the install is killed: exit 4, and the health line names the cause and the fix', async () => {
    const before = process.env.npm_config_offline;
    process.env.npm_config_offline = 'true';
    cleanups.push(async () => {
      if (before === undefined) delete process.env.npm_config_offline;
      else process.env.npm_config_offline = before;
    });
    const t = await setup({
      'package.json': JSON.stringify({ name: 'shop', private: true, dependencies: { greet: 'file:./vendor/greet' } }),
      'vendor/greet/package.json': JSON.stringify({ name: 'greet', version: '1.0.0' }),
      'index.js': web(200),
    });
    const r = await t.push();
    expect(r.code).toBe(4);
    expect(r.stdout).toContain('the install was killed for want of memory (exit 137, "Out of memory: true"): resize the deployment to at least 512 MB ("size": {"ramMB": 512} in hostsync.json, or deployments.resize)');
  });
});

describe('examples', () => {
  it('examples/discord-bot and examples/web deploy to the emulator with hostsync push and exit 0', async () => {
    for (const name of ['discord-bot', 'web']) {
      const t = await setup({});
      await cp(path.resolve('examples', name), t.dir, { recursive: true, filter: (src) => !src.includes(`${path.sep}.hostsync`) });
      const r = await t.push('--json');
      expect(r.code, `${name}: ${r.stdout}${r.stderr}`).toBe(0);
      expect(JSON.parse(r.stdout).health.kind).toBe(name === 'web' ? 'web' : 'worker');
    }
  });
});
