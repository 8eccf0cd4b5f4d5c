#!/usr/bin/env node
// Watch-mode benchmark (GitHub issue 5): prints figures, asserts nothing.
//
//   npm run build && node bench/watch/run.mjs [--files 100000] [--edits 50] [--latency 20] [--push-edits 5] [--no-chokidar] [--keep]
//
// On a generated tree (bench/scan/tree.mjs: small text files in nested folders plus a
// node_modules/ that must be skipped), against the emulator (its own process, API latency
// --latency ms, static runtime so apply answers without a restart, budget raised so
// pacing never enters the latency figures):
// 1. start-up, each in a fresh process: cold scan (hash everything) vs the native and the
//    chokidar watcher: time to ready and RSS growth;
// 2. `hostsync watch` (the daemon, in this process) after its initial sync: --edits edits,
//    one file each, 150 ms apart. Per edit: save -> apply answered, save -> bytes on the
//    volume (p50, p95), requests, and this process's CPU (daemon + the measuring loop);
// 3. baselines: a naive loop (files.write of the whole file + deployments.apply per save,
//    no index, no verification) and `hostsync push` run per save (--push-edits saves).
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { parseArgs } from 'node:util';
import { generateTree } from '../scan/tree.mjs';

const dist = (p) => new URL(`../../dist/${p}`, import.meta.url).href;
const { loadConfig } = await import(dist('config/config.js'));
const { openSession } = await import(dist('sync/session.js'));
const { startWatch } = await import(dist('watch/daemon.js'));
const { HostingClient } = await import(dist('remote/client.js'));
const CLI = fileURL('../../dist/cli/main.js');

const { values: args } = parseArgs({
  options: {
    files: { type: 'string', default: '100000' },
    edits: { type: 'string', default: '50' },
    latency: { type: 'string', default: '20' },
    'push-edits': { type: 'string', default: '5' },
    'no-chokidar': { type: 'boolean', default: false },
    keep: { type: 'boolean', default: false },
  },
});
const FILES = Number(args.files);
const EDITS = Number(args.edits);
const PUSH_EDITS = Number(args['push-edits']);
const LATENCY = Number(args.latency);

function fileURL(rel) {
  return new URL(rel, import.meta.url).pathname;
}
const pct = (xs, p) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil((p / 100) * s.length) - 1))];
};
const ms = (x) => `${x.toFixed(0)} ms`;
const row = (...cols) => console.log(cols.map((c, i) => String(c).padEnd(i === 0 ? 34 : 20)).join(''));
/** Every generated source file, sorted: the edits pick from it. */
function listSources(dir, rel = 'src', out = []) {
  for (const d of fs.readdirSync(dir, { withFileTypes: true })) {
    const r = `${rel}/${d.name}`;
    if (d.isDirectory()) listSources(path.join(dir, d.name), r, out);
    else out.push(r);
  }
  return out;
}

const root = fs.mkdtempSync(path.join(os.tmpdir(), 'hostsync-watch-bench-'));
console.log(`tree: generating ${FILES} files in ${root} ...`);
let t = performance.now();
const gen = generateTree(root, { files: FILES });
fs.writeFileSync(path.join(root, 'index.html'), '<!doctype html><title>bench</title><h1>bench</h1>\n');
const sources = listSources(path.join(root, 'src')).sort();
const genPath = (i) => sources[i % sources.length];
console.log(`tree: ${gen.files} files (+${gen.nodeModulesFiles} in node_modules, ignored), ${gen.dirs} folders, ${(gen.bytes / 1048576).toFixed(0)} MB, in ${ms(performance.now() - t)}`);

// ---- 1. start-up ----
function startup(mode) {
  const r = spawnSync(process.execPath, ['--expose-gc', fileURL('./startup.mjs'), mode, root], { encoding: 'utf8', maxBuffer: 1 << 20 });
  if (r.status !== 0) throw new Error(`startup ${mode} failed: ${r.stderr}`);
  return JSON.parse(r.stdout.trim().split('\n').at(-1));
}
console.log('\n== start-up (each in a fresh process) ==');
row('', 'time', 'RSS growth', 'peak RSS');
const scan = startup('scan');
row(`cold scan (hash ${scan.files} files)`, ms(scan.ms), `${scan.rssDeltaMB.toFixed(0)} MB`, `${scan.maxRssMB.toFixed(0)} MB`);
for (const mode of ['native', ...(args['no-chokidar'] ? [] : ['chokidar'])]) {
  const w = startup(mode);
  row(`${mode} watcher ready`, `${ms(w.ms)} (${(w.ms / scan.ms).toFixed(2)}x scan)`, `${w.rssDeltaMB.toFixed(0)} MB`, `${w.maxRssMB.toFixed(0)} MB`);
}

// ---- emulator ----
const emuProc = spawn(process.execPath, [fileURL('./emulator-child.mjs'), String(LATENCY)], { stdio: ['ignore', 'pipe', 'inherit'] });
const ready = await new Promise((resolve, reject) => {
  let buf = '';
  emuProc.stdout.on('data', (d) => {
    buf += d;
    const nl = buf.indexOf('\n');
    if (nl !== -1) resolve(JSON.parse(buf.slice(0, nl)));
  });
  emuProc.on('exit', (code) => reject(new Error(`emulator exited ${code}`)));
});
const env = { HOSTSYNC_API_KEY: ready.apiKey, HOSTSYNC_BASE_URL: ready.baseUrl, HOSTSYNC_DEPLOYMENT: ready.deploymentId };
const onVolume = (rel) => path.join(ready.volume, ...rel.split('/'));

/** Resolves when the volume holds `content` at `rel`: woken by inotify on its folder, checked on each event. */
async function landed(rel, content) {
  const abs = onVolume(rel);
  const matches = async () => (await readFile(abs, 'utf8').catch(() => null)) === content;
  if (await matches()) return performance.now();
  return new Promise((resolve) => {
    const w = fs.watch(path.dirname(abs), async () => {
      if (await matches()) {
        w.close();
        resolve(performance.now());
      }
    });
  });
}

try {
  // ---- 2. the daemon ----
  const config = await loadConfig({ flags: { dir: root }, env });
  const session = await openSession(config);
  const cycles = [];
  let onCycle = null;
  t = performance.now();
  const daemon = await startWatch(session, {
    onEvent: (e) => {
      if (e.type !== 'cycle') return;
      cycles.push({ at: performance.now(), e });
      onCycle?.();
    },
  });
  await daemon.whenIdle();
  const initial = cycles.find((c) => c.e.trigger === 'start').e;
  console.log(`\n== hostsync watch (${daemon.backend} watcher, API latency ${LATENCY} ms) ==`);
  console.log(`initial sync: ${initial.counts.written} files in ${initial.requests} requests, ${ms(performance.now() - t)} (daemon start to idle)`);

  const apply = [];
  const vol = [];
  const reqs = [];
  const stats0 = session.client.stats().total;
  const cpu0 = process.cpuUsage();
  for (let k = 0; k < EDITS; k++) {
    const rel = genPath(Math.floor((k * FILES) / EDITS));
    const content = `${await readFile(path.join(root, rel), 'utf8')}// edit ${k}\n`;
    const mark = cycles.length;
    const appliedP = new Promise((resolve) => {
      onCycle = () => {
        const hit = cycles.slice(mark).find((c) => c.e.apply && c.e.changes.some((ch) => ch.path === rel));
        if (hit) resolve(hit);
      };
    });
    const t0 = performance.now();
    await writeFile(path.join(root, rel), content);
    const [hit, tVol] = await Promise.all([appliedP, landed(rel, content)]);
    apply.push(hit.at - t0);
    vol.push(tVol - t0);
    reqs.push(cycles.slice(mark).reduce((n, c) => n + c.e.requests, 0));
    await sleep(150);
  }
  const cpu = process.cpuUsage(cpu0);
  const watchReqs = (session.client.stats().total - stats0) / EDITS;
  await daemon.stop();
  await session.close();

  // ---- 3a. naive baseline ----
  const client = new HostingClient({ baseUrl: ready.baseUrl, apiKey: ready.apiKey, deploymentId: ready.deploymentId });
  const nApply = [];
  const nVol = [];
  const cpuN0 = process.cpuUsage();
  for (let k = 0; k < EDITS; k++) {
    const rel = genPath(Math.floor((k * FILES) / EDITS) + 1);
    const content = `${await readFile(path.join(root, rel), 'utf8')}// naive edit ${k}\n`;
    const t0 = performance.now();
    await writeFile(path.join(root, rel), content);
    const volP = landed(rel, content);
    await client.files.write(rel, await readFile(path.join(root, rel), 'utf8'));
    await client.deployments.apply({});
    nApply.push(performance.now() - t0);
    nVol.push((await volP) - t0);
    await sleep(150);
  }
  const cpuN = process.cpuUsage(cpuN0);
  const naiveReqs = client.stats().total / EDITS;
  await client.close();

  // ---- 3b. hostsync push per save ----
  const pWall = [];
  const pReqs = [];
  for (let k = 0; k < PUSH_EDITS; k++) {
    const rel = genPath(Math.floor((k * FILES) / Math.max(1, PUSH_EDITS)) + 2);
    await writeFile(path.join(root, rel), `${await readFile(path.join(root, rel), 'utf8')}// push edit ${k}\n`);
    const t0 = performance.now();
    const r = spawnSync(process.execPath, [CLI, 'push', '--json', '--dir', root], { env: { ...env, PATH: process.env.PATH, HOME: os.homedir() }, encoding: 'utf8', maxBuffer: 16 << 20 });
    pWall.push(performance.now() - t0);
    const out = JSON.parse(r.stdout.trim().split('\n').at(-1));
    pReqs.push(out.requests.total);
  }

  console.log(`\n== per edit (${EDITS} edits; hostsync push: ${PUSH_EDITS}) ==`);
  row('', 'save->applied p50', 'p95', 'save->volume p50', 'p95', 'requests/edit', 'client CPU/edit');
  row(`hostsync watch (${FILES} files)`, ms(pct(apply, 50)), ms(pct(apply, 95)), ms(pct(vol, 50)), ms(pct(vol, 95)), watchReqs.toFixed(2), ms((cpu.user + cpu.system) / 1000 / EDITS));
  row('naive files.write + apply', ms(pct(nApply, 50)), ms(pct(nApply, 95)), ms(pct(nVol, 50)), ms(pct(nVol, 95)), naiveReqs.toFixed(2), ms((cpuN.user + cpuN.system) / 1000 / EDITS));
  row('hostsync push per save (CLI)', ms(pct(pWall, 50)), ms(pct(pWall, 95)), '-', '-', (pReqs.reduce((a, b) => a + b, 0) / pReqs.length).toFixed(2), '(whole process)');
  console.log(`(watch requests per cycle: ${[...new Set(reqs)].sort().join(', ')}; "client CPU" is this process: the daemon plus the measuring loop)`);
} finally {
  emuProc.kill('SIGTERM');
  if (!args.keep) fs.rmSync(root, { recursive: true, force: true });
}
