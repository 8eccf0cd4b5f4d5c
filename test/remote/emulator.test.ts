/**
 * The client against the emulator: pacing under the real sliding window, forced
 * 429s, 5xx and dropped connections, a 200 MB streamed upload, and key hygiene.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { mkdtemp, open, readFile, rm, stat, writeFile, chmod, mkdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { startEmulator } from '../../src/emulator/index.js';
import { HostingClient, type ClientOptions } from '../../src/remote/client.js';
import { ApiError, OutcomeUnknownError } from '../../src/remote/errors.js';

/** For tests about faults, not pacing: the emulator's limit is lifted, and so is the client's. */
const UNLIMITED = { requests: 100_000, windowMs: 60_000 };
type Emu = Awaited<ReturnType<typeof startEmulator>>;
const cleanups: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function setup(emuOpts: Parameters<typeof startEmulator>[0], clientOpts: Partial<ClientOptions> = {}) {
  const emu = await startEmulator(emuOpts);
  cleanups.push(() => emu.close());
  const client = new HostingClient({ baseUrl: emu.baseUrl, apiKey: emu.apiKey, deploymentId: emu.deploymentId, ...clientOpts });
  cleanups.push(() => client.close());
  return { emu, client };
}

async function tmp(): Promise<string> {
  const d = await mkdtemp(join(tmpdir(), 'hostsync-remote-emu-'));
  cleanups.push(() => rm(d, { recursive: true, force: true }));
  return d;
}

async function seedFiles(emu: Emu, n: number): Promise<string[]> {
  const names = Array.from({ length: n }, (_, i) => `seed/f${i}.txt`);
  await mkdir(join(emu.volume, 'seed'), { recursive: true });
  for (const name of names) await writeFile(join(emu.volume, name), `content of ${name}\n`);
  return names;
}

describe('pacing against the emulator', () => {
  it('400 requests at 120 per 3 s window meet zero 429s', async () => {
    const { emu, client } = await setup({ rateLimit: 120, rateWindowSeconds: 3 }, { rateLimit: { requests: 120, windowMs: 3000 } });
    const names = await seedFiles(emu, 10);
    // All 400 handed to the client at once: the queue alone keeps them inside the limit.
    const calls = Array.from({ length: 400 }, (_, i) => {
      const name = names[i % names.length]!;
      switch (i % 4) {
        case 0: return client.files.read(name);
        case 1: return client.files.list('seed');
        case 2: return client.files.write(`out/w${i % 20}.txt`, `v${i}`);
        default: return client.files.index({ path: 'seed' });
      }
    });
    const results = await Promise.allSettled(calls);
    expect(results.filter((r) => r.status === 'rejected')).toEqual([]);
    const mine = client.stats();
    const theirs = emu.stats();
    expect(mine.rateLimited).toBe(0);
    expect(theirs.rateLimited).toBe(0);
    expect(mine.total).toBe(400);
    expect(theirs.requests.total).toBe(400);
    expect(mine.byOperation).toEqual(theirs.requests.byOperation);
    // No pacedMs > 0 here: on a loaded machine the emulator serves fewer than 40 a second and
    // the queue never needs to wait. That it waits when it must is queue.test.ts's (fake clock).
  });

  it('with forced 429s every request still succeeds after Retry-After', async () => {
    const { emu, client } = await setup(
      { rateLimit: 100_000, userRateLimit: 100_000, faults: '429=0.1', seed: 7 },
      { rateLimit: UNLIMITED },
    );
    const names = await seedFiles(emu, 5);
    const results = await Promise.allSettled(Array.from({ length: 40 }, (_, i) => client.files.read(names[i % 5]!)));
    expect(results.filter((r) => r.status === 'rejected')).toEqual([]);
    const mine = client.stats();
    expect(mine.rateLimited).toBeGreaterThan(0);
    expect(mine.rateLimited).toBe(emu.stats().rateLimited);
    expect(mine.total).toBe(40 + mine.rateLimited);
    // Every 429 said "Retry-After: 1": the whole queue waited at least that long.
    expect(mine.waitedMs).toBeGreaterThanOrEqual(1000);
  });
});

describe('faults', () => {
  it('with 10% 5xx and 5% dropped connections every idempotent call succeeds', async () => {
    const { emu, client } = await setup(
      { rateLimit: 100_000, userRateLimit: 100_000, faults: '5xx=0.1,reset=0.05', seed: 11 },
      { retry: { baseDelayMs: 20, maxDelayMs: 200 }, rateLimit: UNLIMITED },
    );
    const names = await seedFiles(emu, 8);
    // Sequential, so the seeded fault sequence meets the same calls on every run.
    for (let i = 0; i < 160; i++) {
      const name = names[i % names.length]!;
      switch (i % 5) {
        case 0: await client.files.read(name); break;
        case 1: await client.files.index({ path: 'seed' }); break;
        case 2: await client.files.writeMany([{ path: `out/a${i % 7}.txt`, content: `x${i}` }]); break;
        case 3: await client.files.write(`out/b${i % 7}.txt`, `y${i}`); break;
        default: await client.files.chmod(name, '0644'); break;
      }
    }
    const st = client.stats();
    console.log(`160 idempotent calls under faults: ${st.retries} retries, ${st.total} requests`);
    expect(st.retries).toBeGreaterThan(10);
    expect(st.total).toBe(160 + st.retries);
    expect(emu.stats().requests.total).toBe(st.total);
  });

  it('a move whose connection dropped surfaces as outcome-unknown, sent exactly once', async () => {
    const { emu, client } = await setup({ rateLimit: 100_000, userRateLimit: 100_000, seed: 3 });
    await seedFiles(emu, 2);
    emu.setFaults('reset=1');
    const e = await client.files.move(['seed/f0.txt'], 'moved').catch((x: unknown) => x);
    emu.setFaults('');
    expect(e).toBeInstanceOf(OutcomeUnknownError);
    expect((e as ApiError).operation).toBe('files.move');
    expect((e as ApiError).status).toBe(0);
    expect(emu.stats().requests.byOperation['files.move']).toBe(1);
    expect(client.stats().outcomeUnknown).toBe(1);
    // The engine's next step: re-read the remote. The client still works.
    const idx = await client.files.index({});
    expect(idx.entries.some((x) => x.path.endsWith('f0.txt'))).toBe(true);
  });
});

describe('transfers against the emulator', () => {
  /** Peak RSS growth (MB) while `work` runs, sampled every 10 ms. */
  async function rssGrowthDuring(work: () => Promise<unknown>): Promise<number> {
    const base = process.memoryUsage().rss;
    let peak = base;
    const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 10);
    try {
      await work();
    } finally {
      clearInterval(sampler);
    }
    peak = Math.max(peak, process.memoryUsage().rss);
    return (peak - base) / 2 ** 20;
  }

  async function sparseFile(size: number): Promise<{ dir: string; path: string }> {
    const dir = await tmp();
    const path = join(dir, 'big.bin');
    const fh = await open(path, 'w');
    await fh.truncate(size); // sparse: 200 MB of zeros without writing them
    await fh.close();
    return { dir, path };
  }

  const SIZE = 200 * 1024 * 1024;

  it('a 200 MB file uploads with peak RSS growth under 100 MB', async () => {
    const { emu, client } = await setup({ uploadMaxBytes: 300 * 1024 * 1024 });
    const big = await sparseFile(SIZE);
    // Warm-up: one small upload first, so one-time costs (connection, parser, allocator
    // arenas on both sides of this in-process emulator) are not counted as the big file's.
    const small = await sparseFile(1024 * 1024);
    await client.files.upload('warmup', [{ name: 'small.bin', localPath: small.path, size: 1024 * 1024 }]);
    const growthMB = await rssGrowthDuring(() => client.files.upload('uploads', [{ name: 'big.bin', localPath: big.path, size: SIZE }]));
    console.log(`200 MB upload: peak RSS growth ${growthMB.toFixed(1)} MB`);
    expect((await stat(join(emu.volume, 'uploads', 'big.bin'))).size).toBe(SIZE);
    expect(growthMB).toBeLessThan(100);
  });

  it('a tar.gz of a 200 MB file streams into the upload with peak RSS growth under 100 MB', async () => {
    const { emu, client } = await setup({ uploadMaxBytes: 300 * 1024 * 1024 });
    const big = await sparseFile(SIZE);
    let res: { path: string; bytes: number } | undefined;
    const growthMB = await rssGrowthDuring(async () => (res = await client.files.uploadArchive(big.dir, ['big.bin'], 'in', 'a.tar.gz')));
    console.log(`200 MB archive upload: ${res!.bytes} bytes sent, peak RSS growth ${growthMB.toFixed(1)} MB`);
    expect(res!.path).toBe('in/a.tar.gz');
    expect((await stat(join(emu.volume, 'in', 'a.tar.gz'))).size).toBe(res!.bytes);
    expect(growthMB).toBeLessThan(100);
  });

  it('uploadArchive + decompress lands the files with their executable bit', async () => {
    const { emu, client } = await setup({});
    const d = await tmp();
    await mkdir(join(d, 'bin'), { recursive: true });
    await writeFile(join(d, 'bin', 'start.sh'), '#!/bin/sh\nexec node index.js\n');
    await chmod(join(d, 'bin', 'start.sh'), 0o755);
    const rel = ['bin/start.sh'];
    for (let i = 0; i < 30; i++) {
      await writeFile(join(d, `page${i}.html`), `<p>${i}</p>`.repeat(50));
      rel.push(`page${i}.html`);
    }
    const up = await client.files.uploadArchive(d, rel, '', 'hostsync-push.tar.gz');
    expect(up.path).toBe('hostsync-push.tar.gz');
    expect(up.bytes).toBe((await stat(join(emu.volume, up.path))).size);
    const res = await client.files.decompress(up.path, { removeArchive: true });
    expect(res.ok).toBe(true);
    expect(await readFile(join(emu.volume, 'page7.html'), 'utf8')).toBe('<p>7</p>'.repeat(50));
    expect((await stat(join(emu.volume, 'bin', 'start.sh'))).mode & 0o111).not.toBe(0);
  });

  it('download streams a file from its signed URL', async () => {
    const { emu, client } = await setup({});
    const content = Buffer.from(Array.from({ length: 200_000 }, (_, i) => i % 251));
    await writeFile(join(emu.volume, 'data.bin'), content);
    const d = await tmp();
    await client.files.download('data.bin', join(d, 'data.bin'));
    expect((await readFile(join(d, 'data.bin'))).equals(content)).toBe(true);
  });
});

describe('key hygiene', () => {
  it('the key appears in no log line and no error message, whatever fails', async () => {
    const lines: string[] = [];
    const logger = pino({ level: 'debug' }, new Writable({ write: (c, _e, cb) => void (lines.push(String(c)), cb()) }));
    const { emu, client } = await setup(
      { rateLimit: 100_000, userRateLimit: 100_000, faults: '5xx=0.2,reset=0.1,429=0.05', seed: 5 },
      { logger, retry: { maxAttempts: 2, baseDelayMs: 1, maxDelayMs: 5 }, rateLimit: UNLIMITED },
    );
    const errors: unknown[] = [];
    const note = (p: Promise<unknown>) => p.catch((e: unknown) => void errors.push(e));
    for (let i = 0; i < 25; i++) {
      await note(client.files.read(`missing-${i}.txt`));
      await note(client.files.move([`nope-${i}`], 'x'));
    }
    emu.setFaults('');
    const wrongKey = `${emu.apiKey}-revoked`;
    const other = new HostingClient({ baseUrl: emu.baseUrl, apiKey: wrongKey, deploymentId: emu.deploymentId, logger });
    cleanups.push(() => other.close());
    await note(other.account.get());
    const texts = errors.map((e) => {
      const a = e as ApiError;
      return JSON.stringify({ m: a.message, s: a.serverMessage, st: a.stack, c: a.code });
    });
    expect(errors.length).toBeGreaterThan(25);
    expect(errors.some((e) => e instanceof OutcomeUnknownError)).toBe(true);
    expect(errors.some((e) => (e as ApiError).status === 401)).toBe(true);
    expect(lines.length).toBeGreaterThan(50);
    for (const t of [...texts, ...lines]) {
      expect(t).not.toContain(emu.apiKey);
      expect(t).not.toContain(wrongKey);
    }
  });
});
