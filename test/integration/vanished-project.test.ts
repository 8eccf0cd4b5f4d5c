/**
 * Issue 27, item 4, for push: the mass-delete guard covers small projects (deleting every
 * tracked file is refused however few there are), and a push that would delete anything
 * checks the project is still there.
 */
import { existsSync } from 'node:fs';
import { readdir, rm } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startEmulator, type RunningEmulator } from '../../src/emulator/index.js';
import { loadConfig } from '../../src/config/config.js';
import { openSession } from '../../src/sync/session.js';
import { push } from '../../src/sync/push/push.js';
import { markProject, ProjectVanishedError } from '../../src/sync/push/vanished.js';
import { fileDigests, tempDir, writeTree } from '../helpers/tree.js';
import { runCli } from '../helpers/cli.js';
import { envFor } from '../helpers/push.js';

let emu: RunningEmulator;
let work: { dir: string; cleanup: () => Promise<void> };

beforeAll(async () => {
  emu = await startEmulator({ runtime: 'static', rateLimit: 1_000_000, userRateLimit: 1_000_000 });
});
afterAll(async () => {
  await emu?.close();
});
beforeEach(async () => {
  work = await tempDir('hostsync-vanished-project-');
  for (const name of await readdir(emu.volume)) await rm(path.join(emu.volume, name), { recursive: true, force: true });
});
afterEach(async () => {
  await work.cleanup();
});

const FILES = { 'index.html': '<h1>hi</h1>\n', 'app.js': 'console.log(1)\n', 'style.css': 'h1{}\n' };

describe('mass-delete guard on a small project (issue 27, item 4)', () => {
  it('push deleting every tracked file of a three-file project is refused (exit 3); --allow-mass-delete lets it through', async () => {
    await writeTree(work.dir, FILES);
    expect((await runCli(['push', '--no-apply', '--dir', work.dir], envFor(emu))).code).toBe(0);
    for (const name of Object.keys(FILES)) await rm(path.join(work.dir, name));

    const refused = await runCli(['push', '--no-apply', '--json', '--dir', work.dir], envFor(emu));
    expect(refused.code).toBe(3);
    const json = JSON.parse(refused.stdout) as { ok: boolean; error: string };
    expect(json.ok).toBe(false);
    expect(json.error).toMatch(/refusing to delete 3 of 3 tracked files on the deployment .*--allow-mass-delete/);
    expect([...(await fileDigests(emu.volume, (r) => r === '.hostsync')).keys()].sort()).toEqual(Object.keys(FILES).sort());

    const allowed = await runCli(['push', '--no-apply', '--allow-mass-delete', '--json', '--dir', work.dir], envFor(emu));
    expect(allowed.code).toBe(0);
    expect((JSON.parse(allowed.stdout) as { changes: { deleted: number } }).changes.deleted).toBe(3);
    expect((await fileDigests(emu.volume, (r) => r === '.hostsync')).size).toBe(0);
  });

  it('deleting some of a small project\'s files is an ordinary push', async () => {
    await writeTree(work.dir, FILES);
    expect((await runCli(['push', '--no-apply', '--dir', work.dir], envFor(emu))).code).toBe(0);
    await rm(path.join(work.dir, 'app.js'));
    await rm(path.join(work.dir, 'style.css'));
    const res = await runCli(['push', '--no-apply', '--dir', work.dir], envFor(emu));
    expect(res.code).toBe(0);
    expect([...(await fileDigests(emu.volume, (r) => r === '.hostsync')).keys()]).toEqual(['index.html']);
  });
});

describe('a push whose project vanished since its mark (issue 27, item 4)', () => {
  it('hostsync.json naming the deployment gone: the push is refused before anything is sent, even with --allow-mass-delete', async () => {
    await writeTree(work.dir, { ...FILES, 'hostsync.json': `${JSON.stringify({ deployment: emu.deploymentId, gitignore: true })}\n` });
    const config = await loadConfig({ flags: { dir: work.dir }, env: envFor(emu) });
    const session = await openSession(config);
    try {
      await push(session, { noApply: true });
      // What watch hands push: the project as it was at its start.
      const mark = await markProject(config);
      expect(mark.marker).toBe(true);
      await rm(path.join(work.dir, 'hostsync.json'));
      await rm(path.join(work.dir, 'app.js'));
      const err = await push(session, { noApply: true, allowMassDelete: true, project: mark }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(ProjectVanishedError);
      expect((err as ProjectVanishedError).exitCode).toBe(3);
      expect((err as Error).message).toMatch(/hostsync\.json, which names this deployment, is gone/);
      expect(existsSync(path.join(emu.volume, 'hostsync.json'))).toBe(true);
      expect(existsSync(path.join(emu.volume, 'app.js'))).toBe(true);
    } finally {
      await session.close();
    }
  });
});
