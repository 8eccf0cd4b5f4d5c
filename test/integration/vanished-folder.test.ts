/** Review 12, item 7: a folder that vanishes during an archive push. */
import { readdir, rm } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startEmulator, type RunningEmulator } from '../../src/emulator/index.js';
import { fileDigests, tempDir, writeTree } from '../helpers/tree.js';
import { envFor, pushOnce } from '../helpers/push.js';
import { loadConfig } from '../../src/config/config.js';
import { openSession } from '../../src/sync/session.js';
import { push } from '../../src/sync/push/push.js';

let emu: RunningEmulator;
let work: { dir: string; cleanup: () => Promise<void> };

beforeAll(async () => {
  emu = await startEmulator({ runtime: 'static', seed: 7, rateLimit: 1_000_000, userRateLimit: 1_000_000 });
});
afterAll(async () => {
  await emu?.close();
});
beforeEach(async () => {
  work = await tempDir('hostsync-vanished-');
  for (const name of await readdir(emu.volume)) await rm(path.join(emu.volume, name), { recursive: true, force: true });
});
afterEach(async () => {
  await work.cleanup();
});

/** Binary files spread over folders: one upload step per folder, so the planner picks one archive. */
function project(): Record<string, Buffer> {
  const files: Record<string, Buffer> = {};
  for (let d = 0; d < 6; d++) for (let i = 0; i < 10; i++) files[`kept${d}/f${i}.bin`] = Buffer.from([0, d, i, 255]);
  for (let i = 0; i < 30; i++) files[`gone/sub${i % 3}/g${i}.bin`] = Buffer.from([0, 9, i, 254]);
  return files;
}

describe('a folder that vanishes during an archive push (review 7)', () => {
  it('removed between the scan and the archive: the rest lands, the app is applied, the vanished files are left out', async () => {
    await writeTree(work.dir, project());
    const { report, stats } = await pushOnce(emu, work.dir, {
      noApply: false,
      onProgress: (e) => {
        // After the scan, before the remote read and the archive build.
        if (e.phase === 'index') void rm(path.join(work.dir, 'gone'), { recursive: true, force: true });
      },
    });
    expect(report.plan.steps.map((s) => s.op)).toContain('archive');
    expect(report.failures).toEqual([]);
    expect(report.apply).not.toBeNull();
    expect(report.leftOut).toHaveLength(30);
    expect(report.leftOut.every((p) => p.startsWith('gone/'))).toBe(true);
    expect(report.counts.written).toBe(60);
    expect(report.warnings).toEqual([expect.stringMatching(/^30 files disappeared locally during the push \(gone\/sub0\/g0\.bin, .*\+25 more\)/)]);
    // One archive: uploadUrl + upload + decompress, not three rounds of them.
    expect(stats.byOperation['files.upload']).toBe(1);
    expect(stats.outcomeUnknown).toBe(0);
    expect(await fileDigests(emu.volume, (r) => r === '.hostsync')).toEqual(await fileDigests(work.dir, (r) => r === '.hostsync'));
  });
});

describe('a folder that vanishes while the archive streams (review 7)', () => {
  it('the archive that met the missing files is sent again without them, once', async () => {
    await writeTree(work.dir, project());
    const config = await loadConfig({ flags: { dir: work.dir }, env: envFor(emu) });
    const session = await openSession(config);
    try {
      const files = session.client.files as { uploadArchive: typeof session.client.files.uploadArchive };
      const real = files.uploadArchive;
      let calls = 0;
      // The folder goes after the executor's last look and before tar reaches it: the
      // first archive is built from a list that names files no longer there.
      files.uploadArchive = async (root, relPaths, dir, name) => {
        if (calls++ === 0) await rm(path.join(work.dir, 'gone'), { recursive: true, force: true });
        return real(root, relPaths, dir, name);
      };
      const report = await push(session, { noApply: false });
      expect(report.failures).toEqual([]);
      expect(report.apply).not.toBeNull();
      expect(report.leftOut).toHaveLength(30);
      expect(report.counts.written).toBe(60);
      expect(calls).toBe(2);
      expect(await fileDigests(emu.volume, (r) => r === '.hostsync')).toEqual(await fileDigests(work.dir, (r) => r === '.hostsync'));
    } finally {
      await session.close();
    }
  });
});
