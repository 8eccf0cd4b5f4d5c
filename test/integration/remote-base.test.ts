/**
 * Issue 27: the base travels with the deployment (the base record). A fresh clone (CI, a
 * teammate), a second copy of the project and two machines at once push with git's safety.
 */
import { readdir, readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import type { RunningEmulator } from '../../src/emulator/index.js';
import { emulatorPerFile } from '../helpers/emulator.js';
import { runCli } from '../helpers/cli.js';
import { envFor, pushOnce } from '../helpers/push.js';
import { existsSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { startWatch, type WatchDaemon } from '../../src/watch/daemon.js';
import { Recorder, watchSession } from '../watch/harness.js';
import { clone, repo } from '../helpers/git.js';
import { deploymentStateDir } from '../../src/state/paths.js';

// Many pushes in a minute: the API's rate limit and the client's own pacing are lifted.
const { current } = emulatorPerFile();
let emu: RunningEmulator;
beforeEach(() => {
  emu = current();
});

/** A project in a git repository, its files committed (as a laptop's or a CI runner's copy is). */
async function project(prefix: string): Promise<string> {
  return (await repo(prefix, PROJECT, '2026-11-01T10:00:00Z')).dir;
}

/** `git clone` of `from`: the same commit, no `.hostsync/` (issue 43: a copy's base is what it derives from). */
async function cloneOf(from: string, prefix = 'clone'): Promise<string> {
  return clone(from, prefix);
}

/** A watch (--no-apply) on `dir`, idle, for the length of `fn`; stopped and closed after it. */
async function watching(dir: string, fn: (daemon: WatchDaemon, rec: Recorder) => Promise<void>): Promise<void> {
  const session = await watchSession(emu, dir, emu.deploymentId);
  const rec = new Recorder();
  // A short quiet moment: the watch records its cycles' batch (and verifies) 200 ms after a save.
  const daemon = await startWatch(session, { noApply: true, onEvent: rec.onEvent, tunables: { verifyIdleMs: 200 } });
  try {
    await daemon.whenIdle();
    await fn(daemon, rec);
  } finally {
    await daemon.stop();
    await session.close();
  }
}

/** Waits until the watch on `dir` has recorded its cycles' batch in the base record (its quiet moment: issue 45). */
async function recorded(dir: string): Promise<void> {
  const pending = path.join(deploymentStateDir(dir, emu.baseUrl, emu.deploymentId), 'record-pending.json');
  while (existsSync(pending)) await sleep(20);
}

/** Writes `text` to `rel` in `dir` and waits until the deployment's volume holds it (a watch's cycle). */
async function savedAndSynced(dir: string, rel: string, text: string): Promise<void> {
  await writeFile(path.join(dir, rel), text);
  while ((await readFile(path.join(emu.volume, rel), 'utf8')) !== text) await sleep(20);
}

const PROJECT = { 'index.html': '<h1>hi</h1>\n', 'src/app.js': 'console.log(1)\n', 'src/util.js': 'export const u = 1\n', 'package.json': '{"name":"site"}\n' };

async function records(): Promise<string[]> {
  try {
    return (await readdir(path.join(emu.volume, '.hostsync'))).filter((n) => /^base-[0-9a-f]{32}\.rec$/.test(n));
  } catch {
    return [];
  }
}

describe('a base record on the deployment', () => {
  it('a push leaves one record under .hostsync/, with an unguessable name, never listed as a change or remote-only', async () => {
    const laptop = await project('laptop');
    const first = await pushOnce(emu, laptop);
    expect(first.report.failures).toEqual([]);
    expect(await records()).toHaveLength(1);
    const again = await pushOnce(emu, laptop);
    expect(again.report.changes).toEqual([]);
    expect(again.report.remoteOnly).toEqual([]);
    expect(again.report.drift).toEqual([]);
    // A no-op push with a current local base: the one index read, nothing else.
    expect(again.stats.total).toBe(1);
    const mirror = await pushOnce(emu, laptop, { mirror: true });
    expect(mirror.report.changes).toEqual([]);
    expect(await records()).toHaveLength(1);
  });
});

describe('a fresh clone (CI) pushes with the deployment\'s base', () => {
  it('one change: written, exit 0 (not a first-push conflict)', async () => {
    const laptop = await project('laptop');
    await pushOnce(emu, laptop);
    const ci = await cloneOf(laptop, 'ci');
    await writeFile(path.join(ci, 'src/app.js'), 'console.log(2)\n');
    const r = await runCli(['push', '--json', '--no-apply', '--dir', ci], { ...envFor(emu), CI: 'true' });
    expect(r.code, r.stdout + r.stderr).toBe(0);
    const out = JSON.parse(r.stdout) as { changes: { written: number }; conflicts: unknown[] };
    expect(out.changes.written).toBe(1);
    expect(out.conflicts).toEqual([]);
    expect(await readFile(path.join(emu.volume, 'src/app.js'), 'utf8')).toBe('console.log(2)\n');
    // ...and the laptop, behind now, does not revert it: a push from elsewhere, named as such.
    const back = await pushOnce(emu, laptop);
    expect(back.report.changes).toEqual([]);
    expect(back.report.elsewhere.map((e) => `${e.kind} ${e.path} ${e.origin.dir}`)).toEqual([`modified src/app.js ${path.basename(ci)}`]);
    expect(await readFile(path.join(emu.volume, 'src/app.js'), 'utf8')).toBe('console.log(2)\n');
  });

  it('a file edited on the deployment outside hostsync: exit 3 naming it', async () => {
    const laptop = await project('laptop');
    await pushOnce(emu, laptop);
    await writeFile(path.join(emu.volume, 'src/util.js'), 'export const u = 2 // hotfix\n');
    const ci = await cloneOf(laptop, 'ci');
    await writeFile(path.join(ci, 'src/util.js'), 'export const u = 3\n');
    const r = await runCli(['push', '--json', '--no-apply', '--dir', ci], { ...envFor(emu), CI: 'true' });
    expect(r.code).toBe(3);
    expect(r.stdout).toContain('src/util.js');
    expect(await readFile(path.join(emu.volume, 'src/util.js'), 'utf8')).toBe('export const u = 2 // hotfix\n');
  });

  it('a fresh clone costs at most one read more than the laptop (the record)', async () => {
    const laptop = await project('laptop');
    await pushOnce(emu, laptop);
    const ci = await cloneOf(laptop, 'ci');
    const noop = await pushOnce(emu, ci);
    expect(noop.report.changes).toEqual([]);
    expect(noop.report.conflicts).toEqual([]);
    expect(noop.stats.total).toBe(2);
    // The clone keeps the copy it read: from then on it knows the record current for free, as the laptop does.
    const again = await pushOnce(emu, ci);
    expect(again.report.changes).toEqual([]);
    expect(again.stats.total).toBe(1);
  });
});

describe('every writer records', () => {
  it('a pull that took a hand edit is recorded: a fresh clone then changes that file without a conflict', async () => {
    const laptop = await project('laptop');
    await pushOnce(emu, laptop);
    await writeFile(path.join(emu.volume, 'src/util.js'), 'export const u = 2 // hotfix\n');
    const pulled = await runCli(['pull', '--json', '--dir', laptop], envFor(emu));
    expect(pulled.code, pulled.stdout + pulled.stderr).toBe(0);
    expect(await readFile(path.join(laptop, 'src/util.js'), 'utf8')).toBe('export const u = 2 // hotfix\n');
    const ci = await cloneOf(laptop, 'ci');
    await writeFile(path.join(ci, 'src/util.js'), 'export const u = 3\n');
    const { report } = await pushOnce(emu, ci);
    expect(report.conflicts).toEqual([]);
    expect(report.counts.written).toBe(1);
  });
});

describe('a damaged record', () => {
  it.each([
    ['truncated', (t: string) => t.slice(0, Math.floor(t.length / 2))],
    ['of another version', (t: string) => t.replace('hostsync base record 1', 'hostsync base record 9')],
    ['garbage', () => '\u0000\u0001 not a record'],
  ])('%s: treated as absent with one warning, never as permission to overwrite', async (_name, damage) => {
    const laptop = await project('laptop');
    await pushOnce(emu, laptop);
    const [name] = await records();
    const file = path.join(emu.volume, '.hostsync', name!);
    await writeFile(file, damage(await readFile(file, 'utf8')));
    const ci = await cloneOf(laptop, 'ci');
    await writeFile(path.join(ci, 'src/app.js'), 'console.log(2)\n');
    const { report } = await pushOnce(emu, ci);
    expect(report.warnings.filter((w) => w.includes('base record'))).toHaveLength(1);
    expect(report.conflicts.map((c) => `${c.path} ${c.reason}`)).toEqual(['src/app.js first-push-differs']);
    expect(await readFile(path.join(emu.volume, 'src/app.js'), 'utf8')).toBe('console.log(1)\n');
    // The push rewrote the record: the next clone has a base again.
    const ci2 = await cloneOf(laptop, 'ci2');
    await writeFile(path.join(ci2, 'src/util.js'), 'export const u = 9\n');
    const next = await pushOnce(emu, ci2);
    expect(next.report.warnings.filter((w) => w.includes('base record'))).toEqual([]);
    expect(next.report.conflicts).toEqual([]);
    expect(next.report.counts.written).toBe(1);
  });
});

describe('two copies of the project, one deployment', () => {
  it('a watch started on a clone records its cycles: another copy sees its write as a push from elsewhere, not as a hand edit', async () => {
    const a = await project('copy-a');
    await pushOnce(emu, a);
    const b = await cloneOf(a, 'copy-b');
    // B's watch starts with a no-op push: nothing to record, but it reads the record and keeps it.
    await watching(b, async (daemon) => {
      await savedAndSynced(b, 'src/app.js', 'console.log("from b")\n');
      await daemon.whenIdle();
    });
    const fromA = await pushOnce(emu, a, { dryRun: true });
    expect(fromA.report.drift).toEqual([]);
    expect(fromA.report.conflicts).toEqual([]);
    expect(fromA.report.elsewhere.map((e) => `${e.kind} ${e.path}`)).toEqual(['modified src/app.js']);
  });

  it("a deletion a watch made from copy A is named by copy B's status and never reverted by B; B's change is never reverted by A", async () => {
    const a = await project('copy-a');
    await pushOnce(emu, a);
    const b = await cloneOf(a, 'copy-b');
    // B pushes once (takes the deployment's base).
    expect((await pushOnce(emu, b)).report.conflicts).toEqual([]);

    await watching(a, async (daemon, rec) => {
      await rm(path.join(a, 'package.json'));
      while (existsSync(path.join(emu.volume, 'package.json'))) await sleep(20);
      await recorded(a);
      await daemon.whenIdle();

      // B: status names the deletion and where it came from; push leaves it deleted.
      const status = await runCli(['status', '--json', '--dir', b], envFor(emu));
      const st = JSON.parse(status.stdout) as { elsewhere: Array<{ path: string; kind: string; dir: string; by: string }>; drift: unknown[]; changes: unknown[] };
      expect(st.elsewhere.map((e) => `${e.kind} ${e.path} ${e.by} ${e.dir}`)).toEqual([`deleted package.json watch ${path.basename(a)}`]);
      expect(st.drift).toEqual([]);
      expect(st.changes).toEqual([]);
      const human = await runCli(['status', '--dir', b], envFor(emu));
      expect(human.stdout).toContain('Changed by a push from elsewhere');
      expect(human.stdout).toMatch(/package\.json .*deleted by a watch from/);
      expect(human.stdout).toContain('hostsync pull');
      const d = await runCli(['diff', '--json', '--dir', b], envFor(emu));
      const files = (JSON.parse(d.stdout) as { files: Array<{ path: string; side: string; elsewhere?: { dir: string; by: string } }> }).files;
      expect(files.map((f) => [f.path, f.side, f.elsewhere?.by, f.elsewhere?.dir])).toEqual([['package.json', 'remote', 'watch', path.basename(a)]]);
      const pushB = await pushOnce(emu, b);
      expect(pushB.report.changes).toEqual([]);
      expect(pushB.report.conflicts).toEqual([]);
      expect(existsSync(path.join(emu.volume, 'package.json'))).toBe(false);

      // B changes a file and pushes: A's watch (its copy of the record now behind) never reverts it.
      await writeFile(path.join(b, 'src/util.js'), 'export const u = "from b"\n');
      const changed = await pushOnce(emu, b);
      expect(changed.report.counts.written).toBe(1);
      // A edits another file: its cycle finds the record moved, reads the whole deployment, merges.
      const mark = rec.events.length;
      await savedAndSynced(a, 'src/app.js', 'console.log("from a")\n');
      await daemon.whenIdle();
      expect(await readFile(path.join(emu.volume, 'src/util.js'), 'utf8')).toBe('export const u = "from b"\n');
      expect(rec.cyclesSince(mark).flatMap((c) => c.conflicts)).toEqual([]);
    });
    // A's status, after: util.js is B's change (pull takes it), not a hand edit; no conflicts.
    const fromA = await pushOnce(emu, a, { dryRun: true });
    expect(fromA.report.conflicts).toEqual([]);
    expect(fromA.report.drift).toEqual([]);
    expect(fromA.report.elsewhere.map((e) => `${e.kind} ${e.path}`)).toEqual(['modified src/util.js']);
    // B, in turn, needs nothing: app.js was A's (elsewhere for B), package.json deleted by A.
    const fromB = await pushOnce(emu, b, { dryRun: true });
    expect(fromB.report.changes).toEqual([]);
    expect(fromB.report.conflicts).toEqual([]);
    expect(fromB.report.elsewhere.map((e) => `${e.kind} ${e.path}`).sort()).toEqual(['deleted package.json', 'modified src/app.js']);
    // The way back the status names: resolve --ours, then a plain push writes B's copy.
    const resolved = await runCli(['resolve', 'package.json', '--ours', '--dir', b], envFor(emu));
    expect(resolved.code, resolved.stdout + resolved.stderr).toBe(0);
    const back = await pushOnce(emu, b);
    expect(back.report.conflicts).toEqual([]);
    expect(back.report.counts.written).toBe(1);
    expect(await readFile(path.join(emu.volume, 'package.json'), 'utf8')).toBe(PROJECT['package.json']);
  });
});

describe('two machines at once', () => {
  /** Two copies that both pushed once (each has its own base), as a laptop and a CI runner with a cache. */
  async function twoCopies(): Promise<[string, string]> {
    const x = await project('machine-x');
    await pushOnce(emu, x);
    const y = await cloneOf(x, 'machine-y');
    await pushOnce(emu, y);
    return [x, y];
  }
  const push = (dir: string) => runCli(['push', '--json', '--no-apply', '--dir', dir], envFor(emu));

  it('racing on the same file: one lands, the other is a conflict naming it; nothing is lost silently', async () => {
    for (let round = 0; round < 3; round++) {
      for (const name of await readdir(emu.volume)) await rm(path.join(emu.volume, name), { recursive: true, force: true });
      const [x, y] = await twoCopies();
      await writeFile(path.join(x, 'src/app.js'), `console.log("x${round}")\n`);
      await writeFile(path.join(y, 'src/app.js'), `console.log("y${round}")\n`);
      const [rx, ry] = await Promise.all([push(x), push(y)]);
      const codes = [rx.code, ry.code].sort();
      expect(codes, rx.stdout + rx.stderr + ry.stdout + ry.stderr).toEqual([0, 3]);
      const [won, lost] = rx.code === 0 ? (['x', ry] as const) : (['y', rx] as const);
      expect(lost.stdout).toContain('src/app.js');
      expect(await readFile(path.join(emu.volume, 'src/app.js'), 'utf8')).toBe(`console.log("${won}${round}")\n`);
    }
  }, 180_000);

  it('racing on different files: both land', async () => {
    for (let round = 0; round < 3; round++) {
      for (const name of await readdir(emu.volume)) await rm(path.join(emu.volume, name), { recursive: true, force: true });
      const [x, y] = await twoCopies();
      await writeFile(path.join(x, 'src/app.js'), `console.log("x${round}")\n`);
      await writeFile(path.join(y, 'src/util.js'), `export const u = "y${round}"\n`);
      const [rx, ry] = await Promise.all([push(x), push(y)]);
      expect([rx.code, ry.code], rx.stdout + rx.stderr + ry.stdout + ry.stderr).toEqual([0, 0]);
      expect(await readFile(path.join(emu.volume, 'src/app.js'), 'utf8')).toBe(`console.log("x${round}")\n`);
      expect(await readFile(path.join(emu.volume, 'src/util.js'), 'utf8')).toBe(`export const u = "y${round}"\n`);
      // Neither reverts the other afterwards.
      for (const dir of [x, y]) {
        const again = await pushOnce(emu, dir);
        expect(again.report.changes).toEqual([]);
        expect(again.report.conflicts).toEqual([]);
      }
    }
  });

  it('two fresh clones (two CI jobs) racing on the same file: the loser of the record compare-and-swap reports the conflict', async () => {
    const laptop = await project('laptop');
    await pushOnce(emu, laptop);
    const [x, y] = [await cloneOf(laptop, 'ci-x'), await cloneOf(laptop, 'ci-y')];
    await writeFile(path.join(x, 'src/app.js'), 'console.log("x")\n');
    await writeFile(path.join(y, 'src/app.js'), 'console.log("y")\n');
    const [rx, ry] = await Promise.all([push(x), push(y)]);
    const final = await readFile(path.join(emu.volume, 'src/app.js'), 'utf8');
    // Whatever the timing, the deployment holds one of the two, and a push that exits 3 names
    // the file. (Both exit 0 only if the second started after the first had finished: a plain
    // later deploy from a clone, which takes what hostsync left as its base.)
    expect(['console.log("x")\n', 'console.log("y")\n']).toContain(final);
    expect([rx.code, ry.code]).toContain(0);
    for (const r of [rx, ry]) if (r.code === 3) expect(r.stdout).toContain('src/app.js');
  }, 120_000);
});
