#!/usr/bin/env node
/**
 * Two processes, one key: each hands its client `--requests` metered calls at once,
 * against one emulator at a shortened window. Run twice on fresh emulators: with the
 * shared budget ledger (hostsync now) and without it (the baseline: each process paces
 * on its own window, corrected only by X-RateLimit-Remaining). Prints 429s met,
 * requests sent and wall time for each.
 *
 * Run after `npm run build`:  node bench/ratelimit/shared.mjs [--requests 120] [--limit 60] [--window 5]
 */
import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { startEmulator } from '../../dist/emulator/index.js';

const CHILD = fileURLToPath(new URL('../../test/helpers/budget-child.mjs', import.meta.url));
const { values } = parseArgs({
  options: {
    requests: { type: 'string', default: '120' },
    limit: { type: 'string', default: '60' },
    window: { type: 'string', default: '5' },
  },
});
const N = Number(values.requests);
const LIMIT = Number(values.limit);
const WINDOW_S = Number(values.window);

function child(emu, cacheDir, startAt, mode) {
  return new Promise((resolve, reject) => {
    const c = spawn(process.execPath, [CHILD, emu.baseUrl, emu.deploymentId, String(N), String(LIMIT), String(WINDOW_S * 1000), String(startAt), mode], {
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', HOSTSYNC_API_KEY: emu.apiKey, HOSTSYNC_CACHE_DIR: cacheDir },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let out = '';
    c.stdout.on('data', (d) => (out += d));
    c.on('error', reject);
    c.on('exit', (code) => (code === 0 ? resolve(JSON.parse(out)) : reject(new Error(`child exited ${code}`))));
  });
}

async function run(mode) {
  const emu = await startEmulator({ runtime: 'static', rateLimit: LIMIT, rateWindowSeconds: WINDOW_S });
  const cacheDir = await mkdtemp(join(tmpdir(), 'hostsync-bench-ledger-'));
  const startAt = Date.now() + 1_000;
  const t0 = performance.now();
  const reports = await Promise.all([child(emu, cacheDir, startAt, mode), child(emu, cacheDir, startAt, mode)]);
  const ms = performance.now() - t0 - 1_000;
  const server = emu.stats();
  await emu.close();
  await rm(cacheDir, { recursive: true, force: true });
  return { mode, ms, reports, server };
}

console.log(`Two processes, one key, ${N} requests each, emulator limit ${LIMIT} per ${WINDOW_S} s window.`);
const rows = [await run('no-ledger'), await run('ledger')];
const names = { 'no-ledger': 'baseline: own window + header', ledger: 'hostsync: shared ledger' };
const ideal = (Math.ceil((2 * N) / LIMIT) - 1) * WINDOW_S;
const table = [
  ['', ...rows.map((r) => names[r.mode])],
  ['429s met (server)', ...rows.map((r) => String(r.server.rateLimited))],
  ['429s per process', ...rows.map((r) => r.reports.map((x) => x.rateLimited).join(' + '))],
  [`requests sent (needed: ${2 * N})`, ...rows.map((r) => String(r.server.requests.total))],
  ['failed calls', ...rows.map((r) => String(r.reports.reduce((s, x) => s + x.failures.length, 0)))],
  [`wall time, both done (least possible ${ideal} s)`, ...rows.map((r) => `${(r.ms / 1000).toFixed(1)} s`)],
];
const widths = table[0].map((_, c) => Math.max(...table.map((row) => row[c].length)));
for (const row of table) console.log(row.map((cell, c) => (c === 0 ? cell.padEnd(widths[c]) : cell.padStart(widths[c]))).join('   '));
