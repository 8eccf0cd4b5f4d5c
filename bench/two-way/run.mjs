#!/usr/bin/env node
/**
 * Two-way benchmark (GitHub issue 13): what `diff` and `pull` cost when ONE file changed
 * on the deployment of a large tree. Prints figures, asserts nothing about speed.
 *
 *   npm run build && node bench/two-way/run.mjs [--files 100000] [--window 2] [--latency 0] [--dir /dev/shm]
 *
 * The tree (--files small text files in 100 folders) is written both locally and on the
 * emulator's volume, and a first push adopts it (equal files cost no transfer). Then one
 * file is edited on the volume, and each contender runs against that, each as its own
 * process under /usr/bin/time (wall, user+sys CPU, peak RSS: what a user waits for):
 *   - hostsync diff PATH / pull PATH (named: one scoped files.index per path);
 *   - hostsync diff / pull of the whole tree (the index read, which at this size the
 *     service answers `truncated` and hostsync completes folder by folder);
 *   - the next push (should be the one-request no-op);
 *   - baseline "naive" (naive.mjs): what a client without an index would do to find the
 *     change: files.list of the tree is skipped (free here), and every file is read with
 *     files.readMany in 120 000-byte batches and compared with the local bytes.
 * Request counts come from each command's --json `requests`.
 * The emulator runs the real budget (120 requests per key) over a shortened sliding
 * window (--window seconds), so the naive baseline finishes in reasonable time.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { startEmulator } from '../../dist/emulator/index.js';
import { push } from '../../dist/app/push.js';
import { RATE_LIMIT_REQUESTS } from '../../dist/api/limits.js';
import { DIRS, content, rel } from './tree.mjs';
import { requireTime, timed as timedProcess } from '../lib/timed.mjs';

const { values: args } = parseArgs({
  options: {
    files: { type: 'string', default: '100000' },
    window: { type: 'string', default: '2' },
    latency: { type: 'string', default: '0' },
    dir: { type: 'string', default: os.tmpdir() },
  },
});
const FILES = Number(args.files);
const WINDOW_S = Number(args.window);
const LATENCY_MS = Number(args.latency);
const log = (msg) => process.stderr.write(`${msg}\n`);
const CLI = new URL('../../dist/bin/hostsync.js', import.meta.url).pathname;
const NAIVE = new URL('./naive.mjs', import.meta.url).pathname;
requireTime();

const root = fs.mkdtempSync(path.join(args.dir, 'hostsync-bench-two-way-'));
const timeOut = `${root}.time`;
/** `node argv` as its own process; the CLI gets the same cache folder (the budget ledger) as this process. */
const timed = (argv, env) =>
  timedProcess(process.execPath, argv, {
    cwd: root,
    env: { ...(process.env.HOSTSYNC_CACHE_DIR ? { HOSTSYNC_CACHE_DIR: process.env.HOSTSYNC_CACHE_DIR } : {}), ...env },
    timeFile: timeOut,
  });
const load = () => fs.readFileSync('/proc/loadavg', 'utf8').split(' ')[0];
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

  const env = { HOSTSYNC_API_KEY: emu.apiKey, HOSTSYNC_BASE_URL: emu.baseUrl, HOSTSYNC_DEPLOYMENT: emu.deploymentId };
  const rows = [];
  /** One command as a whole process, with the requests its --json output counts. */
  const run = async (name, argv, note, okCodes = [0]) => {
    const load0 = load();
    const r = await timed(argv, env);
    if (!okCodes.includes(r.code)) throw new Error(`${name} exited ${r.code}: ${r.err.slice(0, 500)}`);
    const out = JSON.parse(r.out.trim().split('\n').at(-1));
    const requests = out.requests;
    rows.push({ name, requests: requests.total, byOperation: requests.byOperation ?? {}, r, load: load0, note: note(out) });
    return out;
  };
  const cli = (...a) => [CLI, ...a, '--json', '--dir', root];
  await run(`diff ${changed}`, cli('diff', changed), (o) => `${o.files.length} file(s) differ`);
  await run('diff (whole tree)', cli('diff'), (o) => `${o.files.length} file(s) differ`);
  await run(`pull ${changed} --dry-run`, cli('pull', changed, '--dry-run'), (o) => `would fetch ${o.fetched.length}`);
  await run('pull (whole tree)', cli('pull'), (o) => `fetched ${o.fetched.join(', ')}`);
  if (fs.readFileSync(path.join(root, changed), 'utf8') !== 'edited on the deployment\n') throw new Error('pull did not bring the edit');
  await run('push after the pull', cli('push', '--no-apply'), (o) => `${o.planned?.length ?? 0} planned`);

  // Baseline: read everything and compare.
  fs.writeFileSync(path.join(emu.volume, changed), 'edited again on the deployment\n');
  await run('baseline: naive readMany of every file', [NAIVE, root, String(FILES), String(WINDOW_S)], (o) => `found ${o.differs.join(', ')}`);

  console.log(`two-way bench: ${FILES} files in ${DIRS} folders, one file edited on the deployment (emulator, ${RATE_LIMIT_REQUESTS} requests per ${WINDOW_S} s window, ${LATENCY_MS} ms latency)\n`);
  console.log(['command (whole process)', 'requests', 'by operation', 'wall', 'CPU', 'peak RSS', 'load avg', 'result'].join(' | '));
  for (const r of rows) {
    const ops = Object.entries(r.byOperation).map(([k, v]) => `${k} ${v}`).join(', ');
    console.log([r.name, String(r.requests), ops, `${r.r.wall.toFixed(2)} s`, `${r.r.cpu.toFixed(2)} s`, `${r.r.rssMb.toFixed(0)} MB`, r.load, r.note].join(' | '));
  }
} finally {
  await emu.close();
  fs.rmSync(root, { recursive: true, force: true });
  fs.rmSync(timeOut, { force: true });
}
