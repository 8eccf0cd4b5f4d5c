/**
 * Issue 12, item 2: watch's mass-delete guard counts the deletions of a window, not of one
 * cycle, so deleting a large share of the project a little at a time trips it like one
 * big deletion. It holds the deletions, keeps syncing the rest, and lets them through once
 * confirmed.
 */
import { existsSync } from 'node:fs';
import { readFile, readdir, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator, type RunningEmulator } from '../../src/emulator/index.js';
import { startWatch, type WatchEvent } from '../../src/watch/daemon.js';
import { tempDir, writeTree } from '../helpers/tree.js';
import { converged, Recorder, watchSession } from './harness.js';

let emu: RunningEmulator;
beforeAll(async () => {
  emu = await startEmulator({ runtime: 'static', rateLimit: 1_000_000, userRateLimit: 1_000_000 });
});
afterAll(async () => {
  await emu?.close();
});

const names = (from: number, to: number): string[] => Array.from({ length: to - from }, (_, i) => `f${from + i}.txt`);

describe('watch mass-delete guard', () => {
  it('deletions spread over cycles add up: the guard holds them, syncs the rest, and deletes them once confirmed', async () => {
    const { dir: root, cleanup } = await tempDir('hostsync-watch-massdel-');
    await writeTree(root, { 'index.html': 'v1\n', ...Object.fromEntries(names(0, 60).map((n) => [n, `${n}\n`])) });
    const dep = await emu.createDeployment({ runtime: 'static' });
    const session = await watchSession(emu, root, dep.id);
    const rec = new Recorder();
    const daemon = await startWatch(session, { noApply: true, onEvent: rec.onEvent });
    try {
      await converged(daemon, root, dep.volume);
      // 30 of 61 (49%): under the guard (more than half trips it), deleted.
      for (const n of names(0, 30)) await rm(path.join(root, n));
      await converged(daemon, root, dep.volume);
      // 15 of the remaining 31 (48% again): with the first 30, 45 of 61 within the window.
      // Any one of them trips the guard, however the watcher splits them into cycles.
      const mark = rec.events.length;
      for (const n of names(30, 45)) await rm(path.join(root, n));
      await writeFile(path.join(root, 'index.html'), 'v2\n');
      const heldEvents = (): Array<Extract<WatchEvent, { type: 'held' }>> =>
        rec.events.slice(mark).filter((e): e is Extract<WatchEvent, { type: 'held' }> => e.type === 'held');
      for (;;) {
        await daemon.whenIdle();
        const synced = (await readFile(path.join(dep.volume, 'index.html'), 'utf8')) === 'v2\n';
        const deletedAny = names(30, 45).some((n) => !existsSync(path.join(dep.volume, n)));
        if (synced && (deletedAny || heldEvents().at(-1)?.paths.length === 15)) break;
        await sleep(30);
      }
      const held = heldEvents().at(-1);
      expect(held, 'a held event').toBeDefined();
      expect(held!.paths.sort()).toEqual(names(30, 45).sort());
      expect(held).toMatchObject({ deletes: 45, tracked: 61 }); // f0..f59 and index.html
      const volume = await readdir(dep.volume);
      for (const n of names(30, 45)) expect(volume).toContain(n);

      // Confirmed: the held files go, and the guard's window starts afresh.
      expect(daemon.confirmDeletes()).toBe(true);
      await converged(daemon, root, dep.volume);
      expect(daemon.confirmDeletes()).toBe(false);
    } finally {
      await daemon.stop();
      await session.close();
      await cleanup();
    }
  });
});
