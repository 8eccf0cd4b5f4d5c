/**
 * Watch keeps watching the app after a cycle's apply (#29): a bot that throws 3 s after
 * its ready line is reported by `hostsync watch --json` with its first error line, without
 * --logs.
 */
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { afterEach, describe, expect, it } from 'vitest';
import { startEmulator, type RunningEmulator } from '../../src/emulator/index.js';
import { CLI, TEST_CONFIG_HOME } from '../helpers/cli.js';
import { envFor } from '../helpers/push.js';
import { tempDir, writeTree } from '../helpers/tree.js';

const cleanups: Array<() => Promise<void>> = [];
// In order: the watch is stopped (and has exited) before its folder is removed; removing it
// while the watch still writes its status under .hostsync/ fails with ENOTEMPTY.
afterEach(async () => {
  for (const c of cleanups.splice(0)) await c();
});

const CRASH_LATER =
  "console.log('Ready! Logged in as TestBot#0001');\n" +
  "setTimeout(() => { throw new TypeError(\"Cannot read properties of undefined (reading 'send')\"); }, 3000);\n" +
  'setInterval(() => {}, 60000);\n';

describe('watch keeps watching the app', () => {
  it('a bot that crashes 3 s after its ready line is reported, with the first error line, without --logs', async () => {
    const emu: RunningEmulator = await startEmulator({});
    const work = await tempDir('hostsync-watch-app-');
    cleanups.push(() => emu.close(), work.cleanup);
    await writeTree(work.dir, { 'index.js': CRASH_LATER, 'hostsync.json': JSON.stringify({ health: { kind: 'worker', ready: 'Logged in as' } }) });
    const child = spawn(process.execPath, [CLI, 'watch', '--json', '--dir', work.dir], {
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', NO_COLOR: '1', XDG_CONFIG_HOME: TEST_CONFIG_HOME, ...envFor(emu) },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const exited = new Promise<void>((resolve) => child.on('exit', () => resolve()));
    cleanups.unshift(async () => {
      child.kill('SIGINT');
      await exited;
    });
    const events: Array<Record<string, any>> = [];
    const appEvent = new Promise<Record<string, any>>((resolve, reject) => {
      createInterface({ input: child.stdout! }).on('line', (line) => {
        const e = JSON.parse(line) as Record<string, any>;
        events.push(e);
        if (e.type === 'app') resolve(e);
      });
      child.on('exit', (code) => reject(new Error(`watch exited ${code}`)));
    });
    const down = await appEvent;
    const cycle = events.find((e) => e.type === 'cycle');
    expect(cycle).toMatchObject({ healthy: true });
    expect(down).toMatchObject({ type: 'app', state: 'offline', error: expect.stringContaining("TypeError: Cannot read properties of undefined (reading 'send')") });
  }, 60_000);
});
