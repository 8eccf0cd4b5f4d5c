/**
 * Issue 10 (the remaining gap): on a tree past the emulator's index cap, watch's drift poll
 * after a write of ours, and a restart after edits, cost a bounded number of requests
 * (not a read of the whole tree), and remote edits are still found and never overwritten.
 */
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator, type RunningEmulator } from '../../src/emulator/index.js';
import { deploymentStateDir } from '../../src/state/paths.js';
import { DriftStore } from '../../src/state/drift.js';
import { startWatch, type CycleEvent } from '../../src/watch/daemon.js';
import { tempDir, writeTree } from '../helpers/tree.js';
import { converged, Recorder, watchSession } from './harness.js';

/** 61 files at a cap of 25: four regions (three folders of src/, and the rest), so a round is five polls. */
const INDEX_CAP = 25;
let emu: RunningEmulator;
beforeAll(async () => {
  // Its own emulator (so its own key): the budget ledger holds a key to 120 a minute.
  emu = await startEmulator({ runtime: 'static', rateLimit: 1_000_000, userRateLimit: 1_000_000, indexMaxEntries: INDEX_CAP });
});
afterAll(async () => {
  await emu?.close();
});

const isPoll = (e: { type: string; trigger?: string }): boolean => e.type === 'cycle' && e.trigger === 'poll';

describe('drift polls on a tree past the index cap', () => {
  it('after a local edit each poll is one request and finds remote edits in the touched and in an untouched region; a restart after an edit is a read and a write', async () => {
    const files: Record<string, string> = { 'index.html': '<title>t</title>\n' };
    for (const d of ['a', 'b', 'c', 'd']) for (let i = 0; i < 15; i++) files[`src/${d}/f${i}.js`] = `export const v = "${d}${i}";\n`;
    const { dir: root, cleanup } = await tempDir('hostsync-watch-drift-rotation-');
    await writeTree(root, files);
    const dep = await emu.createDeployment({ runtime: 'static' });
    const stateDir = deploymentStateDir(root, emu.baseUrl, dep.id);
    const tunables = { pollMs: 60, verifyIdleMs: 30 };

    const session = await watchSession(emu, root, dep.id);
    const rec = new Recorder();
    const daemon = await startWatch(session, { noApply: true, onEvent: rec.onEvent, tunables });
    try {
      await converged(daemon, root, dep.volume);
      let mark = rec.events.length;
      // Synced by a whole read: its root digest is trusted, one read checks the tree.
      const quiet = (await rec.waitFor(isPoll, mark)) as CycleEvent;
      expect(quiet.byOperation).toEqual({ 'files.index': 1 });

      // A local edit in src/a: the root digest no longer holds (our own write).
      await writeFile(path.join(root, 'src/a/f1.js'), 'export const v = "ours";\n');
      await rec.waitFor((e) => e.type === 'cycle' && e.trigger === 'verify', mark);
      mark = rec.events.length;
      // Someone edits the deployment: one file in the region we wrote to, one in a region we did not.
      await writeFile(path.join(dep.volume, 'src/a/f2.js'), 'theirs, beside ours\n');
      await writeFile(path.join(dep.volume, 'src/c/f3.js'), 'theirs, elsewhere\n');
      const found = new Set<string>();
      while (found.size < 2) {
        const poll = (await rec.waitFor((e) => isPoll(e) && rec.events.indexOf(e) >= mark, mark)) as CycleEvent;
        mark = rec.events.indexOf(poll) + 1;
        for (const d of poll.drift) found.add(`${d.path}:${d.kind}`);
      }
      expect([...found].sort()).toEqual(['src/a/f2.js:modified', 'src/c/f3.js:modified']);
      const polls = rec.events.filter((e): e is CycleEvent => isPoll(e) && rec.events.indexOf(e) < mark);
      const afterEdit = polls.slice(polls.indexOf(quiet) + 1);
      // Every poll after our write: one request, never a read of the whole tree.
      for (const p of afterEdit) expect(p.byOperation).toEqual({ 'files.index': 1 });
      const regions = (await new DriftStore(stateDir, dep.id).load())!.regions.length;
      expect(regions).toBeGreaterThanOrEqual(3);
      // Found within two rounds (a round: the root and every region), counted from our write.
      expect(afterEdit.length).toBeLessThanOrEqual(2 * (regions + 1));
      // Reported, never overwritten.
      expect(await readFile(path.join(dep.volume, 'src/a/f2.js'), 'utf8')).toBe('theirs, beside ours\n');
      expect(await readFile(path.join(dep.volume, 'src/c/f3.js'), 'utf8')).toBe('theirs, elsewhere\n');
      expect(rec.cycles().slice(1).reduce((n, c) => n + c.counts.written, 0)).toBe(1);
    } finally {
      await daemon.stop();
      await session.close();
    }

    // Stopped: a local edit, and a remote one elsewhere. The restart sends the edit after a
    // read of its own path (2 requests), and the polls find the remote edit.
    await writeFile(path.join(root, 'src/d/f4.js'), 'export const v = "edited while stopped";\n');
    await writeFile(path.join(dep.volume, 'src/b/f0.js'), 'theirs, while stopped\n');
    const again = await watchSession(emu, root, dep.id);
    const rec2 = new Recorder();
    const d2 = await startWatch(again, { noApply: true, onEvent: rec2.onEvent, tunables });
    try {
      const start = (await rec2.waitFor((e) => e.type === 'cycle' && e.trigger === 'start')) as CycleEvent;
      expect(start.byOperation).toEqual({ 'files.index': 1, 'files.writeMany': 1 });
      expect(start.changes.map((c) => c.path)).toEqual(['src/d/f4.js']);
      const drift = (await rec2.waitFor((e) => isPoll(e) && (e as CycleEvent).drift.some((d) => d.path === 'src/b/f0.js'))) as CycleEvent;
      expect(drift.byOperation).toEqual({ 'files.index': 1 });
      for (const p of rec2.cycles().filter((c) => c.trigger === 'poll')) expect(p.requests).toBe(1);
      expect(await readFile(path.join(dep.volume, 'src/d/f4.js'), 'utf8')).toBe('export const v = "edited while stopped";\n');
      expect(await readFile(path.join(dep.volume, 'src/b/f0.js'), 'utf8')).toBe('theirs, while stopped\n');
      expect(rec2.cycles().flatMap((c) => c.conflicts)).toEqual([]);
    } finally {
      await d2.stop();
      await again.close();
      await cleanup();
    }
  });
});
