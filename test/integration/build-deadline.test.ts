/**
 * hostsync.json "build" and the command's deadline (issue 44, item 4). Before the fix the
 * build ran outside the deadline: `"build": "sleep 300"` with HOSTSYNC_DEADLINE=3 went on
 * sleeping, `"sleep 30 & sleep 30"` ended after 30 s blaming the service, and a build that
 * left a background child (`"sleep 15 &"`) held the push until that child closed the
 * output pipes it had inherited. Each case runs the built CLI under a generous safety
 * bound (only there to stop a hung child) and asserts it ended by itself, and how.
 * The builds write the pids they start outside the project, so a case can tell they are
 * gone, and the cleanup kills any left by a failing case.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { readFile, writeFile } from 'node:fs/promises';
import { setTimeout as sleep } from 'node:timers/promises';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startEmulator, type RunningEmulator } from '../../src/emulator/index.js';
import { EXIT } from '../../src/errors.js';
import { CLI, TEST_CONFIG_HOME, runCli } from '../helpers/cli.js';
import { envFor } from '../helpers/push.js';
import { runDir, tempDir, writeTree } from '../helpers/tree.js';

/** Kills a CLI still running after this: a hang, reported as `killed`, not a timing threshold. */
const SAFETY_MS = 60_000;

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0)) await c();
});

async function setup(build: (pidFile: string) => string): Promise<{ emu: RunningEmulator; dir: string; pids: () => Promise<number[]> }> {
  const emu = await startEmulator();
  const work = await tempDir('hostsync-build-deadline-');
  const pidFile = path.join(runDir('build-pids-'), 'pids');
  const pids = async (): Promise<number[]> => (await readFile(pidFile, 'utf8').catch(() => '')).split(/\s+/).filter(Boolean).map(Number);
  cleanups.push(async () => {
    for (const pid of await pids()) if (alive(pid)) process.kill(pid, 'SIGKILL');
  }, () => emu.close(), work.cleanup);
  await writeTree(work.dir, { 'index.js': 'setInterval(() => {}, 60000);\n' });
  await writeFile(path.join(work.dir, 'hostsync.json'), JSON.stringify({ build: build(pidFile) }));
  return { emu, dir: work.dir, pids };
}

/** A process that still runs: not gone, and not a zombie waiting for its parent. */
function alive(pid: number): boolean {
  const stat = `/proc/${pid}/stat`;
  if (existsSync('/proc/self/stat')) {
    try {
      return readFileSync(stat, 'utf8').replace(/^.*\) /s, '')[0] !== 'Z';
    } catch {
      return false;
    }
  }
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

const push = (t: { emu: RunningEmulator; dir: string }, extra: Record<string, string> = {}) =>
  runCli(['push', '--no-apply'], { ...envFor(t.emu), ...extra }, { cwd: t.dir, killAfterMs: SAFETY_MS });

const BUILD_DEADLINE = /^hostsync: the build \(`.*`, "build" in hostsync\.json\) did not finish within the command's deadline of 3 s and was stopped: make it faster, or allow longer with HOSTSYNC_DEADLINE=<seconds> \(or build first and push --no-build\); nothing was sent$/m;

describe.skipIf(process.platform === 'win32')('a build and the command\'s deadline', () => {
  it('"build": "sleep 300" with HOSTSYNC_DEADLINE=3: stopped at the deadline, the error names the build, nothing sent', async () => {
    const t = await setup((pids) => `echo $$ > ${pids}; exec sleep 300`);
    const r = await push(t, { HOSTSYNC_DEADLINE: '3' });
    expect(r.killed).toBe(false);
    expect(r.code).toBe(EXIT.failed);
    expect(r.stderr).toMatch(BUILD_DEADLINE);
    expect(r.stderr).not.toMatch(/service answers too slowly/);
    expect(r.stderr.trim().split('\n').filter((l) => l.startsWith('hostsync:'))).toHaveLength(1);
    expect((await t.pids()).filter(alive)).toEqual([]);
    expect(existsSync(path.join(t.emu.volume, 'index.js'))).toBe(false);
  }, SAFETY_MS + 10_000);

  it('"sleep 300 & sleep 300": the whole group is stopped, the background child too, and the build is named, not the service', async () => {
    // `sleep 300 & sleep 300`, with the second sleep's pid known too: the shell waits for it as for a foreground one.
    const t = await setup((pids) => `sleep 300 & echo $! >> ${pids}; sleep 300 & echo $! >> ${pids}; echo $$ >> ${pids}; wait $!`);
    const r = await push(t, { HOSTSYNC_DEADLINE: '3' });
    expect(r.killed).toBe(false);
    expect(r.code).toBe(EXIT.failed);
    expect(r.stderr).toMatch(BUILD_DEADLINE);
    expect(r.stderr).not.toMatch(/files\.index|service answers too slowly/);
    const pids = await t.pids();
    expect(pids).toHaveLength(3);
    expect(pids.filter(alive)).toEqual([]);
  }, SAFETY_MS + 10_000);
});

describe.skipIf(process.platform === 'win32')('a build that leaves a background child behind', () => {
  it('"sleep 300 &": the push goes on when the shell exits (not when the child closes its pipes), and the child is stopped', async () => {
    const t = await setup((pids) => `sleep 300 & echo $! > ${pids}`);
    const r = await push(t);
    expect(r.killed).toBe(false);
    expect(r.code).toBe(EXIT.ok);
    expect(existsSync(path.join(t.emu.volume, 'index.js'))).toBe(true);
    const pids = await t.pids();
    expect(pids).toHaveLength(1);
    expect(pids.filter(alive)).toEqual([]);
  }, SAFETY_MS + 10_000);
});

describe.skipIf(process.platform === 'win32')('Ctrl-C during a build', () => {
  it('SIGINT to hostsync reaches the build, though it runs in a group of its own (the terminal\'s Ctrl-C no longer does)', async () => {
    const t = await setup((pids) => `echo $$ > ${pids}; exec sleep 300`);
    // A process of its own, to signal (runCli's environment: nothing of the runner's but PATH and HOME).
    const env = { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', XDG_CONFIG_HOME: TEST_CONFIG_HOME, ...envFor(t.emu) };
    const cli = spawn(process.execPath, [CLI, 'push', '--no-apply'], { cwd: t.dir, env, stdio: 'ignore' });
    const safety = setTimeout(() => cli.kill('SIGKILL'), SAFETY_MS);
    cleanups.push(() => clearTimeout(safety));
    const exited = once(cli, 'exit');
    // The build has started once it wrote its pid: polled, a wait for an event, not a bound.
    while ((await t.pids()).length === 0) await sleep(50);
    cli.kill('SIGINT');
    const [code, signal] = await exited;
    expect(signal ?? code).toBe('SIGINT');
    // The build goes as the signal reaches it; a build left running keeps this waiting, up to the test's bound.
    const [build] = await t.pids();
    while (alive(build!)) await sleep(50);
  }, SAFETY_MS + 10_000);
});
