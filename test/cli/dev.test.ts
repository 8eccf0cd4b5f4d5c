import { spawn, type ChildProcess } from 'node:child_process';
import { cp, readdir, readFile, readlink } from 'node:fs/promises';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { newLogLines } from '../../src/cli/commands/dev.js';
import { CLI, runCli } from '../helpers/cli.js';
import { tempDir } from '../helpers/tree.js';

let work: { dir: string; cleanup: () => Promise<void> };
let tmp: { dir: string; cleanup: () => Promise<void> };

beforeEach(async () => {
  work = await tempDir('hostsync-dev-');
  tmp = await tempDir('hostsync-dev-tmp-');
  await cp(path.resolve('examples/hello'), work.dir, { recursive: true });
});
afterEach(async () => {
  await work.cleanup();
  await tmp.cleanup();
});

interface Dev {
  child: ChildProcess;
  /** Resolves with the first JSON event of this type. */
  next(type: string): Promise<Record<string, unknown>>;
  exit: Promise<number | null>;
}

/** `hostsync dev --json` in the project, with its own TMPDIR so leftovers are visible. */
function startDev(extra: string[] = []): Dev {
  const child = spawn(process.execPath, [CLI, 'dev', '--json', '--dir', work.dir, ...extra], {
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', TMPDIR: tmp.dir, NO_COLOR: '1' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const seen: Array<Record<string, unknown>> = [];
  const waiters: Array<{ type: string; resolve: (e: Record<string, unknown>) => void }> = [];
  createInterface({ input: child.stdout! }).on('line', (line) => {
    const e = JSON.parse(line) as Record<string, unknown>;
    seen.push(e);
    for (const w of waiters.filter((x) => x.type === e.type)) w.resolve(e);
  });
  let stderr = '';
  child.stderr!.on('data', (d) => (stderr += d));
  const exit = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return {
    child,
    exit,
    next: (type) =>
      new Promise((resolve, reject) => {
        const hit = seen.find((e) => e.type === type);
        if (hit) return resolve(hit);
        waiters.push({ type, resolve });
        void exit.then((code) => reject(new Error(`dev exited (${code}) before a "${type}" event: ${stderr}`)));
      }),
  };
}

/** Processes whose working directory lies in the project's dev data: the app the emulator ran. */
async function appProcesses(): Promise<number[]> {
  const found: number[] = [];
  for (const pid of (await readdir('/proc')).filter((p) => /^\d+$/.test(p))) {
    const cwd = await readlink(`/proc/${pid}/cwd`).catch(() => '');
    if (cwd.startsWith(path.join(work.dir, '.hostsync'))) found.push(Number(pid));
  }
  return found;
}

const answers = (url: string): Promise<boolean> => fetch(url).then((r) => r.ok, () => false);

describe.runIf(process.platform === 'linux')('hostsync dev', () => {
  it('starts, serves the app, survives a restart with the same key, deployment and port, and cleans up on SIGINT and SIGHUP', async () => {
    const one = startDev();
    const ready = await one.next('dev');
    const app = await one.next('app');
    expect(app.state).toBe('running');
    expect(await answers(app.url as string)).toBe(true);
    const key = JSON.parse(await readFile(path.join(work.dir, '.hostsync/dev/emulator/emulator.json'), 'utf8')).apiKey;
    expect((await appProcesses()).length).toBeGreaterThan(0);

    one.child.kill('SIGINT');
    expect(await one.exit).toBe(0);
    expect(await answers(app.url as string)).toBe(false);
    expect(await appProcesses()).toEqual([]);

    const two = startDev();
    const again = await two.next('dev');
    expect(again.baseUrl).toBe(ready.baseUrl);
    expect(again.deployment).toBe(ready.deployment);
    expect(JSON.parse(await readFile(path.join(work.dir, '.hostsync/dev/emulator/emulator.json'), 'utf8')).apiKey).toBe(key);
    // Nothing changed, yet the app comes up again.
    const app2 = await two.next('app');
    expect(app2.state).toBe('running');
    expect(await answers(app2.url as string)).toBe(true);

    two.child.kill('SIGHUP');
    expect(await two.exit).toBe(0);
    expect(await answers(app2.url as string)).toBe(false);
    expect(await appProcesses()).toEqual([]);
    expect(await readdir(tmp.dir)).toEqual([]);
  }, 120_000);
});

describe.runIf(process.platform === 'linux')('hostsync dev --runtime python', () => {
  it('runs a stdlib python web app on 127.0.0.1 with the machine\'s python (issue #30: it was "not emulated")', async () => {
    const { writeFile } = await import('node:fs/promises');
    await writeFile(
      path.join(work.dir, 'app.py'),
      'import os, http.server\n' +
        'class H(http.server.BaseHTTPRequestHandler):\n' +
        '    def do_GET(self):\n' +
        '        self.send_response(200); self.end_headers(); self.wfile.write(b"py ok")\n' +
        'http.server.HTTPServer(("0.0.0.0", int(os.environ["SERVER_PORT"])), H).serve_forever()\n',
    );
    const dev = startDev(['--runtime', 'python', '--entry', 'app.py']);
    const app = await dev.next('app');
    expect(app.state).toBe('running');
    expect(await fetch(app.url as string).then((r) => r.text())).toBe('py ok');
    dev.child.kill('SIGINT');
    expect(await dev.exit).toBe(0);
    expect(await appProcesses()).toEqual([]);
  }, 120_000);
});

describe.runIf(process.platform === 'linux')('hostsync dev: the entry file (issue 46, item 1)', () => {
  const serve = (text: string): string =>
    `import http from 'node:http';\nhttp.createServer((q, s) => s.end(${JSON.stringify(text)})).listen(Number(process.env.SERVER_PORT), '0.0.0.0');\n`;

  it('runs an app whose entry is server.js: dev before init, then init, then dev again; an edit of hostsync.json applies at once', async () => {
    const { rm, writeFile } = await import('node:fs/promises');
    await rm(path.join(work.dir, 'index.js'));
    await rm(path.join(work.dir, 'hostsync.json'));
    await writeFile(path.join(work.dir, 'package.json'), JSON.stringify({ name: 'srv', private: true, type: 'module', scripts: { start: 'node server.js' } }));
    await writeFile(path.join(work.dir, 'server.js'), serve('from server.js'));
    await writeFile(path.join(work.dir, 'other.js'), serve('from other.js'));

    // A newcomer's first `hostsync dev`, before any hostsync.json: the emulator's deployment
    // is made with the default entry (index.js) and kept in .hostsync/dev.
    const one = startDev();
    await one.next('app');
    one.child.kill('SIGINT');
    expect(await one.exit).toBe(0);

    const init = await runCli(['init', '--dir', work.dir], {}, { process: true });
    expect(init.code).toBe(0);
    expect(JSON.parse(await readFile(path.join(work.dir, 'hostsync.json'), 'utf8')).startup.entryFile).toBe('server.js');

    const two = startDev();
    const app = await two.next('app');
    expect(app.state).toBe('running');
    expect(await fetch(app.url as string).then((r) => r.text())).toBe('from server.js');

    // A push from another terminal meets dev's lock: the refusal says dev already does it.
    const push = await runCli(['push', '--dir', work.dir], {}, { process: true });
    expect(push.code).toBe(3);
    expect(push.stderr).toMatch(/`hostsync dev` \(pid \d+ .*\) is running on this directory and already sends every save/);

    // hostsync.json changed while dev runs: the new entry is applied without a restart of dev.
    const config = JSON.parse(await readFile(path.join(work.dir, 'hostsync.json'), 'utf8'));
    await writeFile(path.join(work.dir, 'hostsync.json'), JSON.stringify({ ...config, startup: { ...config.startup, entryFile: 'other.js' } }, null, 2));
    const settings = await two.next('settings');
    expect(settings.changes).toEqual([expect.objectContaining({ key: 'entryFile', from: 'server.js', to: 'other.js' })]);
    await expect.poll(() => fetch(app.url as string).then((r) => r.text(), () => ''), { timeout: 30_000, interval: 200 }).toBe('from other.js');

    // A half-typed hostsync.json does not take dev down: it waits for the next save.
    await writeFile(path.join(work.dir, 'hostsync.json'), '{"startup": ');
    await two.next('config-wait');
    await writeFile(path.join(work.dir, 'hostsync.json'), JSON.stringify(config, null, 2));
    await expect.poll(() => fetch(app.url as string).then((r) => r.text(), () => ''), { timeout: 30_000, interval: 200 }).toBe('from server.js');
    two.child.kill('SIGINT');
    expect(await two.exit).toBe(0);
    expect(await appProcesses()).toEqual([]);
  }, 120_000);
});

describe('newLogLines', () => {
  it('shows only the lines after what was shown, and everything after a reset', () => {
    expect(newLogLines([], ['a', 'b'])).toEqual(['a', 'b']);
    expect(newLogLines(['a', 'b'], ['a', 'b', 'c'])).toEqual(['c']);
    expect(newLogLines(['a', 'b', 'c'], ['b', 'c', 'd', 'e'])).toEqual(['d', 'e']);
    expect(newLogLines(['a', 'b'], ['a', 'b'])).toEqual([]);
    expect(newLogLines(['x', 'y'], ['p', 'q'])).toEqual(['p', 'q']);
  });
});
