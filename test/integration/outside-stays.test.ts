/**
 * What comes from outside stays in its place (issue 44): a setting, a stray folder, an id
 * or an answer the user did not write cannot move the project, the synced folder or the
 * API path elsewhere. Each test is the repro.
 */
import { access, mkdir, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startEmulator, type RunningEmulator } from '../../src/emulator/index.js';
import { runCli } from '../helpers/cli.js';
import { startRewriteProxy } from '../helpers/rewrite-proxy.js';
import { envFor } from '../helpers/push.js';
import { tempDir, writeTree } from '../helpers/tree.js';

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0)) await c();
});

async function setup(opts: Parameters<typeof startEmulator>[0] = {}): Promise<{ emu: RunningEmulator; dir: string }> {
  const emu = await startEmulator(opts);
  const work = await tempDir('hostsync-outside-');
  cleanups.push(() => emu.close(), work.cleanup);
  return { emu, dir: work.dir };
}

const exists = (p: string): Promise<boolean> => access(p).then(() => true, () => false);
const changedPaths = (stdout: string): string[] => (JSON.parse(stdout).changes as Array<{ path: string }>).map((c) => c.path).sort();

describe('the project root (item 7)', () => {
  it('a stray .hostsync/ in a parent folder does not make that folder the project', async () => {
    const t = await setup();
    const home = path.join(t.dir, 'h');
    await mkdir(path.join(home, '.hostsync'), { recursive: true });
    await writeTree(home, { 'Documents/tax.pdf': 'private\n', 'newproj/app.js': 'console.log(1);\n' });
    const r = await runCli(['status', '--json'], envFor(t.emu), { cwd: path.join(home, 'newproj') });
    expect(r.code, r.stderr).toBe(0);
    expect(changedPaths(r.stdout)).toEqual(['app.js']);
  });

  it('a .hostsync/ holding a deployment\'s state still marks a project run on the environment alone', async () => {
    const t = await setup();
    await writeTree(t.dir, { 'app.js': 'console.log(1);\n', 'src/util.js': 'module.exports = 1;\n' });
    expect((await runCli(['push', '--no-apply'], envFor(t.emu), { cwd: t.dir })).code).toBe(0);
    const r = await runCli(['status', '--json'], envFor(t.emu), { cwd: path.join(t.dir, 'src') });
    expect(r.code, r.stderr).toBe(0);
    expect(changedPaths(r.stdout)).toEqual([]);
    expect(await exists(path.join(t.dir, 'src', '.hostsync'))).toBe(false);
  });
});

describe('"dir" that leads out of the project (item 2)', () => {
  /** The layout: project/linkdir -> ../outside, "dir": "linkdir"; the deployment holds s.txt and newfile.txt. */
  async function linkedOut() {
    const t = await setup();
    const project = path.join(t.dir, 'project');
    const outside = path.join(t.dir, 'outside');
    await writeTree(outside, { 's.txt': 'mine, outside the project\n' });
    await writeTree(project, { 'app.js': 'console.log(1);\n' });
    await symlink('../outside', path.join(project, 'linkdir'));
    await writeFile(path.join(project, 'hostsync.json'), JSON.stringify({ dir: 'linkdir' }));
    await writeTree(t.emu.volume, { 's.txt': 'from the deployment\n', 'newfile.txt': 'new\n' });
    return { ...t, project, outside };
  }

  it('push refuses with exit 2 and sends nothing of the folder outside', async () => {
    const t = await linkedOut();
    const r = await runCli(['push', '--no-apply'], envFor(t.emu), { cwd: t.project });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/"dir" of hostsync\.json names "linkdir", which leads outside the project .*: point "dir" at a folder inside the project/);
    expect(await readFile(path.join(t.emu.volume, 's.txt'), 'utf8')).toBe('from the deployment\n');
  });

  it('pull refuses with exit 2 and writes nothing into the folder outside', async () => {
    const t = await linkedOut();
    const r = await runCli(['pull'], envFor(t.emu), { cwd: t.project });
    expect(r.code).toBe(2);
    expect(await readFile(path.join(t.outside, 's.txt'), 'utf8')).toBe('mine, outside the project\n');
    expect(await exists(path.join(t.outside, 'newfile.txt'))).toBe(false);
  });

  it('a build that makes "dir" a link out of the project is refused after it ran, before anything is sent', async () => {
    const t = await setup();
    const project = path.join(t.dir, 'project');
    await writeTree(path.join(t.dir, 'outside'), { 'secret.txt': 'not for the deployment\n' });
    await writeTree(project, { 'build.js': "require('node:fs').symlinkSync('../outside', 'dist');\n" });
    await writeFile(path.join(project, 'hostsync.json'), JSON.stringify({ dir: 'dist', build: 'node build.js' }));
    const r = await runCli(['push', '--no-apply'], envFor(t.emu), { cwd: project });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/leads outside the project/);
    expect(await exists(path.join(t.emu.volume, 'secret.txt'))).toBe(false);
  });

  it('a "dir" that is a link to a folder inside the project is synced', async () => {
    const t = await setup();
    const project = path.join(t.dir, 'project');
    await writeTree(project, { 'build/out/index.html': '<title>x</title>\n' });
    await symlink('build/out', path.join(project, 'site'));
    await writeFile(path.join(project, 'hostsync.json'), JSON.stringify({ dir: 'site' }));
    const r = await runCli(['push', '--no-apply'], envFor(t.emu), { cwd: project });
    expect(r.code, r.stderr).toBe(0);
    expect(await readFile(path.join(t.emu.volume, 'index.html'), 'utf8')).toBe('<title>x</title>\n');
  });
});

describe('deployment ids (item 9)', () => {
  const bad = ['..', '.', 'a/../b'];

  it.each(bad)('--deployment %j is refused with exit 2 before any request', async (id) => {
    const t = await setup();
    await writeTree(t.dir, { 'app.js': 'console.log(1);\n' });
    const r = await runCli(['push', '--no-apply', '--deployment', id], envFor(t.emu), { cwd: t.dir });
    expect(r.code).toBe(2);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toMatch(new RegExp(`--deployment ${JSON.stringify(id).replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')} is not a deployment id .*: .*hostsync link`));
    expect(t.emu.stats().requests.total).toBe(0);
    expect(await exists(path.join(t.emu.volume, 'app.js'))).toBe(false);
  });

  it('HOSTSYNC_DEPLOYMENT, hostsync.json, a target and link are checked the same way', async () => {
    const t = await setup();
    const env = { ...envFor(t.emu), HOSTSYNC_DEPLOYMENT: '..' };
    const fromEnv = await runCli(['status'], env, { cwd: t.dir });
    expect(fromEnv.code).toBe(2);
    expect(fromEnv.stderr).toMatch(/HOSTSYNC_DEPLOYMENT "\.\." is not a deployment id/);

    const keyOnly = { HOSTSYNC_API_KEY: t.emu.apiKey, HOSTSYNC_BASE_URL: t.emu.baseUrl };
    await writeFile(path.join(t.dir, 'hostsync.json'), JSON.stringify({ deployment: 'a/../b' }));
    const fromFile = await runCli(['status'], keyOnly, { cwd: t.dir });
    expect(fromFile.code).toBe(2);
    expect(fromFile.stderr).toMatch(/"deployment" "a\/\.\.\/b" is not a deployment id \(it holds "\/"\)/);

    await writeFile(path.join(t.dir, 'hostsync.json'), JSON.stringify({ targets: { prod: { deployment: '.' } } }));
    const fromTarget = await runCli(['status', '--target', 'prod'], keyOnly, { cwd: t.dir });
    expect(fromTarget.code).toBe(2);
    expect(fromTarget.stderr).toMatch(/"targets\.prod\.deployment" "\." is not a deployment id/);

    await writeFile(path.join(t.dir, 'hostsync.json'), '{}');
    const linked = await runCli(['link', '--deployment', '..', '--base-url', t.emu.baseUrl], { HOSTSYNC_API_KEY: t.emu.apiKey }, { cwd: t.dir });
    expect(linked.code).toBe(2);
    expect(linked.stderr).toMatch(/--deployment "\.\." is not a deployment id/);
    expect(t.emu.stats().requests.total).toBe(0);
  });

  it('the emulator\'s own id passes', async () => {
    const t = await setup();
    await writeTree(t.dir, { 'app.js': 'console.log(1);\n' });
    const r = await runCli(['push', '--no-apply'], envFor(t.emu), { cwd: t.dir });
    expect(r.code, r.stderr).toBe(0);
  });
});

describe('the guard against deleting every tracked file (item 14)', () => {
  it('counts hostsync\'s own files out: an app whose every file went while hostsync.json stayed is refused (exit 3)', async () => {
    const t = await setup();
    const app = { 'a.js': '1\n', 'b.js': '2\n', 'c.js': '3\n', 'lib/d.js': '4\n', 'lib/e.js': '5\n', 'package.json': '{"name":"x"}\n' };
    await writeTree(t.dir, { ...app, '.syncignore': 'tmp/\n' });
    await writeFile(path.join(t.dir, 'hostsync.json'), '{"restart": "never"}\n');
    expect((await runCli(['push', '--no-apply'], envFor(t.emu), { cwd: t.dir })).code).toBe(0);
    for (const f of Object.keys(app)) await rm(path.join(t.dir, f));
    const r = await runCli(['push', '--no-apply', '--json'], envFor(t.emu), { cwd: t.dir });
    expect(r.code).toBe(3);
    expect(JSON.parse(r.stdout).error).toMatch(/--allow-mass-delete/);
    for (const f of Object.keys(app)) expect(await exists(path.join(t.emu.volume, f)), f).toBe(true);
    const allowed = await runCli(['push', '--no-apply', '--allow-mass-delete'], envFor(t.emu), { cwd: t.dir });
    expect(allowed.code, allowed.stderr).toBe(0);
    expect(await exists(path.join(t.emu.volume, 'a.js'))).toBe(false);
  });
});

describe('a named pull below a local symlink (item 11)', () => {
  it('says the path was skipped and why, not "Up to date"', async () => {
    const t = await setup();
    const project = path.join(t.dir, 'project');
    await mkdir(path.join(t.dir, 'outside'));
    await writeTree(project, { 'app.js': '1\n' });
    await symlink('../outside', path.join(project, 'sub'));
    await writeTree(t.emu.volume, { 'app.js': '1\n', 'sub/f.txt': 'from the deployment\n' });
    const r = await runCli(['pull', 'sub/f.txt'], envFor(t.emu), { cwd: project });
    expect(r.code).toBe(3);
    expect(r.stdout).not.toMatch(/Up to date/);
    expect(r.stdout).toMatch(/Not pulled: sub\/f\.txt: sub is a symlink here \(-> \.\.\/outside\); hostsync never writes through links: replace it with a regular folder to pull sub\/f\.txt/);
    expect(r.stdout).toMatch(/Nothing pulled from .*: 1 named path left alone/);
    const j = await runCli(['pull', 'sub/f.txt', '--json'], envFor(t.emu), { cwd: project });
    expect(j.code).toBe(3);
    expect(JSON.parse(j.stdout)).toMatchObject({ error: expect.stringMatching(/^sub\/f\.txt was not pulled \(first: sub is a symlink here/), exitCode: 3 });
    expect(JSON.parse(j.stdout).leftAlone).toEqual([{ path: 'sub/f.txt', why: expect.stringMatching(/^sub is a symlink here/) }]);
    expect(await exists(path.join(t.dir, 'outside', 'f.txt'))).toBe(false);
    // A whole-tree pull keeps its warning and exit 0: nothing was named.
    const whole = await runCli(['pull'], envFor(t.emu), { cwd: project });
    expect(whole.code, whole.stderr).toBe(0);
    expect(whole.stdout).toMatch(/warning: symlink skipped \(links are not followed\): sub -> \.\.\/outside/);
  });
});

describe('index entries with a leading "/" (item 10)', () => {
  const entry = { path: '/tmp/x/abs.txt', type: 'file', sizeBytes: 4, modifiedAt: '2026-01-01T00:00:00.000Z', mode: '0644', hash: '0123456789abcdef' };

  it('one absolute path among the emulator\'s volume-relative ones refuses the whole answer: exit 1, nothing created', async () => {
    const t = await setup();
    await writeTree(t.emu.volume, { 'app.js': '1\n' });
    const proxy = await startRewriteProxy(t.emu.baseUrl, (op, body) => {
      const b = body as Record<string, unknown>;
      return op.endsWith('/files/index') ? { ...b, unchanged: false, entries: [...((b.entries as unknown[]) ?? []), entry] } : undefined;
    });
    cleanups.push(() => proxy.close());
    const env = { ...envFor(t.emu), HOSTSYNC_BASE_URL: proxy.baseUrl };
    const r = await runCli(['pull'], env, { cwd: t.dir });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/unexpected answer from the service to files\.index: an unsafe path "\/tmp\/x\/abs\.txt" \(an absolute path among volume-relative ones\): the answer was refused/);
    expect(await exists(path.join(t.dir, 'tmp'))).toBe(false);
    expect(await exists(path.join(t.dir, 'app.js'))).toBe(false);
  });

  it('answers whose paths all carry the volume root\'s "/" (/app.js) are read as volume-relative', async () => {
    const t = await setup();
    await writeTree(t.emu.volume, { 'app.js': '1\n', 'src/a.js': '2\n' });
    const proxy = await startRewriteProxy(t.emu.baseUrl, (op, body) => {
      const b = body as Record<string, unknown>;
      return op.endsWith('/files/index') ? { ...b, entries: (b.entries as Array<{ path: string }> | undefined)?.map((e) => ({ ...e, path: `/${e.path}` })) } : undefined;
    });
    cleanups.push(() => proxy.close());
    const env = { ...envFor(t.emu), HOSTSYNC_BASE_URL: proxy.baseUrl };
    const r = await runCli(['pull'], env, { cwd: t.dir });
    expect(r.code, r.stderr).toBe(0);
    expect(await readFile(path.join(t.dir, 'app.js'), 'utf8')).toBe('1\n');
    expect(await readFile(path.join(t.dir, 'src/a.js'), 'utf8')).toBe('2\n');
  });
});
