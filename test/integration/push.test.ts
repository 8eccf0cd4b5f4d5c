import { cp, readdir, readFile, rm, writeFile, chmod, mkdir, stat } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startEmulator, type RunningEmulator } from '../../src/emulator/index.js';
import { HostingClient } from '../../src/remote/client.js';
import { fileDigests, tempDir, writeTree } from '../helpers/tree.js';
import { runCli } from '../helpers/cli.js';
import { envFor, pushOnce } from '../helpers/push.js';
import { testKey } from '../helpers/keys.js';

/** The base record hostsync keeps on the deployment (`.hostsync/`): not a project file. */
const baseRecord = (rel: string): boolean => rel === '.hostsync';

/** Packages installed by npm ci: together a real-world tree with binaries and a >5 MB text file. */
const REAL_WORLD_SOURCES = ['typescript', 'undici', 'pino', 'tar', 'vitest', 'chokidar', 'xxhash-wasm', 'ignore', 'commander', 'busboy', 'yauzl', 'picocolors', '@types/node'];
const NODE_MODULES = path.resolve('node_modules');

/** Paths the scan ignores by default, which must also stay off the volume. */
const ignoredLocally = (rel: string): boolean => rel === '.env' || rel === '.hostsync' || rel.startsWith('.hostsync/') || rel === 'node_modules' || rel.endsWith('/node_modules') || rel === '.git';

let emu: RunningEmulator;
let work: { dir: string; cleanup: () => Promise<void> };


const cliEnv = () => envFor(emu);

async function clearVolume(): Promise<void> {
  for (const name of await readdir(emu.volume)) await rm(path.join(emu.volume, name), { recursive: true, force: true });
}

beforeAll(async () => {
  emu = await startEmulator({});
});
afterAll(async () => {
  await emu?.close();
});
beforeEach(async () => {
  work = await tempDir('hostsync-push-');
  await clearVolume();
});
afterEach(async () => {
  await work.cleanup();
});

describe('push of a real-world tree', () => {
  it('makes the volume byte-identical, then a no-op push costs one request and a one-file edit at most four', async () => {
    for (const pkg of REAL_WORLD_SOURCES) {
      await cp(path.join(NODE_MODULES, pkg), path.join(work.dir, 'vendor-copy', pkg), { recursive: true, dereference: false });
    }
    // A nested node_modules and a .env must stay local.
    await writeTree(work.dir, { 'node_modules/x/index.js': 'ignored', '.env': 'SECRET=1', 'bin/run.sh': '#!/bin/sh\necho hi\n' });
    await chmod(path.join(work.dir, 'bin/run.sh'), 0o755);
    const local = await fileDigests(work.dir, ignoredLocally);
    expect(local.size).toBeGreaterThan(1000);
    const sizes = await Promise.all([...local.keys()].map(async (p) => (await stat(path.join(work.dir, p))).size));
    expect(Math.max(...sizes)).toBeGreaterThan(5 * 1024 * 1024);
    expect([...local.keys()].some((p) => p.endsWith('.wasm'))).toBe(true);

    const first = await pushOnce(emu, work.dir);
    expect(first.report.failures).toEqual([]);
    expect(first.report.conflicts).toEqual([]);
    const remote = await fileDigests(emu.volume, baseRecord);
    expect(remote).toEqual(local);
    expect(remote.has('.env')).toBe(false);

    emu.resetStats();
    const noop = await pushOnce(emu, work.dir);
    expect(noop.report.changes).toEqual([]);
    expect(noop.stats.total).toBe(1);
    expect(emu.stats().requests.total).toBe(1);

    await writeFile(path.join(work.dir, 'vendor-copy/pino/README.md'), '# edited\n');
    emu.resetStats();
    const edit = await pushOnce(emu, work.dir);
    expect(edit.report.counts.written).toBe(1);
    // index, the base record's batch (files.edit), writeMany, files.history (was the
    // overwritten file edited during the push?), verifying index.
    expect(edit.stats.total).toBeLessThanOrEqual(5);
    expect(await readFile(path.join(emu.volume, 'vendor-copy/pino/README.md'), 'utf8')).toBe('# edited\n');
  });
});

describe('safety', () => {
  it('reports a remote edit as a conflict, keeps it, pushes the rest (exit 3); --force then overwrites it', async () => {
    await writeTree(work.dir, { 'a.txt': 'a1\n', 'b.txt': 'b1\n' });
    expect((await runCli(['push', '--no-apply', '--dir', work.dir], cliEnv())).code).toBe(0);

    const client = new HostingClient({ baseUrl: emu.baseUrl, apiKey: emu.apiKey, deploymentId: emu.deploymentId });
    await client.files.write('a.txt', 'remote edit\n');
    await client.close();
    await writeTree(work.dir, { 'a.txt': 'a2\n', 'b.txt': 'b2\n' });

    const res = await runCli(['push', '--no-apply', '--json', '--dir', work.dir], cliEnv());
    expect(res.code).toBe(3);
    const out = JSON.parse(res.stdout);
    expect(out.ok).toBe(false);
    expect(out.conflicts).toEqual([{ path: 'a.txt', reason: 'both-modified' }]);
    expect(out.changes.written).toBe(1);
    expect(await readFile(path.join(emu.volume, 'a.txt'), 'utf8')).toBe('remote edit\n');
    expect(await readFile(path.join(emu.volume, 'b.txt'), 'utf8')).toBe('b2\n');

    const forced = await runCli(['push', '--no-apply', '--force', '--dir', work.dir], cliEnv());
    expect(forced.code).toBe(0);
    expect(await readFile(path.join(emu.volume, 'a.txt'), 'utf8')).toBe('a2\n');
  });

  it('leaves remote-only files alone; --mirror deletes them but never ignored ones', async () => {
    await writeTree(work.dir, { 'app.js': 'x\n', '.syncignore': 'data/\n' });
    await writeTree(emu.volume, { 'uploads/photo.bin': Buffer.from([1, 2, 3]), 'data/db.sqlite': 'db', 'server.log': 'log' });
    const pushed = await pushOnce(emu, work.dir);
    expect(pushed.report.remoteOnly.sort()).toEqual(['server.log', 'uploads/photo.bin']);
    expect((await fileDigests(emu.volume, baseRecord)).has('uploads/photo.bin')).toBe(true);

    const mirrored = await pushOnce(emu, work.dir, { mirror: true });
    expect(mirrored.report.counts.deleted).toBe(2);
    const after = await fileDigests(emu.volume, baseRecord);
    expect(after.has('uploads/photo.bin')).toBe(false);
    expect(after.has('server.log')).toBe(false);
    expect(after.has('data/db.sqlite')).toBe(true);
    expect(after.has('app.js')).toBe(true);
  });

  it('refuses to delete most of the tree (exit 3) and deletes nothing; --allow-mass-delete proceeds', async () => {
    const files: Record<string, string> = {};
    for (let i = 0; i < 30; i++) files[`src/f${i}.txt`] = `file ${i}\n`;
    await writeTree(work.dir, files);
    expect((await runCli(['push', '--no-apply', '--dir', work.dir], cliEnv())).code).toBe(0);
    await rm(path.join(work.dir, 'src'), { recursive: true });

    const refused = await runCli(['push', '--no-apply', '--dir', work.dir], cliEnv());
    expect(refused.code).toBe(3);
    expect(refused.stderr).toMatch(/--allow-mass-delete/);
    expect((await fileDigests(emu.volume, baseRecord)).size).toBe(30);

    const allowed = await runCli(['push', '--no-apply', '--allow-mass-delete', '--dir', work.dir], cliEnv());
    expect(allowed.code).toBe(0);
    expect((await fileDigests(emu.volume, baseRecord)).size).toBe(0);
  });

  it('never writes the API key into .hostsync/', async () => {
    await writeTree(work.dir, { 'index.js': 'console.log(1)\n' });
    expect((await runCli(['push', '--no-apply', '--dir', work.dir], cliEnv())).code).toBe(0);
    const state = await fileDigests(path.join(work.dir, '.hostsync'));
    expect(state.size).toBeGreaterThan(0);
    for (const rel of state.keys()) {
      expect(await readFile(path.join(work.dir, '.hostsync', rel), 'utf8')).not.toContain(emu.apiKey);
    }
  });
});

describe('exit codes for bad input', () => {
  it('names the missing key, deployment and base URL with exit 2', async () => {
    const noKey = await runCli(['push', '--dir', work.dir], { ...cliEnv(), HOSTSYNC_API_KEY: undefined });
    expect(noKey.code).toBe(2);
    expect(noKey.stderr).toMatch(/HOSTSYNC_API_KEY/);
    const noDep = await runCli(['push', '--dir', work.dir], { ...cliEnv(), HOSTSYNC_DEPLOYMENT: undefined });
    expect(noDep.code).toBe(2);
    expect(noDep.stderr).toMatch(/deployment/);
    const noUrl = await runCli(['push', '--dir', work.dir], { ...cliEnv(), HOSTSYNC_BASE_URL: undefined });
    expect(noUrl.code).toBe(2);
    expect(noUrl.stderr).toMatch(/HOSTSYNC_BASE_URL/);
  });

  it('rejects a path that is not a directory and an unreadable config with exit 2', async () => {
    await writeTree(work.dir, { 'file.txt': 'x' });
    const notDir = await runCli(['push', '--dir', path.join(work.dir, 'file.txt')], cliEnv());
    expect(notDir.code).toBe(2);
    expect(notDir.stderr).toMatch(/not a directory/);
    await writeTree(work.dir, { 'hostsync.json': '{ not json' });
    const badConfig = await runCli(['push', '--dir', work.dir], cliEnv());
    expect(badConfig.code).toBe(2);
    expect(badConfig.stderr).toMatch(/hostsync\.json/);
    expect(badConfig.stderr.trim().split('\n')).toHaveLength(1);
  });

  it('names the missing files:write scope with exit 2 and never prints the key', async () => {
    const readOnly = testKey('readonly');
    const ro = await startEmulator({ keys: [`${readOnly}:files:read,deployments:read`] });
    try {
      await writeTree(work.dir, { 'a.txt': 'a' });
      const res = await runCli(['push', '--no-apply', '--dir', work.dir], {
        HOSTSYNC_API_KEY: readOnly,
        HOSTSYNC_BASE_URL: ro.baseUrl,
        HOSTSYNC_DEPLOYMENT: ro.deploymentId,
      });
      expect(res.code).toBe(2);
      expect(res.stderr).toMatch(/files:write/);
      expect(res.stderr + res.stdout).not.toContain(readOnly);
    } finally {
      await ro.close();
    }
  });
});

describe('status', () => {
  it('lists changes with git-style letters, conflicts and drift', async () => {
    await writeTree(work.dir, { 'keep.txt': 'k\n', 'old.txt': 'same content for rename\n', 'gone.txt': 'g\n', 'conf.txt': 'c\n', 'drift.txt': 'd\n' });
    expect((await runCli(['push', '--no-apply', '--dir', work.dir], cliEnv())).code).toBe(0);
    await rm(path.join(work.dir, 'old.txt'));
    await writeTree(work.dir, { 'new.txt': 'same content for rename\n', 'added.txt': 'a\n', 'keep.txt': 'k2\n', 'conf.txt': 'local\n' });
    await rm(path.join(work.dir, 'gone.txt'));
    await writeTree(emu.volume, { 'conf.txt': 'remote\n', 'drift.txt': 'remote drift\n' });

    const res = await runCli(['status', '--dir', work.dir], cliEnv());
    expect(res.code).toBe(3); // a conflict: a push would be refused, as push --dry-run says too
    expect(res.stdout).toMatch(/^\s+M\s+keep\.txt$/m);
    expect(res.stdout).toMatch(/^\s+A\s+added\.txt$/m);
    expect(res.stdout).toMatch(/^\s+D\s+gone\.txt$/m);
    expect(res.stdout).toMatch(/^\s+R\s+old\.txt -> new\.txt$/m);
    expect(res.stdout).toMatch(/^\s+C\s+conf\.txt/m);
    expect(res.stdout).toMatch(/Remote drift[\s\S]*M\s+drift\.txt/);
  });
});

describe('init', () => {
  it('writes hostsync.json and .syncignore without overwriting, and says how to give the key', async () => {
    const res = await runCli(['init', '--dir', work.dir, '--deployment', 'dep-1'], {});
    expect(res.code).toBe(0);
    expect(JSON.parse(await readFile(path.join(work.dir, 'hostsync.json'), 'utf8')).deployment).toBe('dep-1');
    expect(await readFile(path.join(work.dir, '.syncignore'), 'utf8')).toMatch(/gitignore syntax/i);
    expect(res.stdout).toMatch(/HOSTSYNC_API_KEY/);
    await writeFile(path.join(work.dir, 'hostsync.json'), '{"deployment":"mine"}');
    await runCli(['init', '--dir', work.dir], {});
    expect(await readFile(path.join(work.dir, 'hostsync.json'), 'utf8')).toBe('{"deployment":"mine"}');
  });
});

describe('apply and health', () => {
  it('pushes a node app, applies it and exits 0 with the page title; a crashing app exits 4 with its error', async () => {
    await cp(path.resolve('examples/hello'), work.dir, { recursive: true });
    // Real processes (not the CLI host): the exit codes are the process's own.
    const ok = await runCli(['push', '--json', '--dir', work.dir], cliEnv(), { process: true });
    const out = JSON.parse(ok.stdout);
    expect(out.healthy).toBe(true);
    expect(out.apply.state).toBe('running');
    expect(out.apply.http.title).toBe('Hello from hostsync');
    expect(ok.code).toBe(0);

    await writeFile(path.join(work.dir, 'index.js'), "throw new Error('boom at startup');\n");
    const bad = await runCli(['push', '--dir', work.dir], cliEnv(), { process: true });
    expect(bad.code).toBe(4);
    expect(bad.stdout).toMatch(/boom at startup/);
  });
});

describe('kill -9 in the middle of a push', () => {
  it('converges on the next push with nothing lost', async () => {
    const files: Record<string, string> = {};
    for (let i = 0; i < 400; i++) files[`d${i % 20}/f${i}.txt`] = `content ${i}\n`.repeat(50);
    await writeTree(work.dir, files);
    await mkdir(path.join(work.dir, 'bin'), { recursive: true });
    const slow = await startEmulator({ latencyMs: 150 });
    const env = { HOSTSYNC_API_KEY: slow.apiKey, HOSTSYNC_BASE_URL: slow.baseUrl, HOSTSYNC_DEPLOYMENT: slow.deploymentId };
    try {
      const { spawn } = await import('node:child_process');
      const { CLI } = await import('../helpers/cli.js');
      const child = spawn(process.execPath, [CLI, 'push', '--no-apply', '--dir', work.dir], { env: { ...process.env, ...env }, stdio: 'ignore' });
      // Kill once the push is under way: after its first request, before it can finish.
      for (let i = 0; i < 400 && slow.stats().requests.total < 1; i++) await new Promise((r) => setTimeout(r, 10));
      await new Promise((r) => setTimeout(r, 200));
      child.kill('SIGKILL');
      await new Promise((r) => child.on('exit', r));

      const again = await runCli(['push', '--no-apply', '--dir', work.dir], env);
      expect(again.code).toBe(0);
      expect(await fileDigests(slow.volume, baseRecord)).toEqual(await fileDigests(work.dir, ignoredLocally));
      const third = await runCli(['push', '--no-apply', '--json', '--dir', work.dir], env);
      expect(JSON.parse(third.stdout).requests.total).toBe(1);
    } finally {
      await slow.close();
    }
  });
});

describe('a truncated files.index', () => {
  it('is completed directory by directory, never taken as the whole tree', async () => {
    const small = await startEmulator({ indexMaxEntries: 40 });
    try {
      const files: Record<string, string> = {};
      for (let i = 0; i < 30; i++) files[`root${i}.txt`] = `r${i}\n`;
      for (let d = 0; d < 6; d++) for (let i = 0; i < 25; i++) files[`dir${d}/sub/f${i}.txt`] = `${d}/${i}\n`;
      await writeTree(work.dir, files);
      // The files are already on the deployment: a first push must adopt all 180, which
      // it can only do if it sees all of them (a truncated read would plan 140+ writes).
      await writeTree(small.volume, files);
      const env = { HOSTSYNC_API_KEY: small.apiKey, HOSTSYNC_BASE_URL: small.baseUrl, HOSTSYNC_DEPLOYMENT: small.deploymentId };
      const res = await runCli(['push', '--no-apply', '--json', '--dir', work.dir], env);
      const out = JSON.parse(res.stdout);
      expect(res.code).toBe(0);
      expect(out.changes).toEqual({ written: 0, deleted: 0, moved: 0, chmod: 0 });
      expect(out.requests.byOperation['files.index']).toBeGreaterThan(1);
      // Remove one deep file remotely: the completed read must notice it as drift.
      await rm(path.join(small.volume, 'dir5/sub/f24.txt'));
      const status = await runCli(['status', '--json', '--dir', work.dir], env);
      expect(JSON.parse(status.stdout).drift).toEqual([{ path: 'dir5/sub/f24.txt', kind: 'deleted' }]);
    } finally {
      await small.close();
    }
  });
});
