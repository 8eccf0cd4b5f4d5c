/**
 * Review 12, item 13: the node refuses an uploaded file over its upload limit (100 MB by
 * default, DESIGN.md) with 413. A file over it travels compressed when the tar.gz fits, and
 * fails before anything is sent when it does not. The emulator takes a small limit, as a
 * node's upload_limit can be set, so no test writes 100 MB.
 */
import { randomBytes } from 'node:crypto';
import { chmod, readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator, type RunningEmulator } from '../../src/emulator/index.js';
import { createIgnoreMatcher, DEFAULT_IGNORE_PATTERNS } from '../../src/local/ignore.js';
import { scanTree } from '../../src/local/scan.js';
import { HostingClient } from '../../src/remote/client.js';
import { ApiError } from '../../src/remote/errors.js';
import { decide } from '../../src/sync/decide.js';
import { executePlan } from '../../src/sync/execute.js';
import { planChanges } from '../../src/sync/plan.js';
import { archiveBound } from '../../src/sync/archive-bound.js';
import { readRemote } from '../../src/sync/remote-read.js';
import { NODE_UPLOAD_MAX_BYTES } from '../../src/api/limits.js';
import { EMULATOR_UPLOAD_MAX_BYTES } from '../../src/emulator/tunables.js';
import type { Change, Entry, Step } from '../../src/model/types.js';
import { tempDir, writeTree } from '../helpers/tree.js';
import { sized } from './fixtures.js';

const LIMIT = 64 * 1024;
let emu: RunningEmulator;
beforeAll(async () => {
  emu = await startEmulator({ rateLimit: 1_000_000, userRateLimit: 1_000_000, uploadMaxBytes: LIMIT });
});
afterAll(async () => {
  await emu?.close();
});

const matcher = createIgnoreMatcher([...DEFAULT_IGNORE_PATTERNS]);
const show = (s: Step): string => (s.op === 'upload' || s.op === 'archive' || s.op === 'writeMany' ? `${s.op} [${s.files.map((f) => f.path).join(', ')}]` : s.op);

describe('the node upload limit (review 13)', () => {
  it('is the documented 100 MB, one number for the client and the emulator', () => {
    expect(NODE_UPLOAD_MAX_BYTES).toBe(100 * 1024 * 1024);
    expect(EMULATOR_UPLOAD_MAX_BYTES).toBe(NODE_UPLOAD_MAX_BYTES);
  });

  it('the emulator refuses a file over it with 413, as the node does', async () => {
    const dep = await emu.createDeployment({ runtime: 'static' });
    const local = await tempDir('hostsync-limit-');
    const client = new HostingClient({ baseUrl: emu.baseUrl, apiKey: emu.apiKey, deploymentId: dep.id });
    try {
      await writeTree(local.dir, { 'big.bin': Buffer.alloc(LIMIT + 1) });
      const err = await client.files.upload('', [{ name: 'big.bin', localPath: path.join(local.dir, 'big.bin'), size: LIMIT + 1 }]).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(ApiError);
      expect((err as ApiError).status).toBe(413);
    } finally {
      await client.close();
      await local.cleanup();
    }
  });

  it('plans a file over it alone in an archive, never as an upload', () => {
    const bin = (p: string, size: number): Entry => sized(p, 'bin', size, { text: false });
    const create = (e: Entry): Change => ({ kind: 'write', path: e.path, entry: e, create: true });
    const plan = planChanges([create(bin('a/small.bin', 1000)), create(bin('a/big.bin', LIMIT + 1)), create(bin('b/huge.bin', 3 * LIMIT))], new Map(), LIMIT);
    expect(plan.steps.map(show)).toEqual(['upload [a/small.bin]', 'archive [a/big.bin]', 'archive [b/huge.bin]']);
  });

  it('cuts a large change set into archives that each fit, whatever they compress to', () => {
    const bin = (p: string, size: number): Entry => sized(p, 'bin', size, { text: false });
    const files = Array.from({ length: 60 }, (_, i) => bin(`d${i}/f${String(i).padStart(2, '0')}.bin`, 10_000));
    const plan = planChanges(files.map((e) => ({ kind: 'write', path: e.path, entry: e, create: true })), new Map(), LIMIT);
    const archives = plan.steps.filter((s) => s.op === 'archive');
    expect(archives.length).toBeGreaterThan(1);
    expect(plan.steps.every((s) => s.op === 'archive')).toBe(true);
    for (const s of archives) expect(archiveBound(s.files)).toBeLessThanOrEqual(LIMIT);
    expect(archives.flatMap((s) => s.files.map((f) => f.path))).toEqual(files.map((f) => f.path).sort());
    // With the real limit the same change set is one archive, as before.
    expect(planChanges(files.map((e) => ({ kind: 'write', path: e.path, entry: e, create: true })), new Map()).steps.filter((s) => s.op === 'archive')).toHaveLength(1);
  });

  it('sends a file over it compressed when that fits, and fails one that does not before sending it, naming it and its size', async () => {
    const dep = await emu.createDeployment({ runtime: 'static' });
    const local = await tempDir('hostsync-limit-');
    const client = new HostingClient({ baseUrl: emu.baseUrl, apiKey: emu.apiKey, deploymentId: dep.id });
    try {
      const zeros = Buffer.alloc(200 * 1024); // 200 KB, a few hundred bytes as tar.gz
      const noise = randomBytes(100 * 1024); // 100 KB that no compression shrinks
      await writeTree(local.dir, { 'data/zeros.bin': zeros, 'data/noise.bin': noise, 'small.bin': Buffer.from([0, 1, 2]) });
      const remote = await readRemote(client, matcher, null);
      const scan = await scanTree({ root: local.dir, matcher });
      const decision = decide({ base: null, scanned: scan.snapshot, skipped: [], remote, options: { force: false, mirror: false } });
      const plan = planChanges(decision.rec.changes, remote.snapshot, LIMIT);
      expect(plan.steps.map(show)).toEqual(['upload [small.bin]', 'archive [data/noise.bin]', 'archive [data/zeros.bin]']);
      const before = client.stats().byOperation['files.upload'] ?? 0;
      const r = await executePlan(plan, { client, root: local.dir, remote: remote.snapshot, uploadMaxBytes: LIMIT });
      expect(r.failures).toEqual([
        { path: 'data/noise.bin', permanent: true, error: "data/noise.bin is 100 KB, over the node's 64 KB upload limit, and still over it compressed: not sent (split it, or list it in .syncignore)" },
      ]);
      expect(r.written).toBe(2);
      // Two transfers (small.bin, the zeros' archive); the noise never left the machine.
      expect((client.stats().byOperation['files.upload'] ?? 0) - before).toBe(2);
      expect(await readFile(path.join(dep.volume, 'data/zeros.bin'))).toEqual(zeros);
      expect(await readFile(path.join(dep.volume, 'small.bin'))).toEqual(Buffer.from([0, 1, 2]));
      await expect(readFile(path.join(dep.volume, 'data/noise.bin'))).rejects.toThrow(/ENOENT/);
      // No archive left behind on the deployment.
      const left = (await readRemote(client, matcher, null)).leftovers;
      expect(left).toEqual([]);
    } finally {
      await client.close();
      await local.cleanup();
    }
  });

  it('a file within it that its archive framing pushes over goes by plain upload, keeping its executable bit', async () => {
    const dep = await emu.createDeployment({ runtime: 'static' });
    const local = await tempDir('hostsync-limit-');
    const client = new HostingClient({ baseUrl: emu.baseUrl, apiKey: emu.apiKey, deploymentId: dep.id });
    try {
      const noise = randomBytes(LIMIT - 100); // uploadable as it is; as a tar.gz, over the limit
      const files: Record<string, Buffer> = { 'bin/tool': noise };
      for (let i = 0; i < 60; i++) files[`d${i}/f.bin`] = Buffer.from([0, i]);
      await writeTree(local.dir, files);
      await chmod(path.join(local.dir, 'bin/tool'), 0o755);
      const remote = await readRemote(client, matcher, null);
      const scan = await scanTree({ root: local.dir, matcher });
      const decision = decide({ base: null, scanned: scan.snapshot, skipped: [], remote, options: { force: false, mirror: false } });
      const plan = planChanges(decision.rec.changes, remote.snapshot, LIMIT);
      expect(plan.steps.filter((st) => st.op === 'archive').map(show)).toContain('archive [bin/tool]');
      const r = await executePlan(plan, { client, root: local.dir, remote: remote.snapshot, uploadMaxBytes: LIMIT });
      expect(r.failures).toEqual([]);
      expect(r.written).toBe(61);
      expect(await readFile(path.join(dep.volume, 'bin/tool'))).toEqual(noise);
      expect((await stat(path.join(dep.volume, 'bin/tool'))).mode & 0o111).not.toBe(0);
      expect(await readFile(path.join(dep.volume, 'd59/f.bin'))).toEqual(Buffer.from([0, 59]));
    } finally {
      await client.close();
      await local.cleanup();
    }
  });
});
