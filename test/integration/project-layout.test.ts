/**
 * Where a project is and what it syncs (#29): a command run in a subfolder works on the
 * project above it; "dir" syncs a build's output folder while the state stays in the
 * project root, so a build that empties the folder loses nothing and a rebuild's new
 * hashed assets replace the old ones; "build" runs before a push; an HTML template a
 * server reads at start-up is applied with a restart.
 */
import { access, mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startEmulator, type RunningEmulator } from '../../src/emulator/index.js';
import { HostingClient } from '../../src/remote/client.js';
import { runCli } from '../helpers/cli.js';
import { envFor } from '../helpers/push.js';
import { tempDir, writeTree } from '../helpers/tree.js';

const cleanups: Array<() => Promise<void>> = [];
// In order: a `hostsync dev` child is stopped (and has exited) before its folder is removed.
afterEach(async () => {
  for (const c of cleanups.splice(0)) await c();
});

async function setup(files: Record<string, string>, opts: Parameters<typeof startEmulator>[0] = {}): Promise<{ emu: RunningEmulator; dir: string }> {
  const emu = await startEmulator(opts);
  const work = await tempDir('hostsync-layout-');
  cleanups.push(() => emu.close(), work.cleanup);
  await writeTree(work.dir, files);
  return { emu, dir: work.dir };
}

const exists = (p: string): Promise<boolean> => access(p).then(() => true, () => false);
const keyOnly = (emu: RunningEmulator) => ({ HOSTSYNC_API_KEY: emu.apiKey });

describe('the project root, found upward', () => {
  it('status in a subfolder works on the project above: paths from the root, no state in the subfolder', async () => {
    const t = await setup({ 'index.js': 'setInterval(() => {}, 60000);\n', 'src/util.js': 'module.exports = 1;\n' });
    // The file names the service; init with the address given trusts it for the key.
    expect((await runCli(['init', '--base-url', t.emu.baseUrl, '--deployment', t.emu.deploymentId], {}, { cwd: t.dir })).code).toBe(0);
    const r = await runCli(['status', '--json'], keyOnly(t.emu), { cwd: path.join(t.dir, 'src') });
    expect(r.code).toBe(0);
    const out = JSON.parse(r.stdout);
    expect(out.changes.map((c: { path: string }) => c.path).sort()).toEqual(['.syncignore', 'hostsync.json', 'index.js', 'src/util.js']);
    expect(await exists(path.join(t.dir, 'src', '.hostsync'))).toBe(false);

    const push = await runCli(['push', '--no-apply'], keyOnly(t.emu), { cwd: path.join(t.dir, 'src') });
    expect(push.code).toBe(0);
    expect(await readFile(path.join(t.emu.volume, 'src/util.js'), 'utf8')).toContain('module.exports');
    expect(await exists(path.join(t.emu.volume, 'util.js'))).toBe(false);
    expect(await exists(path.join(t.dir, '.hostsync'))).toBe(true);
    expect(await exists(path.join(t.dir, 'src', '.hostsync'))).toBe(false);
  });
});

/** A build like Vite's: empties dist/, then writes index.html naming a content-hashed asset. */
const BUILD = `
const fs = require('node:fs');
const crypto = require('node:crypto');
const src = fs.readFileSync('src/app.js', 'utf8');
const hash = crypto.createHash('sha256').update(src).digest('hex').slice(0, 8);
fs.rmSync('dist', { recursive: true, force: true });
fs.mkdirSync('dist/assets', { recursive: true });
fs.writeFileSync('dist/assets/app.' + hash + '.js', src);
fs.writeFileSync('dist/index.html', '<title>app</title><script src="/assets/app.' + hash + '.js"></script>\\n');
`;

describe('"dir" and "build"', () => {
  it('syncs dist/ with the state in the project root: a rebuild that empties dist/ and renames its assets is an ordinary change', async () => {
    const t = await setup({ 'build.js': BUILD, 'src/app.js': 'console.log(1);\n' }, { runtime: 'static' });
    await writeFile(path.join(t.dir, 'hostsync.json'), JSON.stringify({ dir: 'dist', build: 'node build.js' }));
    const env = envFor(t.emu);
    const first = await runCli(['push', '--json'], env, { cwd: t.dir });
    expect(first.code, first.stderr).toBe(0);
    const volumeFiles = async () => (await readdir(path.join(t.emu.volume, 'assets'))).sort();
    const firstAssets = await volumeFiles();
    expect(firstAssets).toHaveLength(1);
    expect(await exists(path.join(t.emu.volume, 'build.js'))).toBe(false);
    expect(await exists(path.join(t.dir, '.hostsync'))).toBe(true);
    expect(await exists(path.join(t.dir, 'dist', '.hostsync'))).toBe(false);

    await writeFile(path.join(t.dir, 'src/app.js'), 'console.log(2);\n');
    const second = await runCli(['push', '--json'], env, { cwd: t.dir });
    expect(second.code, second.stderr).toBe(0);
    const out = JSON.parse(second.stdout);
    expect(out.conflicts).toEqual([]);
    const assets = await volumeFiles();
    expect(assets).toHaveLength(1);
    expect(assets).not.toEqual(firstAssets);
    expect(await readFile(path.join(t.emu.volume, 'index.html'), 'utf8')).toContain(assets[0]);
  });

  it('a failing build stops the push before anything is sent (exit 1)', async () => {
    const t = await setup({ 'index.js': 'setInterval(() => {}, 60000);\n' });
    await writeFile(path.join(t.dir, 'hostsync.json'), JSON.stringify({ build: 'node -e "console.error(\'syntax error in app.ts\'); process.exit(2)"' }));
    const r = await runCli(['push', '--json'], envFor(t.emu), { cwd: t.dir });
    expect(r.code).toBe(1);
    expect(JSON.parse(r.stdout).error).toMatch(/the build .* failed \(exit 2\); last output: syntax error in app.ts/);
    expect(await exists(path.join(t.emu.volume, 'index.js'))).toBe(false);
  });
});

/** A server that reads its page template once, at start-up, and serves public/ per request. */
const SERVER = `
const fs = require('node:fs');
const path = require('node:path');
const banner = fs.readFileSync(path.join(__dirname, 'views/banner.html'), 'utf8');
const serveStatic = (dir) => dir;
const publicDir = serveStatic('public');
require('node:http').createServer((q, s) => {
  if (q.url === '/style.css') return s.end(fs.readFileSync(path.join(__dirname, publicDir, 'style.css')));
  s.setHeader('content-type', 'text/html');
  s.end('<title>' + banner.trim() + '</title>');
}).listen(Number(process.env.SERVER_PORT), '0.0.0.0');
`;

describe('hot paths', () => {
  it('init marks only the served static folder as restart-free: a template edit restarts the app and the page changes', async () => {
    const t = await setup({
      'package.json': JSON.stringify({ name: 'web', main: 'index.js' }),
      'index.js': SERVER,
      'views/banner.html': 'Old banner\n',
      'public/style.css': 'body{}\n',
    });
    expect((await runCli(['init'], envFor(t.emu), { cwd: t.dir })).code).toBe(0);
    expect(JSON.parse(await readFile(path.join(t.dir, 'hostsync.json'), 'utf8')).hotPaths).toEqual(['public/**']);
    const first = await runCli(['push', '--json'], envFor(t.emu), { cwd: t.dir });
    expect(first.code, first.stdout).toBe(0);
    expect(JSON.parse(first.stdout).apply.http.title).toBe('Old banner');

    await writeFile(path.join(t.dir, 'views/banner.html'), 'New banner\n');
    const edit = JSON.parse((await runCli(['push', '--json'], envFor(t.emu), { cwd: t.dir })).stdout);
    expect(edit.apply.restarted).toBe(true);
    expect(edit.apply.http.title).toBe('New banner');

    await writeFile(path.join(t.dir, 'public/style.css'), 'body{color:red}\n');
    const css = JSON.parse((await runCli(['push', '--json'], envFor(t.emu), { cwd: t.dir })).stdout);
    expect(css.apply.restarted).toBe(false);
  });
});

describe('one dev session, many terminals', () => {
  it.runIf(process.platform === 'linux')('logs, exec and status in the project talk to the running `hostsync dev` (started with hostsync.json\'s entry file) with no variable set, and say so', async () => {
    const { spawn } = await import('node:child_process');
    const { createInterface } = await import('node:readline');
    const { CLI } = await import('../helpers/cli.js');
    const work = await tempDir('hostsync-dev-island-');
    cleanups.push(work.cleanup);
    // A bot whose entry is bot.js: dev starts its emulator with hostsync.json's startup.
    await writeTree(work.dir, {
      'bot.js': "console.log('island ready');\nsetInterval(() => {}, 60000);\n",
      'hostsync.json': JSON.stringify({ startup: { entryFile: 'bot.js' } }),
    });
    await mkdir(path.join(work.dir, 'sub'));
    const child = spawn(process.execPath, [CLI, 'dev', '--json', '--dir', work.dir], {
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', NO_COLOR: '1' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const exited = new Promise<void>((resolve) => child.on('exit', () => resolve()));
    cleanups.unshift(async () => {
      child.kill('SIGINT');
      await exited;
    });
    await new Promise<void>((resolve, reject) => {
      createInterface({ input: child.stdout! }).on('line', (line) => {
        if ((JSON.parse(line) as { type: string }).type === 'app') resolve();
      });
      child.on('exit', (code) => reject(new Error(`dev exited ${code}`)));
    });

    const logs = await runCli(['logs', '--json'], {}, { cwd: path.join(work.dir, 'sub') });
    expect(logs.code, logs.stderr).toBe(0);
    expect(logs.stderr).toMatch(/using the running `hostsync dev` emulator at http:\/\/127\.0\.0\.1:\d+ \(deployment dep_/);
    expect(JSON.stringify(JSON.parse(logs.stdout))).toContain('island ready');
    const exec = await runCli(['exec', '--', 'cat bot.js'], {}, { cwd: work.dir });
    expect(exec.code, exec.stderr).toBe(0);
    expect(exec.stdout).toContain('island ready');
    const status = await runCli(['status', '--json'], {}, { cwd: work.dir });
    expect(status.code, status.stderr).toBe(0);
    expect(JSON.parse(status.stdout).appState).toBe('running');

    child.kill('SIGINT');
    await exited;
    // With the session gone, nothing is assumed.
    const after = await runCli(['logs'], {}, { cwd: work.dir });
    expect(after.code).toBe(2);
    expect(after.stderr).toMatch(/no service address/);
  });
});
