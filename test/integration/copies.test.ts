/**
 * Issue 43: a copy that never synced is not the author of every difference. Teammates' clones,
 * CI re-runs, shallow clones and folders without git, each made for real (git repositories
 * with explicit commit dates, cloned through file://), pushing with the CLI.
 */
import { readFile, unlink, writeFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import type { RunningEmulator } from '../../src/emulator/index.js';
import { emulatorPerFile } from '../helpers/emulator.js';
import { runDir, writeTree } from '../helpers/tree.js';
import { runCli } from '../helpers/cli.js';
import { envFor } from '../helpers/push.js';
import { clone, commit, git, repo } from '../helpers/git.js';
import { startWatch } from '../../src/watch/daemon.js';
import { Recorder, watchSession } from '../watch/harness.js';

const { current } = emulatorPerFile();
let emu: RunningEmulator;
beforeEach(() => {
  emu = current();
});

const D1 = '2026-11-01T10:00:00Z';
const D2 = '2026-11-02T10:00:00Z';
const D3 = '2026-11-03T10:00:00Z';
const PROJECT = { 'app.js': 'console.log(1)\n', 'lib/util.js': 'export const u = 1\n', 'package.json': '{"name":"bot"}\n' };

interface Out {
  ok: boolean;
  exitCode?: number;
  error?: string;
  changes: { written: number; deleted: number };
  conflicts: Array<{ path: string; reason: string }>;
  position: { state: string; commit: string | null; against: { commit: string | null; host: string } | null } | null;
}

async function hs(dir: string, args: string[], env: Record<string, string> = {}): Promise<{ code: number; out: Out; stderr: string; stdout: string }> {
  const r = await runCli([...args, '--json', '--dir', dir], { ...envFor(emu), CI: 'true', ...env });
  let out: Out;
  try {
    out = JSON.parse(r.stdout) as Out;
  } catch {
    throw new Error(`not JSON (exit ${r.code}): ${r.stdout}\n${r.stderr}`);
  }
  return { code: r.code, out, stderr: r.stderr, stdout: r.stdout };
}
const push = (dir: string, env?: Record<string, string>) => hs(dir, ['push', '--no-apply'], env);
const status = (dir: string, env?: Record<string, string>) => hs(dir, ['status'], env);
const onDeployment = (rel: string): Promise<string> => readFile(path.join(emu.volume, rel), 'utf8');

describe('a teammate who is behind never reverts a newer push', () => {
  it('Bob cloned C1, Alice pushed C2: Bob is refused (exit 3, naming C2), the deployment keeps C2', async () => {
    const alice = await repo('alice', PROJECT, D1);
    expect((await push(alice.dir)).code).toBe(0);
    const bob = clone(alice.dir, 'bob');
    const looked = await status(bob);
    expect(looked.code, looked.stdout).toBe(0);
    expect(looked.out.position?.state).toBe('same');
    const c2 = await commit(alice.dir, { 'app.js': 'console.log(2)\n', 'alice.txt': 'hi\n' }, 'C2', D2);
    expect((await push(alice.dir)).code).toBe(0);

    const r = await push(bob);
    expect(r.code, r.stdout).toBe(3);
    expect(r.out.error).toContain('behind');
    expect(r.out.error).toContain(c2.slice(0, 12));
    expect(r.out.error).toContain('git pull');
    expect(r.out.position).toMatchObject({ state: 'behind', against: { commit: c2 } });
    expect(r.out.changes).toMatchObject({ written: 0, deleted: 0 });
    expect(await onDeployment('app.js')).toBe('console.log(2)\n');
    expect(await onDeployment('alice.txt')).toBe('hi\n');
    // status says it too, and exits 3 as a dry run of a refused push does.
    const s = await status(bob);
    expect(s.code).toBe(3);
    expect(s.out.position?.state).toBe('behind');

    // After git pull, Bob is at C2: nothing to push, nothing reverted.
    git(bob, ['pull', '-q', '--ff-only']);
    const after = await push(bob);
    expect(after.code, after.stdout).toBe(0);
    expect(after.out.changes).toMatchObject({ written: 0, deleted: 0 });
  });

  it('a watch started in a clone that is behind says so (refused), and sends nothing', async () => {
    const alice = await repo('alice', PROJECT, D1);
    await push(alice.dir);
    const bob = clone(alice.dir, 'bob');
    await commit(alice.dir, { 'app.js': 'console.log(2)\n' }, 'C2', D2);
    await push(alice.dir);
    const session = await watchSession(emu, bob, emu.deploymentId);
    const rec = new Recorder();
    const daemon = await startWatch(session, { noApply: true, onEvent: rec.onEvent });
    try {
      const refused = (await rec.waitFor((e) => e.type === 'refused')) as { message: string };
      expect(refused.message).toContain('behind');
    } finally {
      await daemon.stop();
      await session.close();
    }
    expect(await onDeployment('app.js')).toBe('console.log(2)\n');
  });

  it('push --force deploys the older commit on purpose', async () => {
    const alice = await repo('alice', PROJECT, D1);
    await push(alice.dir);
    const bob = clone(alice.dir, 'bob');
    await commit(alice.dir, { 'app.js': 'console.log(2)\n' }, 'C2', D2);
    await push(alice.dir);
    const r = await hs(bob, ['push', '--no-apply', '--force']);
    expect(r.code, r.stdout).toBe(0);
    expect(await onDeployment('app.js')).toBe('console.log(1)\n');
  });

  it('a diverged copy (a branch from C1 while C2 was deployed) is refused', async () => {
    const alice = await repo('alice', PROJECT, D1);
    const bob = clone(alice.dir, 'bob');
    await commit(alice.dir, { 'app.js': 'console.log(2)\n' }, 'C2', D2);
    await push(alice.dir);
    git(bob, ['fetch', '-q']);
    await commit(bob, { 'lib/util.js': 'export const u = 3\n' }, 'B1', D3);
    const r = await push(bob);
    expect(r.code, r.stdout).toBe(3);
    expect(r.out.position?.state).toBe('diverged');
    expect(await onDeployment('lib/util.js')).toBe('export const u = 1\n');
  });
});

describe('a push made with uncommitted changes', () => {
  it("is not reverted by a clone of the same commit: Alice's uncommitted edit is a conflict for Bob, Bob's own edit goes", async () => {
    const alice = await repo('alice', PROJECT, D1);
    await writeFile(path.join(alice.dir, 'app.js'), 'console.log("uncommitted")\n');
    const pushed = await push(alice.dir);
    expect(pushed.code, pushed.stdout).toBe(0);
    const bob = clone(alice.dir, 'bob');
    await writeFile(path.join(bob, 'lib/util.js'), 'export const u = "bob"\n');
    const r = await push(bob);
    expect(r.out.position).toMatchObject({ state: 'same', against: { clean: false } });
    expect(r.code, r.stdout).toBe(3);
    expect(r.out.conflicts.map((c) => c.path)).toEqual(['app.js']);
    expect(r.out.changes.written).toBe(1);
    expect(await onDeployment('app.js')).toBe('console.log("uncommitted")\n');
    expect(await onDeployment('lib/util.js')).toBe('export const u = "bob"\n');
  });
});

describe('CI', () => {
  it('a shallow clone of a newer commit deploys it, deleting what git no longer tracks', async () => {
    const dev = await repo('dev', { ...PROJECT, 'old.js': 'x\n' }, D1);
    await push(dev.dir);
    await commit(dev.dir, { 'app.js': 'console.log(2)\n', 'old.js': null }, 'C2', D2);
    const ci = clone(dev.dir, 'ci', { depth: 1 });
    const r = await push(ci);
    expect(r.code, r.stdout).toBe(0);
    expect(r.out.position).toMatchObject({ state: 'ahead' });
    expect(r.out.changes).toMatchObject({ written: 1, deleted: 1 });
    expect(existsSync(path.join(emu.volume, 'old.js'))).toBe(false);
  });

  it('a re-run of an older commit (a full clone checked out at C1, a shallow clone of C1) never reverts a newer deploy', async () => {
    const dev = await repo('dev', PROJECT, D1);
    git(dev.dir, ['tag', 'v1']);
    await push(clone(dev.dir, 'ci1', { depth: 1 }));
    await commit(dev.dir, { 'app.js': 'console.log(2)\n', 'new.js': 'n\n' }, 'C2', D2);
    expect((await push(clone(dev.dir, 'ci2', { depth: 1 }))).code).toBe(0);
    for (const rerun of [clone(dev.dir, 'rerun-full', { ref: 'v1' }), clone(dev.dir, 'rerun-shallow', { depth: 1, branch: 'v1' })]) {
      const r = await push(rerun);
      expect(r.code, r.stdout).toBe(3);
      expect(r.out.position?.state).toBe('behind');
      expect(await onDeployment('app.js')).toBe('console.log(2)\n');
      expect(await onDeployment('new.js')).toBe('n\n');
    }
  });

  it('a shallow clone of an older commit that is not among the last push\'s recorded ancestors is refused (unknown), not pushed', async () => {
    const dev = await repo('dev', PROJECT, D1);
    git(dev.dir, ['tag', 'v1']);
    // More commits than a batch records as ancestors.
    for (let i = 0; i < 40; i++) await commit(dev.dir, { 'lib/n.txt': `${i}\n` }, `c${i}`, `2026-11-02T10:${String(i).padStart(2, '0')}:00Z`);
    await push(dev.dir);
    const r = await push(clone(dev.dir, 'old', { depth: 1, branch: 'v1' }));
    expect(r.code, r.stdout).toBe(3);
    expect(r.out.position?.state).toBe('unknown');
    expect(await onDeployment('lib/n.txt')).toBe('39\n');
  });

  it('a CI push never deletes what git never had: a secret sent with sendSecrets, a pulled data file', async () => {
    const dev = await repo('dev', { ...PROJECT, 'hostsync.json': '{"sendSecrets": [".env.production"]}\n', '.gitignore': '.hostsync/\n.env.production\ndata.json\n' }, D1);
    await writeFile(path.join(dev.dir, '.env.production'), 'TOKEN=secret\n');
    expect((await push(dev.dir)).code).toBe(0);
    expect(await onDeployment('.env.production')).toBe('TOKEN=secret\n');
    // The app writes data; the laptop pulls it (not committed), then pushes an edit.
    await writeFile(path.join(emu.volume, 'data.json'), '{"users":1}\n');
    expect((await hs(dev.dir, ['pull'])).code).toBe(0);
    await commit(dev.dir, { 'app.js': 'console.log(2)\n' }, 'C2', D2);
    expect((await push(dev.dir)).code).toBe(0);

    const ci = clone(dev.dir, 'ci', { depth: 1 });
    await commit(ci, { 'lib/util.js': 'export const u = 2\n' }, 'C3', D3);
    const r = await push(ci);
    expect(r.code, r.stdout).toBe(0);
    expect(r.out.changes).toMatchObject({ written: 1, deleted: 0 });
    expect(await onDeployment('.env.production')).toBe('TOKEN=secret\n');
    expect(await onDeployment('data.json')).toBe('{"users":1}\n');
  });
});

describe('names this file system cannot hold are never deleted by a push', () => {
  it('case-insensitive: a copy holding a.js leaves the deployment\'s A.js; windows: con.js, wh?.txt, trail.', async () => {
    const linux = await repo('linux', { ...PROJECT, 'a.js': 'lower\n', 'A.js': 'upper\n', 'con.js': 'c\n', 'wh?.txt': 'q\n', 'trail.': 't\n' }, D1);
    expect((await push(linux.dir)).code).toBe(0);
    for (const [fs, gone] of [
      ['case-insensitive', ['A.js']],
      ['windows', ['A.js', 'con.js', 'wh?.txt', 'trail.']],
    ] as const) {
      const copy = clone(linux.dir, `copy-${fs}`);
      // What a checkout on that file system holds: one of the two cases, none of the Windows names.
      for (const g of gone) await unlink(path.join(copy, g));
      const r = await push(copy, { HOSTSYNC_FS: fs });
      expect(r.code, r.stdout).toBe(0);
      expect(r.out.changes.deleted).toBe(0);
      for (const g of gone) expect(existsSync(path.join(emu.volume, g)), `${fs}: ${g}`).toBe(true);
    }
  });
});

describe('a batch is not pending forever', () => {
  it('push v1, push v2, v1 put back by hand: a fresh clone holding v2 reports a conflict, never writes v2 again', async () => {
    const dev = await repo('dev', PROJECT, D1);
    await push(dev.dir);
    await commit(dev.dir, { 'app.js': 'console.log(2)\n' }, 'C2', D2);
    await push(dev.dir);
    await writeFile(path.join(emu.volume, 'app.js'), 'console.log(1)\n');
    const ci = clone(dev.dir, 'ci', { depth: 1 });
    const r = await push(ci);
    expect(r.code, r.stdout).toBe(3);
    expect(r.out.conflicts.map((c) => c.path)).toEqual(['app.js']);
    expect(await onDeployment('app.js')).toBe('console.log(1)\n');
  });
});

describe('a copy without git', () => {
  /** A copy of a folder as a zip download or `cp -r` makes it: no git, no .hostsync/. */
  async function plainCopy(from: string): Promise<string> {
    const to = runDir('plain-');
    const files: Record<string, string> = {};
    for (const rel of ['app.js', 'lib/util.js', 'package.json']) files[rel] = await readFile(path.join(from, rel), 'utf8');
    await writeTree(to, files);
    return to;
  }

  it('its first contact (a status) adopts the record: a later push from elsewhere is left alone, its own edit is pushed', async () => {
    const dev = await repo('dev', PROJECT, D1);
    await push(dev.dir);
    const copy = await plainCopy(dev.dir);
    const s = await status(copy);
    expect(s.code, s.stdout).toBe(0);
    expect(s.out.position).toMatchObject({ state: 'unknown', commit: null });
    await commit(dev.dir, { 'app.js': 'console.log(2)\n' }, 'C2', D2);
    await push(dev.dir);
    await writeFile(path.join(copy, 'lib/util.js'), 'export const u = 9\n');
    const r = await push(copy);
    expect(r.code, r.stdout).toBe(0);
    expect(r.out.changes).toMatchObject({ written: 1, deleted: 0 });
    expect(await onDeployment('app.js')).toBe('console.log(2)\n');
    expect(await onDeployment('lib/util.js')).toBe('export const u = 9\n');
  });

  it('a folder that never had contact and differs from what another machine pushed: conflicts, never silent writes or deletions', async () => {
    const dev = await repo('dev', PROJECT, D1);
    await push(dev.dir);
    const copy = await plainCopy(dev.dir);
    await writeFile(path.join(copy, 'app.js'), 'console.log("old")\n');
    await unlink(path.join(copy, 'lib/util.js'));
    const r = await push(copy);
    expect(r.code, r.stdout).toBe(3);
    expect(r.out.conflicts).toEqual([{ path: 'app.js', reason: 'first-push-differs' }]);
    expect(r.out.changes).toMatchObject({ written: 0, deleted: 0 });
    expect(await onDeployment('app.js')).toBe('console.log(1)\n');
    expect(await onDeployment('lib/util.js')).toBe('export const u = 1\n');
  });
});
