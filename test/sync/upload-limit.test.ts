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
import { decide } from '../../src/sync/core/decide.js';
import { executePlan } from '../../src/sync/push/execute.js';
import { archivePartsAtWorst, planChanges } from '../../src/sync/core/plan.js';
import { partFits } from '../../src/sync/core/archive-bound.js';
import { readRemote } from '../../src/sync/remote-read/remote-read.js';
import { NODE_UPLOAD_MAX_BYTES } from '../../src/api/limits.js';
import { EMULATOR_UPLOAD_MAX_BYTES } from '../../src/emulator/tunables.js';
import type { Change, Entry, Step } from '../../src/model/types.js';
import { fileDigests, tempDir, writeTree } from '../helpers/tree.js';
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

  it('plans a change set past one part at worst as ONE archive step, costed at the parts it needs at worst', () => {
    const bin = (p: string, size: number): Entry => sized(p, 'bin', size, { text: false });
    const files = Array.from({ length: 60 }, (_, i) => bin(`d${i}/f${String(i).padStart(2, '0')}.bin`, 10_000));
    const plan = planChanges(files.map((e) => ({ kind: 'write', path: e.path, entry: e, create: true })), new Map(), LIMIT);
    expect(plan.steps.map((s) => s.op)).toEqual(['archive']);
    expect(plan.steps[0]!.op === 'archive' && plan.steps[0].files.map((f) => f.path)).toEqual(files.map((f) => f.path).sort());
    // 60 x 10,752 tar bytes; at most 5 entries per 64 KiB part at worst: 12 parts.
    const worst = archivePartsAtWorst(files, LIMIT);
    expect(worst).toBe(12);
    expect(plan.requests).toBe(2 * worst);
    expect(plan.nodeRequests).toBe(worst);
    // With the real limit the same change set is one part at worst too.
    const real = planChanges(files.map((e) => ({ kind: 'write', path: e.path, entry: e, create: true })), new Map());
    expect([real.steps.length, real.requests, real.nodeRequests]).toEqual([1, 2, 1]);
  });

  it.each([
    // limit, flushed, tar bytes, margin: fits? (the bound counts tar's end padded to a 10 KiB record)
    [LIMIT, 0, 0, 0, true],
    [LIMIT, 0, LIMIT, 0, false], // incompressible data the size of the limit: framing pushes it over
    [LIMIT, 0, 40 * 1024, 0, true],
    [LIMIT, 50 * 1024, 1024, 0, true], // 51,200 flushed + 10,267 at worst
    [LIMIT, 56 * 1024, 1024, 0, false],
    [LIMIT, 50 * 1024, 1024, 4000, true],
    [LIMIT, 50 * 1024, 1024, 4096, false],
  ])('partFits(%i, flushed %i, %i more tar bytes, margin %i) is %s', (limit, flushed, tarBytes, margin, fits) => {
    expect(partFits(limit, flushed, tarBytes, margin)).toBe(fits);
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

  /** Pushes `files` through the planner and executor against the LIMIT emulator (or `on`, whose limit is `limit`); returns the parts sent (bytes, files) and the decompress count. */
  async function pushParts(files: Record<string, Buffer>, limit = LIMIT, on = emu): Promise<{ parts: Array<{ bytes: number; files: number }>; decompress: number; failures: unknown[]; written: number; volume: string; local: string; done: () => Promise<void> }> {
    const dep = await on.createDeployment({ runtime: 'static' });
    const local = await tempDir('hostsync-limit-');
    const client = new HostingClient({ baseUrl: on.baseUrl, apiKey: on.apiKey, deploymentId: dep.id });
    await writeTree(local.dir, files);
    const remote = await readRemote(client, matcher, null);
    const scan = await scanTree({ root: local.dir, matcher });
    const decision = decide({ base: null, scanned: scan.snapshot, skipped: [], remote, options: { force: false, mirror: false } });
    const plan = planChanges(decision.rec.changes, remote.snapshot, limit);
    expect(plan.steps.map((s) => s.op)).toEqual(['archive']);
    const parts: Array<{ bytes: number; files: number }> = [];
    const real = client.files.uploadArchive;
    (client.files as { uploadArchive: typeof real }).uploadArchive = async (...args) => {
      const res = await real(...args);
      parts.push({ bytes: res.bytes, files: res.files });
      return res;
    };
    const before = client.stats().byOperation['files.decompress'] ?? 0;
    const r = await executePlan(plan, { client, root: local.dir, remote: remote.snapshot, uploadMaxBytes: limit, recheck: async () => ({ snapshot: remote.snapshot, symlinks: [] }), fresh: true });
    const decompress = (client.stats().byOperation['files.decompress'] ?? 0) - before;
    return {
      parts, decompress, failures: r.failures, written: r.written, volume: dep.volume, local: local.dir,
      done: async () => {
        await client.close();
        await local.cleanup();
      },
    };
  }

  it('cuts incompressible files (random bytes) into parts that each stay under it, by the worst case', async () => {
    const files: Record<string, Buffer> = {};
    for (let i = 0; i < 60; i++) files[`d${i}/f${String(i).padStart(2, '0')}.bin`] = randomBytes(10_000);
    const run = await pushParts(files);
    try {
      expect(run.failures).toEqual([]);
      expect(run.written).toBe(60);
      // 600 KB that do not compress: at least ceil(600 KB / 64 KiB) = 10 parts, each under the limit.
      expect(run.parts.length).toBeGreaterThanOrEqual(10);
      for (const p of run.parts) expect(p.bytes).toBeLessThanOrEqual(LIMIT);
      expect(run.parts.reduce((n, p) => n + p.files, 0)).toBe(60);
      expect(run.decompress).toBe(run.parts.length);
      expect(await fileDigests(run.volume, (r) => r === '.hostsync')).toEqual(await fileDigests(run.local, (r) => r === '.hostsync'));
    } finally {
      await run.done();
    }
  });

  it('never sends more parts than the plan counted at worst, on random bytes at a limit where the margin decides', async () => {
    // At 1 MiB the executor's 1% margin (10 KiB) is what cuts: 50 files (an archive) of
    // 103,000 random bytes go in 6 parts, where a planner without the margin counted 5.
    const limit = 1024 * 1024;
    const own = await startEmulator({ rateLimit: 1_000_000, userRateLimit: 1_000_000, uploadMaxBytes: limit });
    const files: Record<string, Buffer> = {};
    for (let i = 0; i < 50; i++) files[`r${i}/f${String(i).padStart(2, '0')}.bin`] = randomBytes(103_000);
    const run = await pushParts(files, limit, own);
    try {
      expect(run.failures).toEqual([]);
      expect(run.written).toBe(50);
      const planned = archivePartsAtWorst(Object.entries(files).map(([p, b]) => sized(p, 'bin', b.length, { text: false })), limit);
      expect(run.parts.length).toBeGreaterThan(1);
      expect(run.parts.length).toBeLessThanOrEqual(planned);
      for (const p of run.parts) expect(p.bytes).toBeLessThanOrEqual(limit);
    } finally {
      await run.done();
      await own.close();
    }
  });

  it('sends compressible files past the worst-case bound as ONE archive, under the limit by its compressed size', async () => {
    const files: Record<string, Buffer> = {};
    const line = Buffer.from('const value = require("./config").value; // the same line again\n');
    // A NUL makes them binary (text would go by writeMany), one folder each (one upload each): an archive is the plan.
    for (let i = 0; i < 60; i++) files[`d${i}/f${String(i).padStart(2, '0')}.dat`] = Buffer.concat([Buffer.from(`\0${String(i).padStart(2, '0')}\n`), Buffer.alloc(10_000 - 4, line)]);
    const run = await pushParts(files);
    try {
      expect(run.failures).toEqual([]);
      expect(run.written).toBe(60);
      // 600 KB, 12 parts at worst: one part of a few KB.
      expect(archivePartsAtWorst(Object.entries(files).map(([p, b]) => sized(p, 'dat', b.length)), LIMIT)).toBe(12);
      expect(run.parts).toEqual([{ bytes: run.parts[0]!.bytes, files: 60 }]);
      expect(run.parts[0]!.bytes).toBeLessThan(LIMIT);
      expect(run.decompress).toBe(1);
      expect(await fileDigests(run.volume, (r) => r === '.hostsync')).toEqual(await fileDigests(run.local, (r) => r === '.hostsync'));
    } finally {
      await run.done();
    }
  });

  it('fills a part with compressible files up to near the limit, flushing to measure, then starts the next', async () => {
    // About 3 MB of text that compresses ~10x: past one 64 KiB part by its compressed size too.
    const files: Record<string, Buffer> = {};
    let seed = 7;
    const words = ['const', 'let', 'value', 'return', 'import', 'from', 'config', 'push', 'remote', 'local', 'index', 'data'];
    const text = (n: number): Buffer => {
      const out: string[] = [];
      let len = 0;
      while (len < n) {
        seed = (seed * 1103515245 + 12345) % 2147483648;
        const w = `${words[seed % words.length]} `;
        out.push(w);
        len += w.length;
      }
      return Buffer.from(out.join('').slice(0, n));
    };
    for (let i = 0; i < 300; i++) files[`src/m${i}/f${String(i).padStart(3, '0')}.dat`] = Buffer.concat([Buffer.from([0]), text(9_999)]);
    const run = await pushParts(files);
    try {
      expect(run.failures).toEqual([]);
      expect(run.written).toBe(300);
      expect(run.parts.length).toBeGreaterThan(1);
      for (const p of run.parts) expect(p.bytes).toBeLessThanOrEqual(LIMIT);
      // Every part but the last is more than half full: cut by compressed size, not by the worst case (5 files a part).
      for (const p of run.parts.slice(0, -1)) expect(p.bytes).toBeGreaterThan(LIMIT / 2);
      expect(run.parts.length).toBeLessThan(archivePartsAtWorst(Object.entries(files).map(([p, b]) => sized(p, 'dat', b.length)), LIMIT) / 4);
      expect(await fileDigests(run.volume, (r) => r === '.hostsync')).toEqual(await fileDigests(run.local, (r) => r === '.hostsync'));
    } finally {
      await run.done();
    }
  });
});
