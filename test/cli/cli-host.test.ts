/**
 * The CLI host (test/helpers/cli-host.ts) answers as a real process would: the same
 * environment, directory and output (what goes to fd 2 directly too, and what the loop still
 * does after main returns), process.exit() and uncaught errors as exit codes, and a fresh
 * host after a command leaves what it cannot reset. Then the real CLI: host and process agree.
 */
import { existsSync, realpathSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator, type RunningEmulator } from '../../src/emulator/index.js';
import { runInHost } from '../helpers/cli-host.js';
import { runCli } from '../helpers/cli.js';
import { envFor } from '../helpers/push.js';
import { tempDir, writeTree } from '../helpers/tree.js';

const FIXTURE = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../helpers/cli-host-fixture.mjs');
const ENV = { PATH: process.env.PATH ?? '', HOME: '/tmp', ONLY_THIS: 'yes' };
const run = async (...args: string[]) => {
  const r = await runInHost(args, ENV, '/', FIXTURE, ENV);
  if (!r) throw new Error('the host did not run it');
  return r;
};
const pid = async () => Number((await run('pid')).stdout);

describe('the CLI host', () => {
  it('gives a command exactly the call\'s environment, directory and arguments', async () => {
    const work = await tempDir('hostsync-cli-host-');
    try {
      process.env.HOSTSYNC_HOST_TEST_LEAK = 'from the runner';
      const r = await runInHost(['env', 'a b'], { ...ENV, ONLY_THIS: 'call' }, work.dir, FIXTURE, ENV);
      const seen = JSON.parse(r!.stdout);
      expect(seen.env).toEqual({ ...ENV, ONLY_THIS: 'call' });
      expect(seen.cwd).toBe(realpathSync(work.dir));
      expect(seen.argv).toEqual(['env', 'a b']);
      expect(r!.code).toBe(0);
    } finally {
      delete process.env.HOSTSYNC_HOST_TEST_LEAK;
      await work.cleanup();
    }
  });

  it('keeps what goes to fd 2 directly and what a timer writes after main returns, each in its own call', async () => {
    const fd2 = await run('fd2', '3');
    expect(fd2).toEqual({ code: 3, stdout: '', stderr: expect.stringContaining('on fd 2\n') });
    expect(fd2.stderr).toContain('on the stream\n');
    expect(await run('later')).toEqual({ code: 0, stdout: 'later\n', stderr: '' });
    expect(await run('pid')).toMatchObject({ code: 0, stderr: '' });
  });

  it('turns process.exit() into the exit code, then runs the next command in a fresh host', async () => {
    const before = await pid();
    expect((await run('exit', '7')).code).toBe(7);
    expect(await pid()).not.toBe(before);
  });

  it('an uncaught error is exit 1 with its stack on stderr, then a fresh host', async () => {
    const before = await pid();
    const r = await run('throw');
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/Error: thrown in a timer\n\s+at /);
    expect(await pid()).not.toBe(before);
  });

  it('a signal listener left by one command is let be once; a second one means a fresh host', async () => {
    const first = await pid();
    await run('listen');
    const second = await pid();
    expect(second).toBe(first);
    await run('listen');
    expect(await pid()).not.toBe(second);
  });

  it('a file-backed Blob read to its end leaves the host in use (Node pools the finished read request)', async () => {
    const first = await pid();
    expect(await run('blob', FIXTURE)).toMatchObject({ code: 0, stdout: expect.stringMatching(/^[1-9]\d*\n$/) });
    expect(await run('blob', FIXTURE)).toMatchObject({ code: 0 });
    expect(await pid()).toBe(first);
  });

  it.runIf(existsSync('/proc/self/fd'))('a file left open means a fresh host', async () => {
    const first = await pid();
    await run('keep-open', FIXTURE);
    expect(await pid()).not.toBe(first);
  });

  it('a call made while the host is busy runs elsewhere (null: the caller starts a process)', async () => {
    const [a, b] = await Promise.all([run('later'), runInHost(['pid'], ENV, '/', FIXTURE, ENV)]);
    expect(a.stdout).toBe('later\n');
    expect(b).toBeNull();
  });
});

describe('the real CLI: host and process answer alike', () => {
  let emu: RunningEmulator;
  let work: { dir: string; cleanup: () => Promise<void> };
  beforeAll(async () => {
    emu = await startEmulator({});
    work = await tempDir('hostsync-cli-host-real-');
    await writeTree(work.dir, { 'a.txt': 'a\n' });
  });
  afterAll(async () => {
    await emu?.close();
    await work?.cleanup();
  });

  it('--version, a usage error, and a status with debug logs (pino writes fd 2 itself)', async () => {
    for (const args of [['--version'], ['stauts'], ['push', '--no-such-flag']]) {
      const hosted = await runCli(args, {});
      const real = await runCli(args, {}, { process: true });
      expect(hosted.hosted).toBe(true);
      expect(real.hosted).toBe(false);
      expect({ ...hosted, hosted: false }).toEqual(real);
    }
    const status = ['status', '--json', '--log-level', 'debug', '--dir', work.dir];
    const hosted = await runCli(status, envFor(emu));
    const real = await runCli(status, envFor(emu), { process: true });
    expect(hosted.hosted).toBe(true);
    expect(hosted.code).toBe(real.code);
    expect(JSON.parse(hosted.stdout)).toEqual(JSON.parse(real.stdout));
    const messages = (stderr: string) => stderr.trim().split('\n').map((l) => (JSON.parse(l) as { msg: string }).msg);
    expect(messages(hosted.stderr).length).toBeGreaterThan(0);
    expect(messages(hosted.stderr)).toEqual(messages(real.stderr));
  });
});
