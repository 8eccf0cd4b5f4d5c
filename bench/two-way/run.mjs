#!/usr/bin/env node
/**
 * Two-way benchmark (GitHub issue 13): what `diff` and `pull` cost when ONE file changed
 * on the deployment of a large tree. Prints figures, asserts nothing about speed.
 *
 *   npm run build && node bench/two-way/run.mjs [--files 100000] [--window 2] [--latency 0]
 *
 * The tree (--files small text files in 100 folders) is written both locally and on the
 * emulator's volume, and a first push adopts it (equal files cost no transfer). Then one
 * file is edited on the volume, and each contender runs against that:
 *   - hostsync diff PATH / pull PATH (named: one scoped files.index per path);
 *   - hostsync diff / pull of the whole tree (the index read, which at this size the
 *     service answers `truncated` and hostsync completes folder by folder);
 *   - the next push (should be the one-request no-op);
 *   - baseline "naive": what a client without an index would do to find the change:
 *     files.list of the tree is skipped (free here), and every file is read with
 *     files.readMany in 120 000-byte batches and compared with the local bytes.
 * The emulator runs the real budget (120 requests per key) over a shortened sliding
 * window (--window seconds), so the naive baseline finishes in reasonable time.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { startEmulator } from '../../dist/emulator/index.js';
import { HostingClient } from '../../dist/remote/client.js';
import { push } from '../../dist/app/push.js';
import { pull } from '../../dist/app/pull.js';
import { diff } from '../../dist/app/diff.js';
import { RATE_LIMIT_REQUESTS } from '../../dist/api/limits.js';

const { values: args } = parseArgs({
  options: {
    files: { type: 'string', default: '100000' },
    window: { type: 'string', default: '2' },
    latency: { type: 'string', default: '0' },
  },
});
const FILES = Number(args.files);
const WINDOW_S = Number(args.window);
const LATENCY_MS = Number(args.latency);
const DIRS = 100;
const log = (msg) => process.stderr.write(`${msg}\n`);
const rel = (i) => `d${String(i % DIRS).padStart(3, '0')}/f${i}.txt`;
const content = (i) => `file ${i}\n${'x'.repeat(100 + (i % 200))}\n`;

const root = fs.mkdtempSync(path.join(os.tmpdir(), 'hostsync-bench-two-way-'));
const emu = await startEmulator({ rateLimit: RATE_LIMIT_REQUESTS, rateWindowSeconds: WINDOW_S, latencyMs: LATENCY_MS });
try {
  let t = performance.now();
  for (let d = 0; d < DIRS; d++) {
    const name = `d${String(d).padStart(3, '0')}`;
    fs.mkdirSync(path.join(root, name), { recursive: true });
    fs.mkdirSync(path.join(emu.volume, name), { recursive: true });
  }
  for (let i = 0; i < FILES; i++) {
    fs.writeFileSync(path.join(root, rel(i)), content(i));
    fs.writeFileSync(path.join(emu.volume, rel(i)), content(i));
  }
  log(`wrote ${FILES} files twice in ${((performance.now() - t) / 1000).toFixed(1)} s`);
  const opts = { dir: root, baseUrl: emu.baseUrl, apiKey: emu.apiKey, deployment: emu.deploymentId, env: {} };
  t = performance.now();
  const first = await push({ ...opts, apply: false });
  if (!first.ok) throw new Error(`first push: ${first.error}`);
  log(`first push (adopts the equal tree): ${first.requests.total} requests, ${((performance.now() - t) / 1000).toFixed(1)} s`);

  const changed = rel(Math.floor(FILES / 2));
  fs.writeFileSync(path.join(emu.volume, changed), 'edited on the deployment\n');

  const rows = [];
  const run = async (name, fn) => {
    const started = performance.now();
    const r = await fn();
    const ms = performance.now() - started;
    if (r.ok === false) throw new Error(`${name}: ${r.error}`);
    rows.push({ name, requests: r.requests.total, byOperation: r.requests.byOperation, ms, note: r.note ?? '' });
    return r;
  };
  await run(`diff ${changed}`, async () => {
    const r = await diff({ ...opts, paths: [changed], cwd: root });
    return { ...r, note: `${r.files.length} file(s) differ` };
  });
  await run('diff (whole tree)', async () => {
    const r = await diff({ ...opts, cwd: root });
    return { ...r, note: `${r.files.length} file(s) differ` };
  });
  await run(`pull ${changed} --dry-run`, async () => {
    const r = await pull({ ...opts, paths: [changed], cwd: root, dryRun: true });
    return { ...r, note: `would fetch ${r.fetched.length}` };
  });
  await run('pull (whole tree)', async () => {
    const r = await pull({ ...opts, cwd: root });
    return { ...r, note: `fetched ${r.fetched.join(', ')}` };
  });
  if (fs.readFileSync(path.join(root, changed), 'utf8') !== 'edited on the deployment\n') throw new Error('pull did not bring the edit');
  await run('push after the pull', async () => {
    const r = await push({ ...opts, apply: false });
    return { ...r, note: `${r.planned.length} planned` };
  });

  // Baseline: read everything and compare.
  fs.writeFileSync(path.join(emu.volume, changed), 'edited again on the deployment\n');
  const client = new HostingClient({ baseUrl: emu.baseUrl, apiKey: emu.apiKey, deploymentId: emu.deploymentId, rateLimit: { requests: RATE_LIMIT_REQUESTS, windowMs: WINDOW_S * 1000 } });
  await run('baseline: naive readMany of every file', async () => {
    const budget = 120_000;
    let batch = [];
    let bytes = 0;
    const differs = [];
    const flush = async () => {
      if (batch.length === 0) return;
      const res = await client.files.readMany(batch.map((p) => `/${p}`), budget);
      for (const f of res.files) {
        const p = f.path.replace(/^\/+/, '');
        if (f.content !== fs.readFileSync(path.join(root, p), 'utf8')) differs.push(p);
      }
      batch = [];
      bytes = 0;
    };
    for (let i = 0; i < FILES; i++) {
      const size = Buffer.byteLength(content(i));
      if (bytes + size > budget * 0.9) await flush();
      batch.push(rel(i));
      bytes += size;
    }
    await flush();
    return { requests: client.stats(), note: `found ${differs.join(', ')}` };
  });
  await client.close();

  console.log(`two-way bench: ${FILES} files in ${DIRS} folders, one file edited on the deployment (emulator, ${RATE_LIMIT_REQUESTS} requests per ${WINDOW_S} s window, ${LATENCY_MS} ms latency)\n`);
  console.log(['command', 'requests', 'by operation', 'time', 'result'].join(' | '));
  for (const r of rows) {
    const ops = Object.entries(r.byOperation).map(([k, v]) => `${k} ${v}`).join(', ');
    console.log([r.name, String(r.requests), ops, `${(r.ms / 1000).toFixed(2)} s`, r.note].join(' | '));
  }
} finally {
  await emu.close();
  fs.rmSync(root, { recursive: true, force: true });
}
