#!/usr/bin/env node
/**
 * A push in several archive parts against a small index cap (issue 16): 10k files of 30 KB
 * of random bytes (300 MB: three parts at the 100 MiB upload limit) in 200 folders, the
 * emulator answering at most --cap index entries, so each later part's re-check reads a
 * truncated remote. One whole `push --no-apply` per build given (the baseline is the other
 * build); prints requests by operation and wall. Asserts nothing.
 *
 *   node bench/push/multipart.mjs [--cap 2000] DIST [DIST...]
 */
import crypto from 'node:crypto';
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs, promisify } from 'node:util';

const { values: args, positionals: dists } = parseArgs({ options: { cap: { type: 'string', default: '2000' } }, allowPositionals: true });
if (dists.length === 0) {
  console.error('usage: node bench/push/multipart.mjs [--cap 2000] DIST [DIST...]');
  process.exit(2);
}
/** A build's CLI: its bundle, or tsc's cli/main.js for a build from before the CLI was bundled. */
const cliOf = (dist) => (fs.existsSync(path.resolve(dist, 'bin/hostsync.js')) ? path.resolve(dist, 'bin/hostsync.js') : path.resolve(dist, 'cli/main.js'));

for (const dist of dists) {
  const { startEmulator } = await import(path.resolve(dist, 'emulator/index.js'));
  const work = fs.mkdtempSync(path.join(fs.existsSync('/dev/shm') ? '/dev/shm' : os.tmpdir(), 'hostsync-multipart-'));
  const tree = path.join(work, 'tree');
  for (let d = 0; d < 200; d++) {
    fs.mkdirSync(path.join(tree, `d${d}`), { recursive: true });
    for (let i = 0; i < 50; i++) fs.writeFileSync(path.join(tree, `d${d}`, `f${i}.bin`), crypto.randomBytes(30_000));
  }
  const emu = await startEmulator({ dataDir: path.join(work, 'emu'), rateLimit: 1e6, userRateLimit: 1e6, indexMaxEntries: Number(args.cap), autoBackups: false });
  try {
    const env = { ...process.env, HOSTSYNC_API_KEY: emu.apiKey, HOSTSYNC_BASE_URL: emu.baseUrl, HOSTSYNC_DEPLOYMENT: emu.deploymentId, HOSTSYNC_CACHE_DIR: path.join(work, 'cache') };
    const t0 = performance.now();
    let out;
    try {
      out = (await promisify(execFile)(process.execPath, [cliOf(dist), 'push', '--no-apply', '--json'], { cwd: tree, env, maxBuffer: 1 << 28 })).stdout;
    } catch (e) {
      out = e.stdout;
    }
    const r = JSON.parse(out);
    console.log(`${dist}: ok ${r.ok}, ${r.requests.total} requests ${JSON.stringify(r.requests.byOperation)}, ${((performance.now() - t0) / 1000).toFixed(1)} s wall`);
  } finally {
    await emu.close();
    fs.rmSync(work, { recursive: true, force: true });
  }
}
