#!/usr/bin/env node
/**
 * Push benchmark (GitHub issue 4): prints figures, asserts nothing about speed.
 *
 *   npm run build && node bench/push/run.mjs [--files 3000] [--window 2] [--latency 20] [--keep]
 *
 * Two scenarios on a generated web project (tree.mjs): the initial push of the whole
 * tree, then a one-file edit. In each, hostsync's push (the library call the CLI makes,
 * without apply) against a naive client (naive.mjs) that sends one file per request
 * through the same HostingClient, so the same rate-limit pacing. For the edit the naive
 * client either re-sends everything (it has no base to diff against) or, in the "naive
 * (mtime)" row, only the files modified since its last run started.
 *
 * Each contender has its own emulator (in this process, on 127.0.0.1), at the real budget
 * of 120 requests per key but over a shortened sliding window (--window seconds instead of
 * 60), so the naive initial push takes a minute instead of 25. The last column projects
 * every row onto the real 60 s window: a lower bound, since request k of a run cannot go
 * out before floor(k / 120) whole windows have passed.
 *
 * After each run the emulator's volume is compared with the local tree on disk, file by
 * file (no API requests), so every figure is that of a correct push.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { parseArgs } from 'node:util';
import { startEmulator } from '../../dist/emulator/index.js';
import { loadConfig } from '../../dist/config/config.js';
import { openSession } from '../../dist/sync/session.js';
import { push } from '../../dist/sync/push/push.js';
import { HostingClient } from '../../dist/remote/client.js';
import { tarGzStream } from '../../dist/remote/upload.js';
import { MAX_IN_FLIGHT } from '../../dist/remote/tunables.js';
import { RATE_LIMIT_REQUESTS, RATE_LIMIT_WINDOW_MS } from '../../dist/api/limits.js';
import { generateWebProject } from './tree.mjs';
import { listFiles, modifiedSince, naivePush } from './naive.mjs';
import { verifyVolume } from './verify.mjs';

const { values: args } = parseArgs({
  options: {
    files: { type: 'string', default: '3000' },
    window: { type: 'string', default: '2' },
    latency: { type: 'string', default: '20' },
    keep: { type: 'boolean', default: false },
  },
});
const FILES = Number(args.files);
const WINDOW_S = Number(args.window);
const LATENCY_MS = Number(args.latency);
for (const [flag, v, min] of [['--files', FILES, 1], ['--window', WINDOW_S, 1], ['--latency', LATENCY_MS, 0]]) {
  if (!Number.isInteger(v) || v < min) {
    console.error(`${flag} must be a whole number >= ${min}`);
    process.exit(2);
  }
}
const LIMIT = RATE_LIMIT_REQUESTS;
const REAL_WINDOW_MS = RATE_LIMIT_WINDOW_MS;
const rate = { requests: LIMIT, windowMs: WINDOW_S * 1000 };

const log = (msg) => process.stderr.write(`${msg}\n`);
const fmtBytes = (n) => (n >= 1024 * 1024 ? `${(n / 1024 / 1024).toFixed(1)} MB` : n >= 1024 ? `${(n / 1024).toFixed(1)} KB` : `${n} B`);
const fmtTime = (ms) => (ms >= 120_000 ? `${(ms / 60_000).toFixed(1)} min` : `${(ms / 1000).toFixed(2)} s`);

/** Lower bound of a run's wall time at LIMIT per real 60 s window, from its API request count. */
const atRealLimit = (apiRequests, wallMs) => Math.max(wallMs, Math.floor(Math.max(0, apiRequests - 1) / LIMIT) * REAL_WINDOW_MS);

/** Waits until the emulator's (and any client's) window holds none of the previous run's requests. */
const lastUsed = new Map();
async function drained(emu) {
  const wait = (lastUsed.get(emu) ?? 0) + WINDOW_S * 1000 + 250 - performance.now();
  if (wait > 0) await sleep(wait);
}

function row(scenario, contender, emu, stats, bytes, wallMs, extra = {}) {
  const server = emu.stats();
  return {
    scenario,
    contender,
    requests: stats.total,
    uploads: stats.unmetered,
    serverApi: server.requests.total,
    rateLimited: server.rateLimited,
    bytes,
    wallMs,
    pacedMs: stats.pacedMs,
    realMs: atRealLimit(server.requests.total, wallMs),
    byOperation: stats.byOperation,
    ...extra,
  };
}

async function runHostsync(emu, root, scenario) {
  await drained(emu);
  emu.resetStats();
  const config = await loadConfig({
    flags: { dir: root },
    env: { HOSTSYNC_API_KEY: emu.apiKey, HOSTSYNC_BASE_URL: emu.baseUrl, HOSTSYNC_DEPLOYMENT: emu.deploymentId },
  });
  const t0 = performance.now();
  const session = await openSession(config);
  // openSession paces for the real 60 s window; pace for the emulator's window instead,
  // exactly as the naive client does (same budget, same queue).
  await session.client.close();
  const client = new HostingClient({ baseUrl: emu.baseUrl, apiKey: emu.apiKey, deploymentId: emu.deploymentId, rateLimit: rate });
  session.client = client;
  let report;
  try {
    report = await push(session, { noApply: true });
  } finally {
    await client.close();
  }
  const wallMs = performance.now() - t0;
  lastUsed.set(emu, performance.now());
  if (report.failures.length > 0 || report.conflicts.length > 0) {
    throw new Error(`hostsync ${scenario}: ${report.failures.length} failures, ${report.conflicts.length} conflicts: ${JSON.stringify(report.failures.slice(0, 3))}`);
  }
  const steps = {};
  for (const s of report.plan.steps) steps[s.op] = (steps[s.op] ?? 0) + 1;
  const archived = report.plan.steps.filter((s) => s.op === 'archive').flatMap((s) => s.files.map((f) => f.path));
  return row(scenario, 'hostsync', emu, client.stats(), report.plan.bytes, wallMs, {
    sent: report.counts.written, steps, archived: archived.length, archiveBytes: archived.length ? await archiveSize(root, archived) : 0,
  });
}

/** What the client's tar.gz of these files weighs: rebuilt after the timed run, with the same function it streams. */
async function archiveSize(root, relPaths) {
  const archive = tarGzStream(root, relPaths);
  for await (const _chunk of archive.stream);
  return archive.bytes();
}

async function runNaive(emu, root, scenario, contender, pick) {
  await drained(emu);
  emu.resetStats();
  const client = new HostingClient({ baseUrl: emu.baseUrl, apiKey: emu.apiKey, deploymentId: emu.deploymentId, rateLimit: rate });
  const t0 = performance.now();
  let bytes;
  let sent;
  try {
    const files = pick();
    sent = files.length;
    bytes = await naivePush(client, root, files, MAX_IN_FLIGHT);
  } finally {
    await client.close();
  }
  const wallMs = performance.now() - t0;
  lastUsed.set(emu, performance.now());
  return row(scenario, contender, emu, client.stats(), bytes, wallMs, { sent });
}

function check(root, emu, label) {
  const v = verifyVolume(root, emu.volume, label);
  log(`  verified ${label}: ${v.files} files on the volume, byte for byte${v.extra.length ? ` (+${v.extra.length} extra: ${v.extra.slice(0, 3).join(', ')})` : ''}`);
  return v;
}

function table(rows) {
  const head = ['scenario', 'client', 'files sent', 'requests', 'API (server)', 'node uploads', '429s', 'content bytes', 'wall', `at ${LIMIT}/60 s (>=)`];
  const body = rows.map((r) => [
    r.scenario, r.contender, String(r.sent), String(r.requests), String(r.serverApi), String(r.uploads), String(r.rateLimited),
    fmtBytes(r.bytes), fmtTime(r.wallMs), fmtTime(r.realMs),
  ]);
  const widths = head.map((h, i) => Math.max(h.length, ...body.map((b) => b[i].length)));
  const line = (cells) => cells.map((c, i) => (i < 2 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join('  ');
  return [line(head), widths.map((w) => '-'.repeat(w)).join('  '), ...body.map(line)].join('\n');
}

const root = fs.mkdtempSync(path.join(os.tmpdir(), 'hostsync-bench-push-'));
const emus = [];
try {
  let t = performance.now();
  const tree = generateWebProject(root, { files: FILES });
  log(`generated ${tree.files} files (${fmtBytes(tree.bytes)}) in ${fmtTime(performance.now() - t)} under ${root}`);

  const emuOpts = { rateLimit: LIMIT, rateWindowSeconds: WINDOW_S, latencyMs: LATENCY_MS };
  const hostsyncEmu = await startEmulator(emuOpts);
  emus.push(hostsyncEmu);
  const naiveEmu = await startEmulator(emuOpts);
  emus.push(naiveEmu);
  const rows = [];

  log('initial push: hostsync ...');
  rows.push(await runHostsync(hostsyncEmu, root, 'initial push'));
  check(root, hostsyncEmu, 'hostsync initial push');
  // What a naive mtime-based tool records as its last sync: the start of that sync.
  const naiveSyncStart = Date.now();
  log(`initial push: naive (${tree.files} files, one request each; ~${fmtTime(Math.floor(tree.files / LIMIT) * WINDOW_S * 1000)} of pacing) ...`);
  rows.push(await runNaive(naiveEmu, root, 'initial push', 'naive', () => listFiles(root)));
  check(root, naiveEmu, 'naive initial push');

  // The edit: a few lines appended to one source file, as a save in an editor.
  const editAbs = path.join(root, ...tree.editTarget.split('/'));
  fs.appendFileSync(editAbs, '\nexport function editedByBenchmark() {\n  return 42;\n}\n');
  const editSize = fs.statSync(editAbs).size;

  log('one-file edit: hostsync ...');
  rows.push(await runHostsync(hostsyncEmu, root, 'one-file edit'));
  check(root, hostsyncEmu, 'hostsync one-file edit');
  log('one-file edit: naive (mtime) ...');
  rows.push(await runNaive(naiveEmu, root, 'one-file edit', 'naive (mtime)', () => modifiedSince(root, naiveSyncStart)));
  check(root, naiveEmu, 'naive (mtime) one-file edit');
  log('one-file edit: naive, re-sending everything ...');
  rows.push(await runNaive(naiveEmu, root, 'one-file edit', 'naive (all)', () => listFiles(root)));
  check(root, naiveEmu, 'naive (all) one-file edit');

  console.log('');
  console.log('hostsync push benchmark');
  console.log(`  tree:     ${tree.files} files, ${fmtBytes(tree.bytes)}: ${tree.textFiles} text (${fmtBytes(tree.textBytes)}; .js/.ts 1-20 KB, JSON/CSS/MD, a 1 MB bundle), ${tree.binaryFiles} binary (${fmtBytes(tree.binaryBytes)}; images 5-200 KB, a 1 MB video)`);
  console.log(`  edit:     ${tree.editTarget} (${fmtBytes(editSize)}), 4 lines appended`);
  console.log(`  emulator: in-process on 127.0.0.1, ${LIMIT} requests per key per sliding ${WINDOW_S} s window (the service: per 60 s), +${LATENCY_MS} ms latency per API response; one emulator per contender`);
  console.log(`  clients:  hostsync's HostingClient for both, paced to ${LIMIT}/${WINDOW_S} s, ${MAX_IN_FLIGHT} requests in flight; hostsync push without apply, timed from session open (scan and hashing included)`);
  console.log('');
  console.log(table(rows));
  console.log('');
  console.log('  requests: every HTTP request the client sent = API requests + node uploads (signed-URL POSTs, outside the API budget).');
  console.log('  API (server): what the emulator counted under /api/v1, the figure the rate limit applies to.');
  console.log('  content bytes: file bytes sent (hostsync: the plan\'s bytes; an archive counts its files\' sizes before gzip).');
  console.log(`  at ${LIMIT}/60 s: lower bound at the real window: max(wall, floor((API requests - 1) / ${LIMIT}) x 60 s).`);
  console.log('  naive (mtime): sends only files modified since its previous run started (no hashes, no remote state).');
  for (const r of rows.filter((x) => x.contender === 'hostsync')) {
    const ops = Object.entries(r.byOperation).map(([k, v]) => `${k} ${v}`).join(', ');
    const steps = Object.entries(r.steps).map(([k, v]) => `${k} x${v}`).join(', ');
    const gz = r.archived ? ` (the archive of ${r.archived} files: ${fmtBytes(r.archiveBytes)} of tar.gz on the wire)` : '';
    console.log(`  hostsync ${r.scenario}: plan ${steps || '(empty)'}${gz}; requests ${ops}`);
  }
} finally {
  for (const e of emus) await e.close();
  if (args.keep) log(`kept ${root}`);
  else fs.rmSync(root, { recursive: true, force: true });
}
