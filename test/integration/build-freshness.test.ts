/**
 * Issue 46, item 8: with "dir" and "build", `status` said "Nothing to push: the deployment
 * matches this directory" while `dist/` was stale (sources edited since the last build) or
 * not built at all, although `push` builds first and would send something else.
 */
import { rm, utimes, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator, type RunningEmulator } from '../../src/emulator/index.js';
import { runCli } from '../helpers/cli.js';
import { envFor } from '../helpers/push.js';
import { tempDir, writeTree } from '../helpers/tree.js';

let emu: RunningEmulator;
beforeAll(async () => {
  emu = await startEmulator({ runtime: 'static' });
});
afterAll(async () => {
  await emu?.close();
});

describe('status of a project with "dir" and "build"', () => {
  it('says push builds first when sources changed since the last build, or when nothing is built yet', async () => {
    const work = await tempDir('hostsync-build-fresh-');
    try {
      // The build: copies src/index.html into dist/ (node: no shell tools needed).
      await writeTree(work.dir, {
        'hostsync.json': JSON.stringify({ dir: 'dist', build: "node -e \"require('fs').mkdirSync('dist',{recursive:true});require('fs').copyFileSync('src/index.html','dist/index.html')\"" }),
        'src/index.html': '<h1>v1</h1>\n',
      });
      const env = envFor(emu);
      // Never built: status must not say the deployment matches.
      const before = await runCli(['status', '--dir', work.dir], env);
      expect(before.stdout).not.toContain('Nothing to push: the deployment matches this directory');
      expect(before.stdout).toContain('Not built yet: `hostsync push` runs the build');

      expect((await runCli(['push', '--no-apply', '--dir', work.dir], env)).code).toBe(0);
      const fresh = await runCli(['status', '--json', '--dir', work.dir], env);
      expect(JSON.parse(fresh.stdout).build).toMatchObject({ unbuilt: false, changedSince: [] });
      expect((await runCli(['status', '--dir', work.dir], env)).stdout).toContain('Nothing to push: the deployment matches this directory.');

      // An edit of a source after the build (its time set ahead: no waiting on the clock).
      const src = path.join(work.dir, 'src/index.html');
      await writeFile(src, '<h1>v2</h1>\n');
      const later = new Date(Date.now() + 60_000);
      await utimes(src, later, later);
      const stale = await runCli(['status', '--dir', work.dir], env);
      expect(stale.code).toBe(0);
      expect(stale.stdout).not.toContain('Nothing to push: the deployment matches this directory');
      expect(stale.stdout).toContain('Sources changed since the last build (src/index.html): `hostsync push` runs the build');

      // dist/ removed: not built.
      await rm(path.join(work.dir, 'dist'), { recursive: true });
      expect((await runCli(['status', '--json', '--dir', work.dir], env)).stdout).toContain('"unbuilt":true');
    } finally {
      await work.cleanup();
    }
  }, 60_000);
});
