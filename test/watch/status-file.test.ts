/**
 * Issue 10, item 6: while `hostsync watch` runs, `hostsync status` (the built CLI, another
 * process) says so, from the status file the daemon keeps: what is pending, the budget
 * left, the last cycle's outcome and latency. Reading it costs no request; a record left
 * by a dead process reads as stale.
 */
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator, type RunningEmulator } from '../../src/emulator/index.js';
import { readWatchStatus, writeWatchStatus, type WatchStatus, type WatchStatusRecord } from '../../src/state/watch-status.js';
import { watchStatusLines } from '../../src/cli/watch-status-render.js';
import { startWatch } from '../../src/watch/daemon.js';
import type { Clock } from '../../src/watch/scheduler.js';
import { runCli } from '../helpers/cli.js';
import { tempDir, writeTree } from '../helpers/tree.js';
import { cliEnv, converged, Recorder, watchSession } from './harness.js';

let emu: RunningEmulator;
beforeAll(async () => {
  emu = await startEmulator({ runtime: 'static', rateLimit: 1_000_000, userRateLimit: 1_000_000 });
});
afterAll(async () => {
  await emu?.close();
});

/** Polls the status file until `pred` holds (the daemon writes it asynchronously; the test timeout bounds this). */
async function statusWhere(stateDir: string, pred: (s: WatchStatus) => boolean): Promise<WatchStatus> {
  for (;;) {
    const s = await readWatchStatus(stateDir);
    if (s && pred(s)) return s;
    await sleep(20);
  }
}

const statusJson = async (root: string, depId: string): Promise<Record<string, any>> => {
  const res = await runCli(['status', '--json', '--dir', root], cliEnv(emu, depId));
  expect(res.code).toBe(0);
  return JSON.parse(res.stdout) as Record<string, any>;
};

describe('status shows the running watch', () => {
  it('running, the budget left, the last cycle and its latency; gone when the watch stops; no extra request', async () => {
    const { dir: root, cleanup } = await tempDir('hostsync-watch-status-');
    await writeTree(root, { 'index.html': '<title>t</title>\n', 'src/app.js': 'let a = 1;\n' });
    const dep = await emu.createDeployment({ runtime: 'static' });
    const session = await watchSession(emu, root, dep.id);
    const rec = new Recorder();
    const daemon = await startWatch(session, { noApply: true, onEvent: rec.onEvent });
    try {
      await converged(daemon, root, dep.volume);
      await statusWhere(session.stateDir, (s) => s.lastCycle?.trigger === 'start');

      const st = await statusJson(root, dep.id);
      expect(st.watch).toMatchObject({
        running: true, stale: false, pid: process.pid, apply: false,
        pending: { paths: 0, rescan: false, cycling: false, retryAt: null },
        budget: { limit: 120, windowMs: 60_000 },
        lastCycle: { trigger: 'start', outcome: 'synced', changed: 2 },
      });
      // The daemon's own requests are in its window: the budget it reports is below the limit.
      expect(st.watch.budget.remaining).toBeLessThan(120);
      expect(st.watch.budget.remaining).toBeGreaterThan(0);

      const human = await runCli(['status', '--dir', root], cliEnv(emu, dep.id));
      expect(human.stdout).toContain(`Watch: running (pid ${process.pid}`);
      expect(human.stdout).toMatch(/nothing pending · budget \d+ of 120 left per 60 s/);
      expect(human.stdout).toMatch(/last cycle: \d\d:\d\d:\d\d synced 2 changes, \d+ requests/);

      // A save: the next cycle's outcome and its save-to-live latency.
      const mark = rec.events.length;
      await writeFile(path.join(root, 'src/app.js'), 'let a = 2;\n');
      await rec.waitFor((e) => e.type === 'cycle' && e.trigger === 'change', mark);
      const after = await statusWhere(session.stateDir, (s) => s.lastCycle?.trigger === 'change');
      expect(after.lastCycle).toMatchObject({ outcome: 'synced', changed: 1 });
      expect(after.lastCycle!.ms).toEqual(expect.any(Number));
      expect(after.cycles).toBeGreaterThan(1);

      // The watch part costs nothing: status makes the same requests with and without a watch.
      const withWatch = st.requests.total;
      await daemon.stop();
      expect(await readWatchStatus(session.stateDir)).toBeNull();
      const without = await statusJson(root, dep.id);
      expect(without.watch).toBeNull();
      expect(without.requests.total).toBe(withWatch);
    } finally {
      await daemon.stop();
      await session.close();
      await cleanup();
    }
  });

  it('names what is pending while the batch waits', async () => {
    const { dir: root, cleanup } = await tempDir('hostsync-watch-status-');
    await writeTree(root, { 'a.txt': 'a\n' });
    const dep = await emu.createDeployment({ runtime: 'static' });
    const session = await watchSession(emu, root, dep.id);
    // Real time until the start-up sync is done, then the scheduler's timers are held: a save stays pending.
    let frozen = false;
    const clock: Clock = {
      now: () => performance.now(),
      setTimeout: (fn, ms) => (frozen ? Symbol('held') : setTimeout(fn, ms)),
      clearTimeout: (h) => {
        if (typeof h !== 'symbol') clearTimeout(h as NodeJS.Timeout);
      },
    };
    const daemon = await startWatch(session, { noApply: true, clock });
    try {
      await statusWhere(session.stateDir, (s) => s.lastCycle !== null && s.backend !== null && !s.pending.cycling && !s.pending.rescan);
      frozen = true;
      await writeFile(path.join(root, 'b.txt'), 'b\n');
      const s = await statusWhere(session.stateDir, (x) => x.pending.paths > 0);
      expect(s.pending).toMatchObject({ paths: 1, sample: ['b.txt'], cycling: false });
      expect(watchStatusLines(s)[0]).toContain('1 path pending (b.txt)');
    } finally {
      await daemon.stop();
      await session.close();
      await cleanup();
    }
  });
});

describe('the status file of a watch that did not stop cleanly', () => {
  const record = (pid: number): WatchStatusRecord => ({
    version: 1, pid, host: 'this-host', startedAt: '2026-01-01T10:00:00.000Z', updatedAt: '2026-01-01T10:05:00.000Z',
    backend: 'native', apply: true,
    pending: { paths: 0, sample: [], unverified: 0, rescan: false, cycling: false, retryAt: null },
    budget: { limit: 120, windowMs: 60_000, remaining: 117 },
    cycles: 3,
    lastCycle: { at: '2026-01-01T10:04:59.000Z', trigger: 'change', outcome: 'synced', changed: 1, requests: 3, rateLimited: 0, ms: 140, cycleMs: 90, healthy: true, state: 'running', message: null },
  });

  it('reads as stale when its pid is dead on this host, running when alive or on another host', async () => {
    const { dir, cleanup } = await tempDir('hostsync-watch-status-');
    try {
      await writeWatchStatus(dir, record(4242));
      expect(await readWatchStatus(dir, () => false, 'this-host')).toMatchObject({ running: false, stale: true, pid: 4242 });
      expect(await readWatchStatus(dir, () => true, 'this-host')).toMatchObject({ running: true, stale: false });
      expect(await readWatchStatus(dir, () => false, 'another-host')).toMatchObject({ running: true });
      await writeFile(path.join(dir, 'watch.json'), '{"version":1,"pid":');
      expect(await readWatchStatus(dir, () => true, 'this-host')).toBeNull();
    } finally {
      await cleanup();
    }
  });

  it('status says it is not running, with its last cycle', () => {
    const stale: WatchStatus = { ...record(4242), running: false, stale: true };
    const [line] = watchStatusLines(stale);
    expect(line).toMatch(/^Watch: not running \(pid 4242 ended without stopping cleanly, last seen \d\d:\d\d:\d\d; its last cycle, \d\d:\d\d:\d\d synced 1 change, 3 requests, 140 ms save to live, app running\)$/);
  });
});
