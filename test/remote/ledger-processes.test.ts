/**
 * Two processes with the same key against one emulator at a shortened window: each
 * hands its client twice the window's budget at once. With the shared ledger they
 * meet zero 429s together (each alone only sees the other through
 * X-RateLimit-Remaining, one answer late; bench/ratelimit/shared.mjs shows the 429s
 * that costs).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startEmulator } from '../../src/emulator/index.js';

const CHILD = fileURLToPath(new URL('../helpers/budget-child.mjs', import.meta.url));
const LIMIT = 20;
const WINDOW_S = 2;
const PER_PROCESS = 40;

const cleanups: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

interface ChildReport {
  total: number;
  rateLimited: number;
  failures: string[];
}

function spend(baseUrl: string, deployment: string, apiKey: string, cacheDir: string, startAt: number): Promise<ChildReport> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      [CHILD, baseUrl, deployment, String(PER_PROCESS), String(LIMIT), String(WINDOW_S * 1000), String(startAt), 'ledger'],
      { env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', HOSTSYNC_API_KEY: apiKey, HOSTSYNC_CACHE_DIR: cacheDir }, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let out = '';
    let err = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (err += d));
    child.on('error', reject);
    child.on('exit', (code) => (code === 0 ? resolve(JSON.parse(out) as ChildReport) : reject(new Error(`child exited ${code}: ${err}`))));
  });
}

describe('one budget per key across processes', () => {
  it('two processes with the same key get zero 429s together', async () => {
    const emu = await startEmulator({ runtime: 'static', rateLimit: LIMIT, rateWindowSeconds: WINDOW_S });
    cleanups.push(() => emu.close());
    const cacheDir = await mkdtemp(join(tmpdir(), 'hostsync-ledger-procs-'));
    cleanups.push(() => rm(cacheDir, { recursive: true, force: true }));
    // Both start at the same wall-clock instant, after both have loaded.
    const startAt = Date.now() + 1_000;
    const reports = await Promise.all([1, 2].map(() => spend(emu.baseUrl, emu.deploymentId, emu.apiKey, cacheDir, startAt)));

    expect(reports.map((r) => r.failures)).toEqual([[], []]);
    expect(reports.map((r) => r.rateLimited)).toEqual([0, 0]);
    expect(emu.stats().rateLimited).toBe(0);
    expect(emu.stats().requests.total).toBe(2 * PER_PROCESS);
    // The ledger lives where HOSTSYNC_CACHE_DIR says, and holds no key.
    const files = await readdir(join(cacheDir, 'budget'));
    expect(files.filter((f) => f.endsWith('.json'))).toHaveLength(1);
    expect(await readFile(join(cacheDir, 'budget', files.find((f) => f.endsWith('.json'))!), 'utf8')).not.toContain(emu.apiKey);
  });
});
