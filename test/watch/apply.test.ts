/**
 * Apply after each cycle that changed something, honouring hotPaths; the app's log lines
 * reach the terminal when it crashes. A real Node app runs under the emulator.
 */
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator, type RunningEmulator } from '../../src/emulator/index.js';
import { startWatch } from '../../src/watch/daemon.js';
import { renderCycle, watchEventJson } from '../../src/cli/watch-render.js';
import { tempDir, writeTree } from '../helpers/tree.js';
import { converged, Recorder, watchSession } from './harness.js';

let emu: RunningEmulator;
beforeAll(async () => {
  emu = await startEmulator({ rateLimit: 1_000_000, userRateLimit: 1_000_000 });
});
afterAll(async () => {
  await emu?.close();
});

const SERVER = `require('http').createServer((q, r) => { r.setHeader('content-type', 'text/html'); r.end('<title>watch ok</title>hi'); }).listen(Number(process.env.PORT), '0.0.0.0');\n`;

describe('apply after each cycle', () => {
  it('reports state and HTTP status, skips the restart for hot paths, and shows the log tail on a crash', async () => {
    const { dir: root, cleanup } = await tempDir('hostsync-watch-apply-');
    await writeTree(root, { 'index.js': SERVER, 'public/style.css': 'body{}\n', 'hostsync.json': JSON.stringify({ hotPaths: ['public/'] }) });
    const dep = await emu.createDeployment({ runtime: 'nodejs', entryFile: 'index.js' });
    const session = await watchSession(emu, root, dep.id);
    const rec = new Recorder();
    const daemon = await startWatch(session, { onEvent: rec.onEvent });
    try {
      await converged(daemon, root, dep.volume);
      const start = rec.cycles().find((c) => c.trigger === 'start')!;
      expect(start.apply?.state).toBe('running');
      expect(start.healthy).toBe(true);
      expect(start.apply?.http.status).toBe(200);
      const line = renderCycle(start, false)[0]!;
      expect(line).toContain('running HTTP 200');
      expect(watchEventJson(start)).toMatchObject({ type: 'cycle', state: 'running', http: 200, healthy: true, changes: { written: 3 } });

      let mark = rec.events.length;
      await writeFile(path.join(root, 'public/style.css'), 'body{color:red}\n');
      await converged(daemon, root, dep.volume);
      const hot = rec.cyclesSince(mark).find((c) => c.apply)!;
      expect(hot.apply!.restarted).toBe(false);
      expect(hot.healthy).toBe(true);
      expect(hot.ms).toBeGreaterThan(0);

      mark = rec.events.length;
      await writeFile(path.join(root, 'index.js'), `console.log('starting up'); throw new Error('boom-marker-42');\n`);
      await converged(daemon, root, dep.volume);
      const crash = rec.cyclesSince(mark).find((c) => c.apply)!;
      expect(crash.healthy).toBe(false);
      expect(crash.apply!.state).not.toBe('running');
      const text = renderCycle(crash, false).join('\n');
      expect(text).toContain('last log lines');
      expect(text).toContain('boom-marker-42');
      expect(watchEventJson(crash)).toMatchObject({ healthy: false });
      expect(JSON.stringify(watchEventJson(crash).logs)).toContain('boom-marker-42');

      // Fixing the app brings it back on the next save.
      mark = rec.events.length;
      await writeFile(path.join(root, 'index.js'), SERVER);
      await converged(daemon, root, dep.volume);
      expect(rec.cyclesSince(mark).find((c) => c.apply)!.healthy).toBe(true);
    } finally {
      await daemon.stop();
      await session.close();
      await cleanup();
    }
  });
});
