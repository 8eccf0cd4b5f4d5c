import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AppProcess } from '../../src/emulator/app-process.js';
import { ConsoleLog } from '../../src/emulator/console-log.js';
import { allocatePort } from '../../src/emulator/ports.js';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'hostsync-appproc-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function spawnNode(code: string, log: ConsoleLog): Promise<AppProcess> {
  return new AppProcess({
    command: process.execPath,
    args: ['-e', code],
    cwd: dir,
    env: { PATH: process.env.PATH ?? '' },
    port: await allocatePort(),
    log,
    onChange: () => undefined,
  });
}

describe('AppProcess', () => {
  it('escalates to SIGKILL when the app ignores SIGTERM past the grace', async () => {
    const log = new ConsoleLog(100);
    const proc = await spawnNode("process.on('SIGTERM', () => console.log('ignoring SIGTERM')); console.log('ready'); setInterval(() => {}, 1000);", log);
    // Wait until the handler is installed, or SIGTERM would kill it by default.
    while (!log.tail(10).includes('ready')) await new Promise((resolve) => setTimeout(resolve, 20));
    // A grace long enough for a loaded machine to run the handler (it ignores SIGTERM for good, so the kill comes anyway).
    await proc.stop(1500);
    expect(proc.phase).toBe('exited');
    expect(proc.exit).toMatchObject({ signal: 'SIGKILL', requested: true });
    expect(log.tail(10)).toContain('ignoring SIGTERM');
    expect(proc.exit).toMatchObject({ killedAfterGraceMs: 1500 });
    expect(log.tail(10).at(-1)).toBe('[emulator] process did not exit within 1.5 s of SIGTERM: killed (SIGKILL)');
  });

  it('a process that exits on SIGTERM is stopped, not killed', async () => {
    const log = new ConsoleLog(100);
    const proc = await spawnNode("process.once('SIGTERM', () => { console.log('closing'); process.exit(0); }); console.log('ready'); setInterval(() => {}, 1000);", log);
    while (!log.tail(10).includes('ready')) await new Promise((resolve) => setTimeout(resolve, 20));
    // Bounds the test only: the handler exits at once.
    await proc.stop(30_000);
    expect(proc.exit).toMatchObject({ code: 0, requested: true, killedAfterGraceMs: null });
    expect(log.tail(10)).toContain('closing');
    expect(log.tail(10).at(-1)).toBe('[emulator] process stopped');
  });

  it('reports a spawn failure as exited with the error', async () => {
    const log = new ConsoleLog(100);
    const proc = new AppProcess({
      command: process.execPath,
      args: ['-e', '0'],
      cwd: join(dir, 'does-not-exist'),
      env: {},
      port: await allocatePort(),
      log,
      onChange: () => undefined,
    });
    await proc.exited;
    expect(proc.phase).toBe('exited');
    expect(proc.exit?.error).toContain('ENOENT');
    expect(log.tail(10).at(-1)).toContain('[emulator] process could not be started');
  });

  it('passes a command line to stdin', async () => {
    const log = new ConsoleLog(100);
    const proc = await spawnNode("process.stdin.once('data', (d) => { console.log('got ' + d.toString().trim()); process.exit(0); });", log);
    expect(proc.send('hello')).toBe(true);
    await proc.exited;
    expect(log.tail(10)).toContain('got hello');
    expect(proc.exit).toMatchObject({ code: 0, requested: false });
    expect(proc.send('late')).toBe(false);
  });
});
