/**
 * Issue 44, item 12: watch with `"dir": "dist"` stopped ("the project vanished") when a
 * build deleted and re-created dist itself (`rm -rf dist && ...`). A dir that comes back
 * while the project root stays is a rebuild: watch follows the new folder, syncs what the
 * build wrote, and keeps watching it. The project root going still stops it.
 */
import { existsSync, readFileSync } from 'node:fs';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator, type RunningEmulator } from '../../src/emulator/index.js';
import { tempDir, writeTree } from '../helpers/tree.js';
import { WatchProcess } from './harness.js';

let emu: RunningEmulator;
beforeAll(async () => {
  emu = await startEmulator({ runtime: 'static', rateLimit: 1_000_000, userRateLimit: 1_000_000 });
});
afterAll(async () => {
  await emu?.close();
});

/** Resolves once the volume holds `rel` with `content`; ended by the watch's exit (see WatchProcess.waitFor). */
async function landed(watch: WatchProcess, volume: string, rel: string, content: string): Promise<void> {
  await watch.waitFor(() => existsSync(path.join(volume, rel)) && readFileSyncSafe(path.join(volume, rel)) === content);
}
function readFileSyncSafe(p: string): string | null {
  try {
    return readFileSync(p, 'utf8');
  } catch {
    return null;
  }
}

describe('a "dir" deleted and made again by a build (issue 44, item 12)', () => {
  it('is a rebuild: watch keeps going, sends the new build, and watches the new folder', async () => {
    const { dir: project, cleanup } = await tempDir('hostsync-dir-rebuild-');
    const dep = await emu.createDeployment({ runtime: 'static' });
    await writeTree(project, { 'hostsync.json': `${JSON.stringify({ deployment: dep.id, dir: 'dist' })}\n`, 'dist/index.html': '<h1>v1</h1>\n', 'dist/app.1.js': 'one\n' });
    const watch = new WatchProcess(emu, project, dep.id, ['--no-apply']);
    try {
      await watch.waitFor((e) => e.type === 'ready');
      await landed(watch, dep.volume, 'index.html', '<h1>v1</h1>\n');

      // The build: the folder itself goes, and a new one comes with new content.
      await rm(path.join(project, 'dist'), { recursive: true, force: true });
      await mkdir(path.join(project, 'dist'));
      await writeTree(path.join(project, 'dist'), { 'index.html': '<h1>v2</h1>\n', 'app.2.js': 'two\n' });
      await landed(watch, dep.volume, 'app.2.js', 'two\n');
      await landed(watch, dep.volume, 'index.html', '<h1>v2</h1>\n');

      // An edit in the new folder is seen: its watcher is the new folder's.
      await writeFile(path.join(project, 'dist', 'index.html'), '<h1>v3</h1>\n');
      await landed(watch, dep.volume, 'index.html', '<h1>v3</h1>\n');
      expect(watch.events.find((e) => e.type === 'fatal')).toBeUndefined();
      expect(await readFile(path.join(project, 'hostsync.json'), 'utf8')).toContain('"dist"');
    } finally {
      watch.child.kill('SIGKILL');
      await watch.exited;
      await cleanup();
    }
  });

  it('the project root going still stops watch with exit 3, nothing deleted', async () => {
    const { dir: parent, cleanup } = await tempDir('hostsync-dir-gone-');
    const project = path.join(parent, 'app');
    const dep = await emu.createDeployment({ runtime: 'static' });
    await writeTree(project, { 'hostsync.json': `${JSON.stringify({ deployment: dep.id, dir: 'dist' })}\n`, 'dist/index.html': '<h1>v1</h1>\n' });
    const watch = new WatchProcess(emu, project, dep.id, ['--no-apply']);
    try {
      await watch.waitFor((e) => e.type === 'ready');
      await landed(watch, dep.volume, 'index.html', '<h1>v1</h1>\n');
      await rm(project, { recursive: true, force: true, maxRetries: 20, retryDelay: 10 });
      const exit = await watch.exited;
      expect(exit.code).toBe(3);
      expect(String(watch.events.find((e) => e.type === 'fatal')?.message)).toMatch(/^the project vanished: /);
      expect(existsSync(path.join(dep.volume, 'index.html'))).toBe(true);
    } finally {
      watch.child.kill('SIGKILL');
      await cleanup();
    }
  });
});
