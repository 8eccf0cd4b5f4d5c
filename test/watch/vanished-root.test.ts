/**
 * Issue 27, item 4: a project that vanished is not a deletion. The repro: two folders
 * synced to one deployment, the first deleted (rm -rf) while its watcher runs; the watcher
 * pushed its five files' deletions. Now a root that is gone, emptied, or stripped of the
 * hostsync.json that names the deployment stops watch (exit 3, one line saying why) and
 * nothing is deleted on the deployment.
 */
import { existsSync } from 'node:fs';
import { readdir, rm } from 'node:fs/promises';

/** The deployment's files at its root, without `.hostsync/` (where hostsync keeps its base record). */
const volumeNames = async (volume: string): Promise<string[]> => (await readdir(volume)).filter((n) => n !== '.hostsync').sort();
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator, type RunningEmulator } from '../../src/emulator/index.js';
import { startWatch } from '../../src/watch/daemon.js';
import { fileDigests, tempDir, writeTree } from '../helpers/tree.js';
import { converged, Recorder, WatchProcess, watchSession } from './harness.js';

let emu: RunningEmulator;
beforeAll(async () => {
  emu = await startEmulator({ runtime: 'static', rateLimit: 1_000_000, userRateLimit: 1_000_000 });
});
afterAll(async () => {
  await emu?.close();
});

/** The project: five files, under the mass-delete guard's 20. `deployment` names it in hostsync.json. */
function project(deployment: string | null): Record<string, string> {
  const config = deployment === null ? { gitignore: true } : { deployment, gitignore: true };
  return {
    '.gitignore': 'node_modules\n',
    '.syncignore': '*.log\n',
    'hostsync.json': `${JSON.stringify(config)}\n`,
    'package.json': '{"name":"app"}\n',
    'index.html': '<h1>hi</h1>\n',
  };
}

const NAMES = ['.gitignore', '.syncignore', 'hostsync.json', 'index.html', 'package.json'];

describe('a project that vanished while watch runs (issue 27, item 4)', () => {
  it('rm -rf of the root: watch stops with exit 3 and one line saying why, deletes nothing, and does not bring the folder back', async () => {
    const { dir: parent, cleanup } = await tempDir('hostsync-vanish-rmrf-');
    const dep = await emu.createDeployment({ runtime: 'static' });
    const root = path.join(parent, 'first');
    await writeTree(root, project(dep.id));
    const watch = new WatchProcess(emu, root, dep.id, ['--no-apply']);
    try {
      await watch.waitFor((e) => e.type === 'cycle' && e.trigger === 'start');
      await watch.waitFor((e) => e.type === 'ready');
      expect(await volumeNames(dep.volume)).toEqual(NAMES);
      const before = await fileDigests(dep.volume);

      // The daemon may write its status file into .hostsync/ while rm walks it (ENOTEMPTY): rm again, as a user would.
      await rm(root, { recursive: true, force: true, maxRetries: 20, retryDelay: 10 });
      const exit = await watch.exited;

      expect(exit.code).toBe(3);
      const fatal = watch.events.find((e) => e.type === 'fatal');
      expect(fatal).toMatchObject({ exitCode: 3 });
      expect(String(fatal!.message)).toMatch(/^the project vanished: .*first is gone \(deleted, or moved away\); nothing was deleted on the deployment/);
      expect(String(fatal!.message)).not.toContain('\n');
      // No cycle sent a deletion, and the deployment holds the five files as they were.
      const deleted = watch.events.filter((e) => e.type === 'cycle').reduce((n, e) => n + Number((e.changes as { deleted: number }).deleted), 0);
      expect(deleted).toBe(0);
      expect(await fileDigests(dep.volume)).toEqual(before);
      // Stopping wrote no state: a state write would have created the folder again.
      expect(existsSync(root)).toBe(false);
    } finally {
      watch.child.kill('SIGKILL');
      await cleanup();
    }
  });

  it('root emptied (every file deleted, the folder kept): watch stops, exit 3, nothing deleted', async () => {
    const { dir: root, cleanup } = await tempDir('hostsync-vanish-empty-');
    const dep = await emu.createDeployment({ runtime: 'static' });
    // The deployment comes from the environment here, so the emptiness is what stops it.
    await writeTree(root, project(null));
    const session = await watchSession(emu, root, dep.id);
    const rec = new Recorder();
    const daemon = await startWatch(session, { noApply: true, onEvent: rec.onEvent });
    try {
      await converged(daemon, root, dep.volume);
      const before = await fileDigests(dep.volume);
      // All at once, as `rm -rf root/* root/.*` does: one burst for the watcher. (Files deleted
      // one by one over longer than the debounce are the user's deletions until the last.)
      await Promise.all(NAMES.map((name) => rm(path.join(root, name))));
      const end = await daemon.done;
      expect(end.fatal).toMatchObject({ exitCode: 3 });
      expect(end.fatal!.message).toMatch(/^the project vanished: .* is empty; nothing was deleted on the deployment/);
      expect(rec.cycles().reduce((n, c) => n + c.counts.deleted, 0)).toBe(0);
      expect(await fileDigests(dep.volume)).toEqual(before);
    } finally {
      await daemon.stop();
      await session.close();
      await cleanup();
    }
  });

  it('hostsync.json that names the deployment removed, other files kept: watch stops, exit 3, hostsync.json stays on the deployment', async () => {
    const { dir: root, cleanup } = await tempDir('hostsync-vanish-config-');
    const dep = await emu.createDeployment({ runtime: 'static' });
    await writeTree(root, project(dep.id));
    const session = await watchSession(emu, root, dep.id);
    const rec = new Recorder();
    const daemon = await startWatch(session, { noApply: true, onEvent: rec.onEvent });
    try {
      await converged(daemon, root, dep.volume);
      const before = await fileDigests(dep.volume);
      await rm(path.join(root, 'hostsync.json'));
      const end = await daemon.done;
      expect(end.fatal).toMatchObject({ exitCode: 3 });
      expect(end.fatal!.message).toMatch(/^the project vanished: hostsync\.json, which names this deployment, is gone from .*; nothing was deleted on the deployment: put hostsync\.json back/);
      expect(rec.cycles().reduce((n, c) => n + c.counts.deleted, 0)).toBe(0);
      expect(await fileDigests(dep.volume)).toEqual(before);
    } finally {
      await daemon.stop();
      await session.close();
      await cleanup();
    }
  });

  it('hostsync.json that does not name the deployment (it comes from the environment): its removal is an ordinary deletion', async () => {
    const { dir: root, cleanup } = await tempDir('hostsync-vanish-config-env-');
    const dep = await emu.createDeployment({ runtime: 'static' });
    await writeTree(root, project(null));
    const session = await watchSession(emu, root, dep.id);
    const daemon = await startWatch(session, { noApply: true });
    try {
      await converged(daemon, root, dep.volume);
      await rm(path.join(root, 'hostsync.json'));
      await converged(daemon, root, dep.volume);
      expect(existsSync(path.join(dep.volume, 'hostsync.json'))).toBe(false);
      expect((await volumeNames(dep.volume)).length).toBe(NAMES.length - 1);
    } finally {
      await daemon.stop();
      await session.close();
      await cleanup();
    }
  });
});
