/**
 * What a pull never does (issue 28, items 1, 2, 3, 11 and the file-to-folder and
 * resolve-on-a-link items): write outside the root, write through a local symlink,
 * overwrite an edit made while it runs, leave (or push) its own temp files.
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { lstat, mkdir, readdir, readFile, rm, symlink, utimes, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startEmulator, type RunningEmulator } from '../../src/emulator/index.js';
import { runDir, tempDir, writeTree } from '../helpers/tree.js';
import { CLI, runCli, TEST_CONFIG_HOME } from '../helpers/cli.js';
import { envFor } from '../helpers/push.js';
import { push } from '../../src/app/push.js';
import { pull } from '../../src/app/pull.js';
import { resolve } from '../../src/app/resolve.js';
import { status } from '../../src/app/status.js';
import { EXIT } from '../../src/errors.js';
import { startFakeService, WELL_FORMED, type FakeService } from '../remote/fake-service.js';
import { testKey } from '../helpers/keys.js';

let work: { dir: string; cleanup: () => Promise<void> };
/** The client's cache folder (its request ledger): the test run's own, which goes when the run ends. */
let cacheDir: string;
/** The project root, one folder down, so "outside the root" is still inside the test's temp dir. */
let root: string;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

beforeEach(async () => {
  work = await tempDir('hostsync-pull-safety-');
  cacheDir = runDir('cache-');
  root = path.join(work.dir, 'proj');
  await mkdir(root);
});
afterEach(async () => {
  await work.cleanup();
});

/** Every file under `dir`, relative, sorted (no state folder). */
async function filesUnder(dir: string): Promise<string[]> {
  const out: string[] = [];
  const walk = async (abs: string, rel: string): Promise<void> => {
    for (const d of await readdir(abs, { withFileTypes: true })) {
      const r = rel ? `${rel}/${d.name}` : d.name;
      if (d.name === '.hostsync') continue;
      if (d.isDirectory()) await walk(path.join(abs, d.name), r);
      else out.push(r);
    }
  };
  await walk(dir, '');
  return out.sort();
}

describe('a service answering paths that leave the root (item 1)', () => {
  let service: FakeService | undefined;
  afterEach(async () => {
    await service?.close();
    service = undefined;
  });
  const env = (s: FakeService) => ({
    HOSTSYNC_API_KEY: testKey('pull-safety'),
    HOSTSYNC_BASE_URL: s.baseUrl,
    HOSTSYNC_DEPLOYMENT: 'dep-1',
    HOSTSYNC_CACHE_DIR: cacheDir,
  });
  const entry = (p: string) => ({ path: p, type: 'file', sizeBytes: 7, modifiedAt: '2026-01-01T00:00:00Z', mode: '0644', hash: null });
  /** A server whose index lists `paths` and whose read-many answers PWNED for whatever is asked (or for `readManyPath`). */
  const evil = (paths: string[], readManyPath?: string) =>
    startFakeService((r) => {
      if (r.path.endsWith('/files/index')) return { json: { unchanged: false, digest: 'd', truncated: false, entries: paths.map(entry) } };
      if (r.path.endsWith('/files/read-many')) {
        const asked = (r.body as { paths: string[] }).paths;
        return { json: { truncated: false, files: asked.map((p) => ({ path: readManyPath ?? p, content: 'PWNED\n', bytes: 6, skipped: null })) } };
      }
      return { json: WELL_FORMED };
    });

  for (const bad of [['../victim.txt'], ['sub/../../x'], ['ok.txt', '/../victim.txt'], ['..\\victim.txt'], ['a\u0000b']]) {
    it(`pull refuses an index listing ${JSON.stringify(bad)}: one line, non-zero exit, nothing written anywhere`, async () => {
      service = await evil(bad);
      const r = await runCli(['pull', '--dir', root], env(service));
      expect(r.code).toBe(EXIT.failed);
      const bad1 = bad.find((p) => p !== 'ok.txt')!;
      expect(r.stderr).toContain(`unexpected answer from the service to files.index: an unsafe path ${JSON.stringify(bad1)}`);
      expect(r.stdout).not.toContain('↓');
      // Nothing beside the project, nothing in it, no read of content was even asked.
      expect(await filesUnder(work.dir)).toEqual([]);
      expect(service.seen.filter((s) => s.path.endsWith('/files/read-many'))).toEqual([]);
    });
  }

  it('a read-many answer naming a bad path is refused whole too', async () => {
    service = await evil(['ok.txt'], '../victim.txt');
    const r = await runCli(['pull', '--json', '--dir', root], env(service));
    expect(r.code).toBe(EXIT.failed);
    expect(JSON.parse(r.stdout).error).toMatch(/^unexpected answer from the service to files\.readMany: an unsafe path "\.\.\/victim\.txt" \(a "\.\." segment\)/);
    expect(await filesUnder(work.dir)).toEqual([]);
  });
});

describe('against the emulator', () => {
  let emu: RunningEmulator;
  const env = () => envFor(emu);
  const cli = (...args: string[]) => runCli([...args, '--dir', root], env());
  const base = () => ({ dir: root, env: env(), cwd: root });
  const vol = (rel: string) => path.join(emu.volume, rel);

  beforeAll(async () => {
    emu = await startEmulator({});
  });
  afterAll(async () => {
    await emu?.close();
  });
  beforeEach(async () => {
    emu.setLatency(0);
    for (const name of await readdir(emu.volume)) await rm(path.join(emu.volume, name), { recursive: true, force: true });
  });

  describe('a local symlink to a folder outside the root (item 2)', () => {
    beforeEach(async () => {
      await writeTree(root, { 'app.js': 'app\n' });
      expect((await push({ dir: root, env: env(), apply: false })).exitCode ?? 0).toBe(0);
      await mkdir(path.join(work.dir, 'outside'));
      await writeFile(path.join(work.dir, 'outside', 'x.txt'), 'mine, outside\n');
      await symlink('../outside', path.join(root, 'lib'));
      await mkdir(vol('lib'));
      await writeFile(vol('lib/x.txt'), 'remote\n');
    });

    it('a named pull of a path below it writes nothing through it, and says why', async () => {
      const r = await cli('pull', 'lib/x.txt');
      expect(await readFile(path.join(work.dir, 'outside', 'x.txt'), 'utf8')).toBe('mine, outside\n');
      expect(r.stdout + r.stderr).toContain('symlink skipped (links are not followed): lib -> ../outside');
      expect(r.stdout).not.toContain('↓');
      // The whole-tree pull agrees (it always skipped the link).
      await cli('pull');
      expect(await readFile(path.join(work.dir, 'outside', 'x.txt'), 'utf8')).toBe('mine, outside\n');
    });

    it('resolve --theirs on it writes nothing through it, and names the link instead of "already match"', async () => {
      const r = await cli('resolve', 'lib/x.txt', '--theirs');
      expect(await readFile(path.join(work.dir, 'outside', 'x.txt'), 'utf8')).toBe('mine, outside\n');
      expect(r.code).toBe(EXIT.refused);
      expect(r.stdout).not.toContain('already match');
      expect(r.stdout + r.stderr).toContain('lib is a symlink here (-> ../outside); hostsync never writes through links');
    });
  });

  it('resolve --theirs on a local file that is a symlink names the link, never "already match the deployment" (wording)', async () => {
    await writeTree(root, { 'target.txt': 't\n', 'f.txt': 'f\n' });
    expect((await push({ dir: root, env: env(), apply: false })).exitCode ?? 0).toBe(0);
    await rm(path.join(root, 'f.txt'));
    await symlink('target.txt', path.join(root, 'f.txt'));
    await writeFile(vol('f.txt'), 'remote f\n');
    const r = await cli('resolve', 'f.txt', '--theirs');
    expect(r.code).toBe(EXIT.refused);
    expect(r.stdout).not.toContain('already match');
    expect(r.stdout).toContain('Not settled: f.txt: f.txt is a symlink here (-> target.txt); hostsync never writes through links');
    expect(await readFile(path.join(root, 'target.txt'), 'utf8')).toBe('t\n');
    expect((await lstat(path.join(root, 'f.txt'))).isSymbolicLink()).toBe(true);
  });

  describe('a local edit made while pull runs (item 3)', () => {
    it('is kept and reported as a conflict (text through read-many, binary through a download); the rest lands', async () => {
      const bin = (tag: string) => Buffer.concat([Buffer.from([0, 1, 2, 0]), Buffer.from(tag), randomBytes(64)]);
      await writeTree(root, { 'f1.txt': 'one\n', 'f2.txt': 'two\n', 'b.bin': bin('orig') });
      expect((await push({ dir: root, env: env(), apply: false })).exitCode ?? 0).toBe(0);
      await writeFile(vol('f1.txt'), 'remote one\n');
      await writeFile(vol('f2.txt'), 'remote two\n');
      await writeFile(vol('b.bin'), bin('remote'));
      const mine = bin('mine');

      emu.setLatency(1000);
      const before = emu.stats().requests.byOperation['files.readMany'] ?? 0;
      const running = pull(base());
      // The pull has scanned, read the index, and its read-many is held by the latency: edit now.
      while ((emu.stats().requests.byOperation['files.readMany'] ?? 0) === before) await sleep(5);
      await writeFile(path.join(root, 'f1.txt'), 'MY EDIT\n');
      await writeFile(path.join(root, 'b.bin'), mine);
      const r = await running;
      emu.setLatency(0);

      expect(r.exitCode).toBe(EXIT.refused);
      expect(r.conflicts.map((c) => c.path)).toEqual(['b.bin', 'f1.txt']);
      expect(r.fetched).toEqual(['f2.txt']);
      expect(await readFile(path.join(root, 'f1.txt'), 'utf8')).toBe('MY EDIT\n');
      expect(await readFile(path.join(root, 'b.bin'))).toEqual(mine);
      expect(await readFile(path.join(root, 'f2.txt'), 'utf8')).toBe('remote two\n');
      // No temp file left beside them.
      expect(await filesUnder(root)).toEqual(['b.bin', 'f1.txt', 'f2.txt']);
      // The next pull sees the same conflicts (the base was kept for them), and overwrites nothing.
      const again = await pull(base());
      expect(again.conflicts.map((c) => c.path)).toEqual(['b.bin', 'f1.txt']);
      expect(await readFile(path.join(root, 'f1.txt'), 'utf8')).toBe('MY EDIT\n');
    });

    it('a file the remote deleted is not removed when it was edited meanwhile', async () => {
      await writeTree(root, { 'gone.txt': 'g\n', 'other.txt': 'o\n' });
      expect((await push({ dir: root, env: env(), apply: false })).exitCode ?? 0).toBe(0);
      await rm(vol('gone.txt'));
      await writeFile(vol('other.txt'), 'remote o\n');
      emu.setLatency(1000);
      const before = emu.stats().requests.byOperation['files.index'] ?? 0;
      const running = pull(base());
      // The index read is held by the latency: the scan is done, edit now.
      while ((emu.stats().requests.byOperation['files.index'] ?? 0) === before) await sleep(5);
      await writeFile(path.join(root, 'gone.txt'), 'EDITED\n');
      const r = await running;
      emu.setLatency(0);
      expect(r.exitCode).toBe(EXIT.refused);
      expect(r.removed).toEqual([]);
      expect(r.conflicts).toEqual([{ path: 'gone.txt', reason: 'modify-delete' }]);
      expect(await readFile(path.join(root, 'gone.txt'), 'utf8')).toBe('EDITED\n');
    });
  });

  it('a remote file turned into a folder converges in one pull; an edited local file makes it a conflict instead (low)', async () => {
    await writeTree(root, { 'a': 'file a\n', 'b': 'file b\n' });
    expect((await push({ dir: root, env: env(), apply: false })).exitCode ?? 0).toBe(0);
    for (const n of ['a', 'b']) {
      await rm(vol(n));
      await mkdir(vol(n));
      await writeFile(vol(`${n}/x.txt`), `${n} is a folder now\n`);
    }
    await writeFile(path.join(root, 'b'), 'my edit of b\n');
    const r = await pull(base());
    expect(r.failures).toEqual([]);
    expect(r.removed).toEqual(['a']);
    expect(r.fetched).toEqual(['a/x.txt']);
    expect(await readFile(path.join(root, 'a/x.txt'), 'utf8')).toBe('a is a folder now\n');
    expect(r.exitCode).toBe(EXIT.refused);
    expect(r.conflicts).toEqual([
      { path: 'b', reason: 'modify-delete' },
      { path: 'b/x.txt', reason: 'file-folder' },
    ]);
    expect(await readFile(path.join(root, 'b'), 'utf8')).toBe('my edit of b\n');
  });

  describe("a pull killed mid-download (item 11)", () => {
    it('leaves temp files that status and push never list or send, and the next pull removes', async () => {
      await writeTree(root, { 'app.js': 'app\n' });
      expect((await push({ dir: root, env: env(), apply: false })).exitCode ?? 0).toBe(0);
      await writeFile(vol('big.bin'), Buffer.concat([Buffer.from([0, 0]), randomBytes(256 * 1024)]));
      emu.setLatency(1500);
      const child = spawn(process.execPath, [CLI, 'pull', '--dir', root], {
        env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', NO_COLOR: '1', XDG_CONFIG_HOME: TEST_CONFIG_HOME, ...env() },
        stdio: 'ignore',
      });
      const exited = new Promise((r) => child.on('exit', r));
      const temps = async () => (await filesUnder(root)).filter((f) => f.includes('.hostsync-'));
      // The download's part file exists while its GET is held by the latency: kill -9 then.
      while ((await temps()).length === 0) await sleep(10);
      child.kill('SIGKILL');
      await exited;
      emu.setLatency(0);
      const left = await temps();
      expect(left).toHaveLength(1);
      expect(left[0]).toMatch(/^\.big\.bin\.hostsync-[0-9a-f]{8}\.tmp\.hostsync-[0-9a-f]{8}\.part$/);

      // Never listed, never sent.
      const s = await status(base());
      expect(JSON.stringify(s)).not.toContain('.hostsync-');
      const dry = await push({ dir: root, env: env(), apply: false, dryRun: true });
      expect(JSON.stringify(dry.planned)).not.toContain('.hostsync-');

      // A look-alike of the user's, and one of ours made after the next pull starts (faked
      // by a future mtime: a pull running now could have made it), both stay.
      await writeFile(path.join(root, 'notes.hostsync-1234.part'), 'mine\n');
      const young = path.join(root, '.app.js.hostsync-00000000.tmp');
      await writeFile(young, 'in use\n');
      const future = new Date(Date.now() + 3_600_000);
      await utimes(young, future, future);

      const r = await pull(base());
      expect(r.exitCode ?? 0).toBe(0);
      expect(r.fetched).toEqual(['big.bin']);
      expect(await filesUnder(root)).toEqual(['.app.js.hostsync-00000000.tmp', 'app.js', 'big.bin', 'notes.hostsync-1234.part']);
      const p = await push({ dir: root, env: env(), apply: false });
      expect(p.exitCode ?? 0).toBe(0);
      expect((await filesUnder(emu.volume)).filter((f) => f.includes('.hostsync-') && !f.startsWith('.hostsync-upload'))).toEqual(['notes.hostsync-1234.part']);
    });

    it('push removes them too, under its lock', async () => {
      await writeTree(root, { 'app.js': 'app\n', 'sub/.x.txt.hostsync-abcdef01.tmp': 'half\n', 'sub/y.bin.hostsync-abcdef01.part': 'half\n' });
      // Left by a process killed a minute ago: a temp is removed only when it is older than
      // every live lock, and a file written the same instant the push takes its lock can
      // carry the same coarse file-system timestamp (seen on an idle machine).
      const killedAt = new Date(Date.now() - 60_000);
      for (const t of ['sub/.x.txt.hostsync-abcdef01.tmp', 'sub/y.bin.hostsync-abcdef01.part']) await utimes(path.join(root, t), killedAt, killedAt);
      const p = await push({ dir: root, env: env(), apply: false });
      expect(p.error ?? '').toBe('');
      expect(p.exitCode ?? 0).toBe(0);
      expect(await filesUnder(root)).toEqual(['app.js']);
      expect(await filesUnder(emu.volume)).toEqual(['app.js']);
    });
  });
});
