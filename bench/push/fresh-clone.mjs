#!/usr/bin/env node
/**
 * Push from any machine (issue 27): prints figures, asserts nothing about speed.
 *
 *   npm run build && node bench/push/fresh-clone.mjs [--files 3000] [--latency 0] [--dir /tmp]
 *
 * A tree of `--files` small text files (realistic paths: src/modNN/subN/fileN.js) is written
 * both locally (a git repository, committed) and on an in-process emulator's volume, and
 * adopted by a first push from the "laptop" (which writes the deployment's base record).
 * Then, each timed from session open (scan, hashing, git, reads, merge, writes):
 *   - laptop no-op push, laptop one-file edit push (local base current: the record costs nothing to know);
 *   - fresh clone (`git clone --depth 1`, as CI checks out: no .hostsync/) no-op push, the
 *     same clone's next no-op push, and a one-file edit push from a fresh clone again
 *     (no local base: the record is read, and git says the clone is ahead of the last push).
 * And the record itself: its size, what one batch with its git stamp adds, and parse +
 * replay against the remote in this process.
 * The emulator's rate limit is lifted, so the wall times are the work, not the pacing.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { startEmulator } from '../../dist/emulator/index.js';
import { loadConfig } from '../../dist/config/config.js';
import { openSession } from '../../dist/sync/session.js';
import { push } from '../../dist/sync/push/push.js';
import { parseRecord } from '../../dist/state/base-record.js';
import { mergeRecord } from '../../dist/sync/core/record-merge.js';
import { readRemote } from '../../dist/sync/remote-read/remote-read.js';

const { values: args } = parseArgs({
  options: {
    files: { type: 'string', default: '3000' },
    latency: { type: 'string', default: '0' },
    dir: { type: 'string', default: os.tmpdir() },
  },
});
const FILES = Number(args.files);
const LATENCY_MS = Number(args.latency);
const log = (msg) => process.stderr.write(`${msg}\n`);
const fmtBytes = (n) => (n >= 1024 * 1024 ? `${(n / 1024 / 1024).toFixed(2)} MB` : n >= 1024 ? `${(n / 1024).toFixed(1)} KB` : `${n} B`);

const work = fs.mkdtempSync(path.join(args.dir, 'hostsync-bench-fresh-'));
const laptop = path.join(work, 'laptop');
const clone = path.join(work, 'clone');
const data = path.join(work, 'emu');

function relOf(i) {
  return `src/mod${String(i % 100).padStart(2, '0')}/sub${i % 7}/file-${i}.js`;
}

function writeTree(root, n) {
  for (let i = 0; i < n; i++) {
    const abs = path.join(root, relOf(i));
    fs.mkdirSync(path.dirname(abs), { recursive: true });
    fs.writeFileSync(abs, `export const value${i} = ${i};\n// ${'x'.repeat(i % 200)}\n`);
  }
}

const GIT_ENV = { ...process.env, GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null', GIT_AUTHOR_NAME: 'b', GIT_AUTHOR_EMAIL: 'b@example.invalid', GIT_COMMITTER_NAME: 'b', GIT_COMMITTER_EMAIL: 'b@example.invalid' };
const git = (cwd, ...a) => execFileSync('git', ['-c', 'init.defaultBranch=main', '-c', 'protocol.file.allow=always', ...a], { cwd, env: GIT_ENV, stdio: ['ignore', 'pipe', 'pipe'] });

/** The record's text on the emulator's volume. */
function recordText(emu) {
  const recDir = path.join(emu.volume, '.hostsync');
  const recName = fs.readdirSync(recDir).find((n) => n.startsWith('base-'));
  return fs.readFileSync(path.join(recDir, recName), 'utf8');
}

async function timedPush(emu, root, label) {
  const config = await loadConfig({ flags: { dir: root }, env: { HOSTSYNC_API_KEY: emu.apiKey, HOSTSYNC_BASE_URL: emu.baseUrl, HOSTSYNC_DEPLOYMENT: emu.deploymentId } });
  emu.resetStats();
  const t0 = performance.now();
  const session = await openSession(config);
  let report;
  try {
    report = await push(session, { noApply: true });
  } finally {
    await session.close();
  }
  const wallMs = performance.now() - t0;
  if (report.failures.length > 0 || report.conflicts.length > 0) {
    throw new Error(`${label}: ${report.failures.length} failures, ${report.conflicts.length} conflicts (first: ${report.conflicts[0]?.path} ${report.conflicts[0]?.reason})`);
  }
  const stats = session.client.stats();
  return { label, requests: stats.total, byOperation: stats.byOperation, written: report.counts.written, wallMs: Math.round(wallMs) };
}

const emu = await startEmulator({ dataDir: data, rateLimit: 1_000_000, userRateLimit: 1_000_000, ...(LATENCY_MS > 0 ? { latencyMs: LATENCY_MS } : {}) });
const rows = [];
try {
  log(`writing ${FILES} files locally and on the volume...`);
  writeTree(laptop, FILES);
  writeTree(emu.volume, FILES);
  fs.writeFileSync(path.join(laptop, '.gitignore'), '.hostsync/\n');
  fs.writeFileSync(path.join(emu.volume, '.gitignore'), '.hostsync/\n');
  git(laptop, 'init', '-q');
  git(laptop, 'add', '-A');
  git(laptop, 'commit', '-q', '-m', 'first');
  // A history longer than a batch's recorded ancestors (GIT_ANCESTORS), as a project's is.
  for (let i = 0; i < 40; i++) git(laptop, 'commit', '-q', '--allow-empty', '-m', `c${i}`);
  log('first push (adopts the tree, writes the base record)...');
  rows.push(await timedPush(emu, laptop, 'laptop: first push (adopt)'));
  rows.push(await timedPush(emu, laptop, 'laptop: no-op push'));
  const beforeEdit = Buffer.byteLength(recordText(emu));
  fs.writeFileSync(path.join(laptop, relOf(1)), 'export const value1 = "laptop";\n');
  rows.push(await timedPush(emu, laptop, 'laptop: one-file edit'));
  const batchBytes = Buffer.byteLength(recordText(emu)) - beforeEdit;
  const stamp = parseRecord(recordText(emu)).batches.at(-1).header.git;
  const stampBytes = Buffer.byteLength(JSON.stringify({ git: stamp }));
  git(laptop, 'commit', '-q', '-am', 'edit');
  // A CI checkout of what the laptop committed: a shallow clone, no .hostsync/.
  git(work, 'clone', '-q', '--depth', '1', `file://${laptop}`, clone);
  rows.push(await timedPush(emu, clone, 'fresh clone: no-op push'));
  // The clone's next no-op: it kept the record it read (a current copy costs no request).
  rows.push(await timedPush(emu, clone, 'fresh clone: no-op push again'));
  fs.rmSync(path.join(clone, '.hostsync'), { recursive: true, force: true });
  fs.writeFileSync(path.join(clone, relOf(2)), 'export const value2 = "ci";\n');
  rows.push(await timedPush(emu, clone, 'fresh clone: one-file edit'));

  const text = recordText(emu);
  const t0 = performance.now();
  const record = parseRecord(text);
  const parseMs = performance.now() - t0;
  const config = await loadConfig({ flags: { dir: clone }, env: { HOSTSYNC_API_KEY: emu.apiKey, HOSTSYNC_BASE_URL: emu.baseUrl, HOSTSYNC_DEPLOYMENT: emu.deploymentId } });
  const session = await openSession(config);
  const remote = await readRemote(session.client, session.matcher, null);
  await session.close();
  const t1 = performance.now();
  const merged = mergeRecord(record, remote.snapshot, null, { own: new Set(), planned: null });
  const mergeMs = performance.now() - t1;

  console.log(`\nPush from any machine, ${FILES} files (latency ${LATENCY_MS} ms per response)\n`);
  console.log('| run | requests | by operation | written | wall |');
  console.log('|---|---:|---|---:|---:|');
  for (const r of rows) {
    const ops = Object.entries(r.byOperation).map(([k, v]) => `${k} ${v}`).join(', ');
    console.log(`| ${r.label} | ${r.requests} | ${ops} | ${r.written} | ${(r.wallMs / 1000).toFixed(2)} s |`);
  }
  console.log(`\nbase record: ${fmtBytes(Buffer.byteLength(text))} (${(Buffer.byteLength(text) / FILES).toFixed(1)} B per file), ${record.batches.length} batches; snapshot ${fmtBytes(record.snapshotBytes)}`);
  console.log(`one batch of a one-file push: ${batchBytes} B, of which the git stamp (HEAD, clean, time, ${stamp?.anc.length ?? 0} ancestors) ${stampBytes} B`);
  console.log(`read cost: 1 request (files.readMany up to 120 000 B, else downloadUrl + download); parse ${parseMs.toFixed(0)} ms, replay against the remote ${mergeMs.toFixed(0)} ms (${merged.base.size} paths)`);
} finally {
  await emu.close();
  fs.rmSync(work, { recursive: true, force: true });
}
