#!/usr/bin/env node
// Watch-mode benchmark (GitHub issue 5): prints figures, asserts nothing.
//
//   npm run build && node bench/watch/run.mjs [--files 100000] [--edits 50] [--latency 20] [--push-edits 5]
//        [--continuous 120] [--before DIST] [--before-edits 10] [--no-startup] [--no-chokidar] [--keep]
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
//    no index, no verification) and `hostsync push` run per save (--push-edits saves);
// 4. continuous saving at the DEFAULT limits (120 per key, 300 per user, per minute; the
//    emulator restarted on the same data): one save every 100 ms, alternating two files,
//    for --continuous seconds. Per save: the lag until the volume holds it (or a later
//    save of the same file), p50/p95/max; when the last save lands after saving stops;
//    the 429s met. Against the naive client (write + apply per save, fired as saves come).
// --before DIST: the same daemon measurements (2 and 4) with another build's dist/ (the
//    code before a change), in the same run, on the same tree and emulator.
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { parseArgs } from 'node:util';
import { pathToFileURL } from 'node:url';
import { generateTree } from '../scan/tree.mjs';

const dist = (p) => new URL(`../../dist/${p}`, import.meta.url).href;
const { loadConfig } = await import(dist('config/config.js'));
const { HostingClient } = await import(dist('remote/client.js'));
const CLI = fileURL('../../dist/cli/main.js');
/** The watch daemon of one build: this one, or --before's. */
async function build(distDir, label) {
  const at = (p) => (distDir ? pathToFileURL(path.resolve(distDir, p)).href : dist(p));
  return {
    label,
    loadConfig: (await import(at('config/config.js'))).loadConfig,
    openSession: (await import(at('sync/session.js'))).openSession,
    startWatch: (await import(at('watch/daemon.js'))).startWatch,
  };
}

const { values: args } = parseArgs({
  options: {
    files: { type: 'string', default: '100000' },
    edits: { type: 'string', default: '50' },
    latency: { type: 'string', default: '20' },
    'push-edits': { type: 'string', default: '5' },
    'no-chokidar': { type: 'boolean', default: false },
    'no-startup': { type: 'boolean', default: false },
    continuous: { type: 'string', default: '120' },
    before: { type: 'string' },
    'before-edits': { type: 'string', default: '10' },
    keep: { type: 'boolean', default: false },
  },
});
const FILES = Number(args.files);
const EDITS = Number(args.edits);
const PUSH_EDITS = Number(args['push-edits']);
const LATENCY = Number(args.latency);
const CONTINUOUS_S = Number(args.continuous);
const BEFORE_EDITS = Number(args['before-edits']);
const builds = [await build(null, 'this build')];
if (args.before) builds.push(await build(args.before, `before (${args.before})`));

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
if (!args['no-startup']) {
  console.log('\n== start-up (each in a fresh process) ==');
  row('', 'time', 'RSS growth', 'peak RSS');
  const scan = startup('scan');
  row(`cold scan (hash ${scan.files} files)`, ms(scan.ms), `${scan.rssDeltaMB.toFixed(0)} MB`, `${scan.maxRssMB.toFixed(0)} MB`);
  for (const mode of ['native', ...(args['no-chokidar'] ? [] : ['chokidar'])]) {
    const w = startup(mode);
    row(`${mode} watcher ready`, `${ms(w.ms)} (${(w.ms / scan.ms).toFixed(2)}x scan)`, `${w.rssDeltaMB.toFixed(0)} MB`, `${w.maxRssMB.toFixed(0)} MB`);
  }
}

// ---- emulator: its own process, data kept across restarts ----
const emuData = fs.mkdtempSync(path.join(os.tmpdir(), 'hostsync-watch-bench-emu-'));
let emuProc = null;
async function startEmu(limits) {
  if (emuProc) {
    const exited = new Promise((r) => emuProc.once('exit', r));
    emuProc.kill('SIGTERM');
    await exited;
  }
  emuProc = spawn(process.execPath, [fileURL('./emulator-child.mjs'), String(LATENCY), limits, emuData], { stdio: ['ignore', 'pipe', 'inherit'] });
  const proc = emuProc;
  return new Promise((resolve, reject) => {
    let buf = '';
    proc.stdout.on('data', (d) => {
      buf += d;
      const nl = buf.indexOf('\n');
      if (nl !== -1) resolve(JSON.parse(buf.slice(0, nl)));
    });
    proc.on('exit', (code) => reject(new Error(`emulator exited ${code}`)));
  });
}
let ready = await startEmu('raised');
const envOf = (r) => ({ HOSTSYNC_API_KEY: r.apiKey, HOSTSYNC_BASE_URL: r.baseUrl, HOSTSYNC_DEPLOYMENT: r.deploymentId });
let env = envOf(ready);
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

/** Starts `impl`'s daemon on the tree and waits for its first cycle to end. */
async function daemonOf(impl, noApply = false) {
  const config = await impl.loadConfig({ flags: { dir: root }, env });
  const session = await impl.openSession(config);
  const cycles = [];
  const d = { session, cycles, onCycle: null };
  const t0 = performance.now();
  d.daemon = await impl.startWatch(session, {
    noApply,
    onEvent: (e) => {
      if (e.type !== 'cycle') return;
      cycles.push({ at: performance.now(), e });
      d.onCycle?.();
    },
  });
  await d.daemon.whenIdle();
  d.startMs = performance.now() - t0;
  return d;
}

/** --edits one-file edits, 150 ms apart: save -> applied, save -> volume, requests per edit. */
async function perEdit(impl, edits, salt) {
  const d = await daemonOf(impl);
  const initial = d.cycles.find((c) => c.e.trigger === 'start')?.e;
  console.log(`${impl.label}: ${d.daemon.backend} watcher; start-up cycle ${initial?.counts.written ?? 0} files written in ${initial?.requests ?? '?'} requests, ${ms(d.startMs)} to idle`);
  const apply = [];
  const vol = [];
  const reqs = [];
  const stats0 = d.session.client.stats().total;
  const cpu0 = process.cpuUsage();
  for (let k = 0; k < edits; k++) {
    const rel = genPath(Math.floor((k * FILES) / edits) + salt);
    const content = `${await readFile(path.join(root, rel), 'utf8')}// edit ${salt}.${k}\n`;
    const mark = d.cycles.length;
    const appliedP = new Promise((resolve) => {
      d.onCycle = () => {
        const hit = d.cycles.slice(mark).find((c) => c.e.apply && c.e.changes.some((ch) => ch.path === rel));
        if (hit) resolve(hit);
      };
    });
    const t0 = performance.now();
    await writeFile(path.join(root, rel), content);
    const [hit, tVol] = await Promise.all([appliedP, landed(rel, content)]);
    apply.push(hit.at - t0);
    vol.push(tVol - t0);
    // Requests of the edit's cycle(s) and of the idle verification that follows it.
    await sleep(150);
    await d.daemon.whenIdle();
    reqs.push(d.cycles.slice(mark).reduce((n, c) => n + c.e.requests, 0));
  }
  // The last edit's idle verification.
  await sleep(1_500);
  await d.daemon.whenIdle();
  const cpu = process.cpuUsage(cpu0);
  const perEditReqs = (d.session.client.stats().total - stats0) / edits;
  await d.daemon.stop();
  await d.session.close();
  return { apply, vol, reqs, perEditReqs, cpuMs: (cpu.user + cpu.system) / 1000 / edits };
}

/** Continuous saving: one save every 100 ms, alternating two files, for `seconds`. */
async function continuous(label, seconds, start) {
  const files = [genPath(7), genPath(Math.floor(FILES / 2) + 3)];
  const base = await Promise.all(files.map((f) => readFile(path.join(root, f), 'utf8')));
  const saves = []; // {file, n, at, landedAt}
  const landedUpTo = [0, 0];
  const watchers = files.map((rel, i) => {
    const check = async () => {
      const text = await readFile(onVolume(rel), 'utf8').catch(() => '');
      const m = /\/\/ save (\d+)\n$/.exec(text);
      const n = m ? Number(m[1]) : 0;
      if (n <= landedUpTo[i]) return;
      landedUpTo[i] = n;
      const now = performance.now();
      for (const s of saves) if (s.file === i && s.n <= n && s.landedAt === undefined) s.landedAt = now;
    };
    const w = fs.watch(path.dirname(onVolume(rel)), () => void check());
    return { w, check };
  });
  const ctl = await start(files);
  const t0 = performance.now();
  let n = 0;
  while (performance.now() - t0 < seconds * 1000) {
    n++;
    const i = n % 2;
    const content = `${base[i]}// save ${n}\n`;
    saves.push({ file: i, n, at: performance.now(), landedAt: undefined });
    await writeFile(path.join(root, files[i]), content);
    ctl.saved?.(files[i], content);
    await sleep(Math.max(0, t0 + n * 100 - performance.now()));
  }
  const stoppedAt = performance.now();
  // Wait for both files' last saves (or give up after two windows).
  while (saves.some((s) => s.landedAt === undefined) && performance.now() - stoppedAt < 120_000) {
    await Promise.all(watchers.map((w) => w.check()));
    await sleep(50);
  }
  const end = await ctl.stop();
  for (const w of watchers) w.w.close();
  const lags = saves.filter((s) => s.landedAt !== undefined).map((s) => s.landedAt - s.at);
  const lastLands = Math.max(...[0, 1].map((i) => saves.filter((s) => s.file === i).at(-1)?.landedAt ?? Infinity)) - stoppedAt;
  return { label, saves: saves.length, lags, lastLands, lost: saves.filter((s) => s.landedAt === undefined).length, ...end };
}

const pad = (x) => (Number.isFinite(x) ? ms(x) : 'never');
const results = [];
try {
  // ---- 2. per edit, each build, then the baselines ----
  console.log(`\n== one-file edits (API latency ${LATENCY} ms, budget raised) ==`);
  for (const [i, impl] of builds.entries()) results.push({ label: impl.label, ...(await perEdit(impl, i === 0 ? EDITS : BEFORE_EDITS, i * 5)) });

  // ---- 3a. naive baseline ----
  const client = new HostingClient({ baseUrl: ready.baseUrl, apiKey: ready.apiKey, deploymentId: ready.deploymentId, ledger: false });
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

  console.log(`\n== per edit (${EDITS} edits, --before: ${BEFORE_EDITS}; hostsync push: ${PUSH_EDITS}) ==`);
  row('', 'save->applied p50', 'p95', 'save->volume p50', 'p95', 'requests/edit', 'client CPU/edit');
  for (const r of results) row(`watch, ${r.label} (${FILES} files)`, ms(pct(r.apply, 50)), ms(pct(r.apply, 95)), ms(pct(r.vol, 50)), ms(pct(r.vol, 95)), r.perEditReqs.toFixed(2), ms(r.cpuMs));
  row('naive files.write + apply', ms(pct(nApply, 50)), ms(pct(nApply, 95)), ms(pct(nVol, 50)), ms(pct(nVol, 95)), naiveReqs.toFixed(2), ms((cpuN.user + cpuN.system) / 1000 / EDITS));
  row('hostsync push per save (CLI)', ms(pct(pWall, 50)), ms(pct(pWall, 95)), '-', '-', (pReqs.reduce((a, b) => a + b, 0) / pReqs.length).toFixed(2), '(whole process)');
  for (const r of results) console.log(`(${r.label}: requests per edit including its idle verification: ${[...new Set(r.reqs)].sort((a, b) => a - b).join(', ')})`);

  // ---- 4. continuous saving at the default limits ----
  if (CONTINUOUS_S > 0) {
    const cont = [];
    for (const impl of builds) {
      // A fresh emulator process on the same data: a full budget, the documented limits.
      ready = await startEmu('default');
      env = envOf(ready);
      cont.push(await continuous(`watch, ${impl.label}`, CONTINUOUS_S, async () => {
        const d = await daemonOf(impl);
        const stats0 = d.session.client.stats();
        return {
          stop: async () => {
            await d.daemon.whenIdle();
            const st = d.session.client.stats();
            await d.daemon.stop();
            await d.session.close();
            return { requests: st.total - stats0.total, limited: st.rateLimited - stats0.rateLimited, cycles: d.cycles.filter((c) => c.e.trigger === 'change').length };
          },
        };
      }));
    }
    ready = await startEmu('default');
    env = envOf(ready);
    cont.push(await continuous('naive write + apply per save', CONTINUOUS_S, async () => {
      const c = new HostingClient({ baseUrl: ready.baseUrl, apiKey: ready.apiKey, deploymentId: ready.deploymentId, ledger: false });
      const inflight = [];
      return {
        saved: (rel, content) => inflight.push(c.files.write(rel, content).then(() => c.deployments.apply({})).catch(() => undefined)),
        stop: async () => {
          await Promise.all(inflight);
          const st = c.stats();
          await c.close();
          return { requests: st.total, limited: st.rateLimited, cycles: inflight.length };
        },
      };
    }));
    console.log(`\n== continuous saving: a save every 100 ms to two files for ${CONTINUOUS_S} s, default limits (120/min per key) ==`);
    row('', 'lag p50', 'p95', 'max', 'last save lands', '429s', 'requests', 'cycles');
    for (const c of cont) row(`${c.label}`, pad(pct(c.lags, 50)), pad(pct(c.lags, 95)), pad(Math.max(...c.lags)), `${pad(c.lastLands)} after stop`, c.limited, c.requests, c.cycles);
    for (const c of cont) if (c.lost > 0) console.log(`(${c.label}: ${c.lost} of ${c.saves} saves never landed within 2 minutes after saving stopped)`);
  }
} finally {
  emuProc.kill('SIGTERM');
  if (!args.keep) {
    fs.rmSync(root, { recursive: true, force: true });
    fs.rmSync(emuData, { recursive: true, force: true });
  }
}
