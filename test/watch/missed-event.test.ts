/**
 * Issue 46, item 3: a build that empties dist/ and writes `assets/app-<hash>.css` and
 * `index.html` again; in 3 of 11 rebuilds chokidar never reported the new CSS, the cycle sent
 * `D assets/app-<old>.css, M index.html`, and 35 s later the deployment still lacked it. Here
 * a watcher double drops every event of the new CSS, deterministically: the watch must find
 * it by itself (re-walking the folders a removal touched) and send it.
 */
import { existsSync } from 'node:fs';
import { rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startEmulator, type RunningEmulator } from '../../src/emulator/index.js';
import { changedPaths } from '../../src/model/change.js';
import type { Session } from '../../src/sync/session.js';
import { startWatch, type CycleEvent, type WatchDaemon } from '../../src/watch/daemon.js';
import { startWatcherBackend } from '../../src/watch/watcher-backend.js';
import { tempDir, writeTree } from '../helpers/tree.js';
import { ownBudgetPerTest } from '../helpers/budget.js';
import { Recorder, watchSession } from './harness.js';

let emu: RunningEmulator;
beforeAll(async () => {
  emu = await startEmulator({ runtime: 'static', rateLimit: 1_000_000, userRateLimit: 1_000_000 });
});
ownBudgetPerTest();
afterAll(async () => {
  await emu?.close();
});

/** chokidar, as the default watcher runs below 20k files, except that it never reports `lost`. */
const losing = (lost: RegExp): typeof startWatcherBackend => (opts, backend) =>
  startWatcherBackend({ ...opts, onEvents: (paths) => {
    const kept = paths.filter((p) => !lost.test(p));
    if (kept.length > 0) opts.onEvents(kept);
  } }, backend);

/** The test's bound: the new file must land long before it (the fix needs WATCH_REWALK_AGAIN_MS at most); without the fix it never does. */
async function landed(volume: string, rel: string): Promise<void> {
  while (!existsSync(path.join(volume, rel))) await sleep(50);
}

describe('a create event the watcher missed (issue 46, item 3)', () => {
  let root: string;
  let cleanup: () => Promise<void>;
  let volume: string;
  let session: Session;
  let daemon: WatchDaemon;
  let rec: Recorder;

  beforeEach(async () => {
    ({ dir: root, cleanup } = await tempDir('hostsync-missed-'));
    await writeTree(root, { 'index.html': '<link rel="stylesheet" href="assets/app-1111.css">\n', 'assets/app-1111.css': 'body{color:red}\n', 'assets/logo.svg': '<svg/>\n' });
    const dep = await emu.createDeployment({ runtime: 'static' });
    volume = dep.volume;
    session = await watchSession(emu, root, dep.id);
    rec = new Recorder();
    daemon = await startWatch(session, { noApply: true, backend: 'chokidar', startWatcher: losing(/app-2222/), onEvent: rec.onEvent });
    await rec.waitFor((e) => e.type === 'ready');
    await daemon.whenIdle();
    await landed(volume, 'assets/app-1111.css');
  });
  afterEach(async () => {
    await daemon.stop();
    await session.close();
    await cleanup();
  });

  it('a rebuild written in one burst: the cycle that deletes the old CSS sends the new one too', async () => {
    const mark = rec.events.length;
    await rm(path.join(root, 'assets/app-1111.css'));
    await rm(path.join(root, 'index.html'));
    await writeFile(path.join(root, 'assets/app-2222.css'), 'body{color:blue}\n');
    await writeFile(path.join(root, 'index.html'), '<link rel="stylesheet" href="assets/app-2222.css">\n');
    await landed(volume, 'assets/app-2222.css');
    // Never a cycle that removed the old CSS without sending the new one. (The file lands
    // before its cycle's event is told: wait for the event.)
    const removing = (await rec.waitFor((e) => e.type === 'cycle' && changedPaths(e.changes).includes('assets/app-1111.css'), mark)) as CycleEvent;
    expect(changedPaths(removing.changes)).toContain('assets/app-2222.css');
    expect(existsSync(path.join(volume, 'assets/app-1111.css'))).toBe(false);
  }, 30_000);

  it('the new CSS written after the cycle that removed the old one: the second look finds it', async () => {
    const mark = rec.events.length;
    await rm(path.join(root, 'assets/app-1111.css'));
    await writeFile(path.join(root, 'index.html'), '<link rel="stylesheet" href="assets/app-2222.css">\n');
    await rec.waitFor((e) => e.type === 'cycle' && changedPaths(e.changes).includes('assets/app-1111.css'), mark);
    await writeFile(path.join(root, 'assets/app-2222.css'), 'body{color:blue}\n');
    await landed(volume, 'assets/app-2222.css');
  }, 30_000);
});
