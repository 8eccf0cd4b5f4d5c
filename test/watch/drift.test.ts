/** Issue 5, item 3: the periodic poll notices remote drift in one request; conflicts are reported, never overwritten. */
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator, type RunningEmulator } from '../../src/emulator/index.js';
import { startWatch, type CycleEvent } from '../../src/watch/daemon.js';
import { tempDir, writeTree } from '../helpers/tree.js';
import { converged, Recorder, watchSession } from './harness.js';

let emu: RunningEmulator;
beforeAll(async () => {
  emu = await startEmulator({ runtime: 'static', rateLimit: 1_000_000, userRateLimit: 1_000_000 });
});
afterAll(async () => {
  await emu?.close();
});

describe('remote drift', () => {
  it('a quiet poll costs one request; drift is reported and left alone; a local edit of it is a conflict, not an overwrite', async () => {
    const { dir: root, cleanup } = await tempDir('hostsync-watch-drift-');
    await writeTree(root, { 'index.html': '<title>t</title>\n', 'config.js': 'export const mode = "local";\n' });
    const dep = await emu.createDeployment({ runtime: 'static' });
    const session = await watchSession(emu, root, dep.id);
    const rec = new Recorder();
    const daemon = await startWatch(session, { noApply: true, onEvent: rec.onEvent, tunables: { pollMs: 150 } });
    try {
      await converged(daemon, root, dep.volume);
      let mark = rec.events.length;
      const quiet = (await rec.waitFor((e) => e.type === 'cycle' && e.trigger === 'poll', mark)) as CycleEvent;
      expect(quiet.requests).toBe(1);
      expect(quiet.quiet).toBe(true);

      // Someone edits the deployment directly.
      await writeFile(path.join(dep.volume, 'config.js'), 'export const mode = "hotfix on the server";\n');
      mark = rec.events.length;
      const drift = (await rec.waitFor((e) => e.type === 'cycle' && e.trigger === 'poll' && e.drift.length > 0, mark)) as CycleEvent;
      expect(drift.drift.map((d) => [d.path, d.kind])).toEqual([['config.js', 'modified']]);
      expect(drift.quiet).toBe(false); // news: a human sees it once
      const again = (await rec.waitFor((e) => e.type === 'cycle' && e.trigger === 'poll' && rec.events.indexOf(e) > rec.events.indexOf(drift), mark)) as CycleEvent;
      expect(again.quiet).toBe(true); // and not again every 150 ms

      // Editing the drifted file locally is a conflict: reported, the server's version kept.
      mark = rec.events.length;
      await writeFile(path.join(root, 'config.js'), 'export const mode = "local edit";\n');
      const conflict = (await rec.waitFor((e) => e.type === 'cycle' && e.conflicts.length > 0, mark)) as CycleEvent;
      expect(conflict.conflicts.map((c) => [c.path, c.reason])).toEqual([['config.js', 'both-modified']]);
      expect(conflict.counts.written).toBe(0);
      expect(await readFile(path.join(dep.volume, 'config.js'), 'utf8')).toBe('export const mode = "hotfix on the server";\n');
      expect(rec.events.some((e) => e.type === 'fatal')).toBe(false);
    } finally {
      await daemon.stop();
      await session.close();
      await cleanup();
    }
  });
});
