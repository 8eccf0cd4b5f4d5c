import { readFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { DeploymentRunner, type RunnerOptions } from '../../src/emulator/runner.js';
import { canConnect, probeHttp } from '../../src/emulator/probe.js';
import { killAllTrackedGroups } from '../../src/emulator/child-reaper.js';
import { createServer } from 'node:net';

/** A node app that serves one HTML page with the given title on SERVER_PORT. */
function webApp(title: string): string {
  return `
const http = require('node:http');
console.log('\\u001b[32mbooting\\u001b[0m');
http.createServer((req, res) => {
  res.setHeader('content-type', 'text/html; charset=utf-8');
  res.end('<!doctype html><html><head><title> ${title} </title></head><body>page of ${title}</body></html>');
}).listen(Number(process.env.SERVER_PORT), '0.0.0.0', () => console.log('listening on ' + process.env.SERVER_PORT));
`;
}

/**
 * Whether `pid` still runs. A killed grandchild is re-parented and reaped by init, not
 * by us, so it may linger a moment as a zombie: dead, which /proc's state 'Z' tells.
 */
function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z';
  } catch {
    return false;
  }
}

let root: string;
const runners: DeploymentRunner[] = [];

async function volumeWith(files: Record<string, string>): Promise<string> {
  const dir = await mkdtemp(join(root, 'vol-'));
  for (const [name, content] of Object.entries(files)) await writeFile(join(dir, name), content);
  return dir;
}

function runner(opts: RunnerOptions): DeploymentRunner {
  const r = new DeploymentRunner(opts);
  runners.push(r);
  return r;
}

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'hostsync-runner-'));
});

afterEach(async () => {
  await Promise.all(runners.splice(0).map((r) => r.dispose()));
});

afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

describe('DeploymentRunner with a node app', () => {
  it('is offline before its first start, and apply brings it up serving its page', async () => {
    const volume = await volumeWith({ 'index.js': webApp('Hello') });
    const r = runner({ volume, runtime: 'nodejs', entryFile: 'index.js' });
    expect(r.state).toBe('offline');
    expect(r.port).toBeNull();

    const result = await r.apply({});
    expect(result.restarted).toBe(true);
    expect(result.skippedRestart).toBe('');
    expect(result.state).toBe('running');
    expect(result.installing).toBe(false);
    expect(r.port).toBeTypeOf('number');
    expect(result.http).toMatchObject({ url: `http://127.0.0.1:${r.port}/`, status: 200, ok: true, title: 'Hello' });
    expect(result.http.contentType).toContain('text/html');
    expect(result.http.bodyExcerpt).toContain('page of Hello');
    expect(result.direct).toEqual({ url: result.http.url, status: 200, ok: true });
    expect(result.hint).toBe('');
    // The runtime default installs at every boot, and says so: a command of one's own that only starts the app differs from it.
    expect(result.startup).toEqual({ runtime: 'nodejs', runtimeVersion: process.versions.node, entryFile: 'index.js', startCommand: 'if [ -f package.json ]; then npm install; fi; node index.js' });
    // Colour codes are stripped from the console.
    expect(result.logs).toContain('booting');
    expect(result.logs.join('\n')).not.toContain('\u001b');
    expect(result.resources.ramMB).toBeGreaterThan(0);
    expect(result.resources.ramLimitMB).toBe(256);
  });

  it('shows a crash at startup as offline, with the error in the logs and a hint', async () => {
    const volume = await volumeWith({ 'index.js': "console.log('about to fail');\nthrow new Error('boom at startup');\n" });
    const r = runner({ volume, runtime: 'nodejs', entryFile: 'index.js' });
    const result = await r.apply({});
    expect(result.restarted).toBe(true);
    expect(result.state).toBe('offline');
    expect(result.logs.some((line) => line.includes('Error: boom at startup'))).toBe(true);
    expect(result.logs).toContain('about to fail');
    expect(result.hint).toBe('The process exited with code 1; the last log lines show why.');
    expect(result.http).toMatchObject({ status: 0, ok: false, title: '' });

    const logs = await r.logs();
    expect(logs.state).toBe('offline');
    expect(logs.settled).toBe(true);
    expect(logs.lines.some((line) => line.includes('boom at startup'))).toBe(true);
    expect(logs.hint).toBe(result.hint);
  });

  it('restarts on apply so an edited app file is served', async () => {
    const volume = await volumeWith({ 'index.js': webApp('First') });
    const r = runner({ volume, runtime: 'nodejs', entryFile: 'index.js' });
    const first = await r.apply({});
    expect(first.http.title).toBe('First');
    const port = r.port;

    await writeFile(join(volume, 'index.js'), webApp('Second'));
    const second = await r.apply({});
    expect(second.restarted).toBe(true);
    expect(second.state).toBe('running');
    expect(second.http.title).toBe('Second');
    // The port is kept across restarts while it is free.
    expect(r.port).toBe(port);
  });

  it('keeps the old process with restart: false', async () => {
    const volume = await volumeWith({ 'index.js': webApp('Old') });
    const r = runner({ volume, runtime: 'nodejs', entryFile: 'index.js' });
    await r.apply({});
    await writeFile(join(volume, 'index.js'), webApp('New'));
    const result = await r.apply({ restart: false });
    expect(result.restarted).toBe(false);
    expect(result.skippedRestart).not.toBe('');
    expect(result.http.title).toBe('Old');
  });

  it('stops on power stop: offline, and the port no longer answers', async () => {
    const volume = await volumeWith({ 'index.js': webApp('Stoppable') });
    const r = runner({ volume, runtime: 'nodejs', entryFile: 'index.js' });
    const started = await r.power('start');
    expect(started).toMatchObject({ ok: true, action: 'start', state: 'running', hint: '' });
    const port = r.port!;
    expect(await canConnect(port, 2000)).toBe(true);

    const stopped = await r.power('stop', 10);
    expect(stopped).toMatchObject({ ok: true, action: 'stop', state: 'offline' });
    expect(stopped.hint).toContain('stopped');
    expect(await canConnect(port, 2000)).toBe(false);
    expect(stopped.logs).toContain('[emulator] process stopped');

    const again = await r.power('stop');
    expect(again.reason).toBe('the deployment is not running');
  });

  it('answers a stop without waitSeconds at once, as stopping; logs then waits for offline', async () => {
    const volume = await volumeWith({ 'index.js': webApp('Quick') });
    const r = runner({ volume, runtime: 'nodejs', entryFile: 'index.js' });
    await r.power('start');
    const stop = await r.power('stop');
    expect(stop).toMatchObject({ ok: true, state: 'stopping', hint: 'The deployment is stopping.' });
    const logs = await r.logs(10, 10);
    expect(logs).toMatchObject({ state: 'offline', settled: true });
  });

  it('refuses a second start while running, and kill ends it', async () => {
    const volume = await volumeWith({ 'index.js': webApp('Twice') });
    const r = runner({ volume, runtime: 'nodejs', entryFile: 'index.js' });
    await r.power('start');
    const second = await r.power('start');
    expect(second.ok).toBe(false);
    expect(second.state).toBe('running');
    const killed = await r.power('kill', 10);
    expect(killed.state).toBe('offline');
  });

  it('dispose leaves no child process alive, including grandchildren of a startCommand', async () => {
    const volume = await volumeWith({
      'index.js': webApp('Dispose'),
      // A shell that backgrounds a grandchild, so the group holds more than the spawned process.
      'start.sh': 'node -e "setInterval(() => {}, 1000); console.log(\'grandchild \' + process.pid)" &\nexec node index.js\n',
    });
    const r = runner({ volume, runtime: 'nodejs', entryFile: 'index.js', startCommand: 'sh start.sh' });
    const result = await r.apply({});
    expect(result.state).toBe('running');
    expect(result.startup.startCommand).toBe('sh start.sh');
    // The grandchild prints on its own schedule, unrelated to the app's readiness.
    let grandchild = 0;
    while (grandchild === 0) {
      const logs = await r.logs(100);
      grandchild = Number(/grandchild (\d+)/.exec(logs.lines.join('\n'))?.[1] ?? 0);
      if (grandchild === 0) await new Promise((resolve) => setTimeout(resolve, 20));
    }
    expect(grandchild).toBeGreaterThan(0);
    const instance = (r as unknown as { instance: { proc: { pid: number } } }).instance;
    const pid = instance.proc.pid;
    expect(isRunning(pid)).toBe(true);
    expect(isRunning(grandchild)).toBe(true);

    await r.dispose();
    await r.dispose(); // idempotent
    expect(r.state).toBe('offline');
    expect(() => process.kill(pid, 0)).toThrow();
    expect(isRunning(grandchild)).toBe(false);
  });

  it('holds a process that never listens in starting for the boot grace, then reports it running with a worker hint', async () => {
    const volume = await volumeWith({ 'worker.js': "console.log('worker up');\nsetInterval(() => {}, 1000);\n" });
    // A long grace, so the first read surely falls inside it whatever the machine's speed.
    const r = runner({ volume, runtime: 'nodejs', entryFile: 'worker.js', bootGraceMs: 60_000 });
    const started = await r.power('start', 0);
    expect(started.ok).toBe(true);
    expect(r.state).toBe('starting');
    const early = await r.diagnose(0);
    expect(early.hint).toContain(`it is running once it listens on port ${r.port}`);
    await r.dispose();

    const quick = runner({ volume, runtime: 'nodejs', entryFile: 'worker.js', bootGraceMs: 200 });
    const applied = await quick.apply({});
    expect(applied.restarted).toBe(true);
    expect(applied.state).toBe('running');
    expect(applied.http).toMatchObject({ status: 0, ok: false });
    expect(applied.hint).toBe(`The process runs but does not listen on port ${quick.port}: right for a bot or worker; a web app must listen on SERVER_PORT and 0.0.0.0.`);
    // On a loaded machine the first line may reach the console after the grace: read it from logs, which waits.
    const logs = await quick.logs(10, 30);
    expect(logs).toMatchObject({ state: 'running', settled: true });
    expect(logs.lines).toContain('worker up');
  });

  it('reports a worker that crashes after the boot grace as offline with its last lines', async () => {
    const volume = await volumeWith({
      // It keeps printing, so logs' wait cannot end on idleness before the crash.
      'bot.js': "console.log('Logged in as TestBot#0001');\nsetInterval(() => console.log('heartbeat'), 100);\nsetTimeout(() => { console.error('Error: socket hang up'); process.exit(3); }, 600);\n",
    });
    const r = runner({ volume, runtime: 'nodejs', entryFile: 'bot.js', bootGraceMs: 100 });
    const applied = await r.apply({});
    expect(applied.state).toBe('running');
    const logs = await r.logs(100, 30);
    expect(logs.state).toBe('offline');
    expect(logs.lines).toContain('Error: socket hang up');
    expect(logs.lines.at(-1)).toBe('[emulator] process exited with code 3');
    expect(logs.hint).toBe('The process exited with code 3; the last log lines show why.');
  });

  it('answers logs with at most 500 lines, whatever size asks; searchLogs reads further back', async () => {
    const volume = await volumeWith({ 'index.js': "for (let i = 1; i <= 800; i++) console.log('line ' + i);\n" });
    const r = runner({ volume, runtime: 'nodejs', entryFile: 'index.js' });
    await r.apply({});
    const logs = await r.logs(5000, 0);
    expect(logs.lines).toHaveLength(500);
    expect(logs.lines.at(-1)).toBe('[emulator] process exited with code 0');
    expect(r.consoleTail(5000)).toContain('line 1');
  });

  it('passes SERVER_PORT and PORT but not the emulator environment to the app', async () => {
    const volume = await volumeWith({
      'env.js': "console.log('env ' + JSON.stringify({ s: process.env.SERVER_PORT, p: process.env.PORT, k: process.env.HOSTSYNC_TEST_SECRET ?? null, u: process.env.MY_VAR }));\n",
    });
    process.env.HOSTSYNC_TEST_SECRET = 'must-not-leak';
    try {
      const r = runner({ volume, runtime: 'nodejs', entryFile: 'env.js', env: () => ({ MY_VAR: 'mine', SERVER_PORT: '1' }) });
      const result = await r.apply({});
      expect(result.state).toBe('offline');
      const line = result.logs.find((l) => l.startsWith('env '));
      expect(JSON.parse(line!.slice(4))).toEqual({ s: String(r.port), p: String(r.port), k: null, u: 'mine' });
      expect(result.hint).toBe('The process exited with code 0; the last log lines show why.');
    } finally {
      delete process.env.HOSTSYNC_TEST_SECRET;
    }
  });
});

describe('DeploymentRunner transitions', () => {
  it('moves the app to a new port when its port was taken while it was stopped', async () => {
    const volume = await volumeWith({ 'index.js': webApp('Moved') });
    const r = runner({ volume, runtime: 'nodejs', entryFile: 'index.js' });
    await r.power('start');
    const first = r.port!;
    await r.power('stop', 10);
    const squatter = createServer();
    await new Promise<void>((resolve) => squatter.listen(first, '127.0.0.1', resolve));
    try {
      const result = await r.apply({});
      expect(result.state).toBe('running');
      expect(r.port).not.toBe(first);
      expect(result.http.title).toBe('Moved');
      expect(result.logs).toContain(`[emulator] port ${first} is taken; the app now gets port ${r.port}`);
    } finally {
      await new Promise((resolve) => squatter.close(resolve));
    }
  });

  it('serialises concurrent applies: one restart after the other, both report the app up', async () => {
    const volume = await volumeWith({ 'index.js': webApp('Concurrent') });
    const r = runner({ volume, runtime: 'nodejs', entryFile: 'index.js' });
    const [a, b] = await Promise.all([r.apply({}), r.apply({})]);
    for (const result of [a, b]) {
      expect(result).toMatchObject({ restarted: true, state: 'running', hint: '' });
      expect(result.http.title).toBe('Concurrent');
    }
    const lines = (await r.logs(1000)).lines;
    expect(lines.filter((line) => line.startsWith('[emulator] starting: '))).toHaveLength(2);
    expect(lines.filter((line) => line === '[emulator] process stopped')).toHaveLength(1);
  });

  it('restart via power replaces the process and returns running', async () => {
    const volume = await volumeWith({ 'index.js': `console.log('pid ' + process.pid);\n${webApp('Power')}` });
    const r = runner({ volume, runtime: 'nodejs', entryFile: 'index.js' });
    await r.power('start');
    const restarted = await r.power('restart');
    expect(restarted).toMatchObject({ ok: true, action: 'restart', state: 'running', hint: '' });
    const pids = [...restarted.logs.join('\n').matchAll(/^pid (\d+)$/gm)].map((m) => Number(m[1]));
    expect(pids).toHaveLength(2);
    expect(pids[0]).not.toBe(pids[1]);
    expect(restarted.logs).toContain('[emulator] process stopped');
  });

  it('logs waits for a process that dies later and shows its stack trace', async () => {
    const volume = await volumeWith({
      'index.js': "console.log('working');\nsetTimeout(() => { throw new Error('late failure'); }, 200);\nsetInterval(() => console.log('tick'), 50);\n",
    });
    const r = runner({ volume, runtime: 'nodejs', entryFile: 'index.js' });
    await r.power('start', 0);
    const logs = await r.logs(100, 30);
    expect(logs.state).toBe('offline');
    expect(logs.settled).toBe(true);
    expect(logs.lines.some((line) => line.includes('Error: late failure'))).toBe(true);
    expect(logs.lines.some((line) => /^\s+at /.test(line))).toBe(true);
    expect(logs.lines.at(-1)).toBe('[emulator] process exited with code 1');
  });

  it('killAllTrackedGroups (the exit hook) leaves no app process behind', async () => {
    const volume = await volumeWith({ 'index.js': webApp('Hooked') });
    const r = runner({ volume, runtime: 'nodejs', entryFile: 'index.js' });
    await r.power('start');
    const pid = (r as unknown as { instance: { proc: { pid: number } } }).instance.proc.pid;
    expect(isRunning(pid)).toBe(true);
    killAllTrackedGroups();
    await (r as unknown as { instance: { proc: { exited: Promise<void> } } }).instance.proc.exited;
    expect(r.state).toBe('offline');
    expect(() => process.kill(pid, 0)).toThrow();
  });
});

describe('DeploymentRunner with files served from the volume', () => {
  it('starts a static site on first apply, then skips restarts and serves edits live', async () => {
    const volume = await volumeWith({ 'index.html': '<html><head><title>Static &amp; Fine</title></head></html>' });
    const r = runner({ volume, runtime: 'static', entryFile: '' });
    const first = await r.apply({});
    expect(first.state).toBe('running');
    expect(first.http).toMatchObject({ status: 200, ok: true, title: 'Static & Fine' });
    expect(first.http.contentType).toBe('text/html; charset=utf-8');

    await writeFile(join(volume, 'index.html'), '<title>Edited</title>');
    const second = await r.apply({});
    expect(second.restarted).toBe(false);
    expect(second.skippedRestart).toBe('static site is served from the volume; no restart needed');
    expect(second.http.title).toBe('Edited');
    expect(second.hint).toBe('');

    const forced = await r.apply({ restart: true });
    expect(forced.restarted).toBe(true);
    expect(forced.skippedRestart).toBe('');
    expect(forced.state).toBe('running');
  });

  it('serves content types, directory indexes and 404s, and never a file outside the volume', async () => {
    const volume = await volumeWith({ 'style.css': 'body{}', 'index.html': '<title>Root</title>' });
    const outside = join(root, 'secret.txt');
    await writeFile(outside, 'secret');
    const { mkdir, symlink } = await import('node:fs/promises');
    await mkdir(join(volume, 'docs'));
    await writeFile(join(volume, 'docs', 'index.html'), '<title>Docs</title>');
    await symlink(outside, join(volume, 'escape.txt'));
    const r = runner({ volume, runtime: 'static', entryFile: '' });
    await r.power('start');
    const base = `http://127.0.0.1:${r.port}`;

    const css = await fetch(`${base}/style.css`);
    expect(css.status).toBe(200);
    expect(css.headers.get('content-type')).toBe('text/css; charset=utf-8');
    expect(await css.text()).toBe('body{}');

    const docs = await fetch(`${base}/docs/`);
    expect(await docs.text()).toBe('<title>Docs</title>');
    const redirect = await fetch(`${base}/docs`, { redirect: 'manual' });
    expect(redirect.status).toBe(301);
    expect(redirect.headers.get('location')).toBe('/docs/');

    expect((await fetch(`${base}/missing.html`)).status).toBe(404);
    expect((await fetch(`${base}/escape.txt`)).status).toBe(404);
    expect((await fetch(`${base}/%2e%2e/secret.txt`)).status).toBe(404);

    const stopped = await r.power('stop');
    expect(stopped.state).toBe('offline');
    expect((await probeHttp(Number(new URL(base).port), 2000)).status).toBe(0);
  });

  it('treats phpweb as files served without PHP', async () => {
    const volume = await volumeWith({ 'index.php': '<?php echo "hi"; ?>' });
    const r = runner({ volume, runtime: 'phpweb', entryFile: 'index.php' });
    const result = await r.apply({});
    expect(result.state).toBe('running');
    expect(result.http.status).toBe(200);
    expect(result.http.bodyExcerpt).toBe('<?php echo "hi"; ?>');
    const again = await r.apply({});
    expect(again.skippedRestart).toContain('no restart needed');
  });
});

describe('DeploymentRunner with a runtime it cannot run', () => {
  it('stays offline and says so', async () => {
    const volume = await volumeWith({ 'main.go': 'package main' });
    const r = runner({ volume, runtime: 'go', entryFile: 'main.go' });
    const power = await r.power('start');
    expect(power.ok).toBe(false);
    expect(power.state).toBe('offline');
    expect(power.hint).toContain('runtime go is not emulated');
    const result = await r.apply({});
    expect(result.restarted).toBe(false);
    expect(result.state).toBe('offline');
    expect(result.skippedRestart).toContain('not emulated');
    expect(result.hint).toContain('runtime go is not emulated');
  });

  it('runs it through sh -c when a startCommand is given', async () => {
    const volume = await volumeWith({ 'index.js': webApp('Via Shell') });
    const r = runner({ volume, runtime: 'go', entryFile: 'main.go', startCommand: 'echo prepared && exec node index.js' });
    const result = await r.apply({});
    expect(result.state).toBe('running');
    expect(result.http.title).toBe('Via Shell');
    expect(result.logs).toContain('prepared');
  });
});
