#!/usr/bin/env node
// Watch-mode benchmark (GitHub issue 5): prints figures, asserts nothing.
//
//   npm run build && node bench/watch/run.mjs [--files 100000] [--edits 50] [--gap 2500] [--latency 20] [--push-edits 5]
//        [--switch 100] [--continuous 120] [--drain 60] [--before DIST] [--before-edits 10] [--no-startup]
//        [--no-chokidar] [--only-continuous] [--keep]
//
// On a generated tree (bench/scan/tree.mjs: small text files in nested folders plus a
// node_modules/ that must be skipped), against the emulator (its own process, API latency
// --latency ms, static runtime so apply answers without a restart, budget raised so
// pacing never enters the latency figures):
// 1. start-up, each in a fresh process: cold scan (hash everything) vs the native and the
//    chokidar watcher: time to ready and RSS growth;
// 2. `hostsync watch` (the daemon, in this process) after its initial sync: --edits edits,
//    one file each, one every --gap ms (a developer's saves), or 150 ms after the previous
//    one landed with --gap 0 (back to back: the pacer then spaces them). The default 2.5 s
//    is 96 requests a minute (4 per change cycle), past the 84 the pacer's bucket refills
//    at: after 35-45 edits the bucket is dry and each save waits for it, up to ~2.7 s,
//    which is the p95 of 50 edits (docs/decisions.md, "The pacer budgets a change cycle
//    at 4 requests"). --gap 3500 or more keeps the pacer out of the figures and lets every
//    edit's idle verification run (at 3000 a few saves wait ~15 ms for the bucket).
//    Per edit: save -> apply answered, save -> bytes on the volume (p50, p95), requests,
//    and this process's CPU (daemon + the measuring loop). Then, per build:
//    - a branch switch: --switch files rewritten, 5 added and 5 deleted at once, in as
//      many folders as the tree has: requests and time until the volume holds all of it;
//    - a no-op restart: a fresh daemon on the synced tree: requests and time to idle;
//    - drift polls after an edit: a daemon polling every --poll-ms instead of 30 s makes
//      one edit (and its idle verification); then the deployment is edited far from it, and
//      each poll's requests are counted until one reports that drift (at most --max-polls):
//      the polls it took, x 30 s, is the detection latency at the real interval;
//    - a restart after an edit: the daemon stopped, one file edited, a fresh daemon:
//      requests until idle;
// 3. baselines: a naive loop (files.write of the whole file + deployments.apply per save,
//    no index, no verification) and `hostsync push` run per save (--push-edits saves);
// 4. continuous saving at the DEFAULT limits (120 per key, 300 per user, per minute; the
//    emulator restarted on the same data): one save every 100 ms, alternating two files,
//    for --continuous seconds. Per save: the lag until the volume holds it (or a later
//    save of the same file), p50/p95/max; when the last save lands after saving stops;
//    the 429s met. Against the naive client (write + apply per save, fired as saves come,
//    paced by the same client queue). Every contender gets --drain s after saving stops
//    for its last save to land; past that it is stopped (the naive client with its queue
//    still full: it would need about one minute per 60 saves), and the saves that never
//    landed count in the lag figures as the time they had waited (shown as "> x").
//    Then a restart of the daemon on the result: the requests of its start-up cycle.
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
const CLI = fileURL('../../dist/bin/hostsync.js');
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
    gap: { type: 'string', default: '2500' },
    switch: { type: 'string', default: '100' },
    drain: { type: 'string', default: '60' },
    latency: { type: 'string', default: '20' },
    'push-edits': { type: 'string', default: '5' },
    'no-chokidar': { type: 'boolean', default: false },
    'no-startup': { type: 'boolean', default: false },
    'only-continuous': { type: 'boolean', default: false },
    'poll-ms': { type: 'string', default: '2000' },
    'max-polls': { type: 'string', default: '20' },
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
const GAP_MS = Number(args.gap);
const SWITCH = Number(args.switch);
const DRAIN_MS = Number(args.drain) * 1000;
const POLL_MS = Number(args['poll-ms']);
const MAX_POLLS = Number(args['max-polls']);
const progress = (msg) => process.stderr.write(`[${new Date().toISOString().slice(11, 19)}] ${msg}\n`);
/** The machine's 1-minute load average: every latency figure is printed next to it. */
const load = () => fs.readFileSync('/proc/loadavg', 'utf8').split(' ')[0];
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
async function daemonOf(impl, noApply = false, tunables = undefined) {
  const config = await impl.loadConfig({ flags: { dir: root }, env });
  const session = await impl.openSession(config);
  const cycles = [];
  const d = { session, cycles, onCycle: null };
  const t0 = performance.now();
  d.daemon = await impl.startWatch(session, {
    noApply,
    ...(tunables ? { tunables } : {}),
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

/** Paths the branch switch deleted: later phases pick around them. */
const deleted = new Set();
function pickSource(i) {
  for (let k = 0; k < sources.length; k++) {
    const p = sources[(i + k) % sources.length];
    if (!deleted.has(p)) return p;
  }
  throw new Error('no source left');
}

/**
 * --edits one-file edits, one every --gap ms (150 ms after the previous one landed with
 * --gap 0): save -> applied, save -> volume, requests per edit. Then a branch switch on the
 * same daemon, and a no-op restart.
 */
async function perEdit(impl, edits, salt) {
  progress(`${impl.label}: starting the daemon`);
  const d = await daemonOf(impl);
  const initial = d.cycles.find((c) => c.e.trigger === 'start')?.e;
  console.log(`${impl.label}: ${d.daemon.backend} watcher; start-up cycle ${initial?.counts.written ?? 0} files written in ${initial?.requests ?? '?'} requests, ${ms(d.startMs)} to idle`);
  const apply = [];
  const vol = [];
  const reqs = [];
  const loads = [load()];
  const stats0 = d.session.client.stats().total;
  const cpu0 = process.cpuUsage();
  progress(`${impl.label}: ${edits} edits`);
  for (let k = 0; k < edits; k++) {
    const rel = pickSource(Math.floor((k * FILES) / edits) + salt);
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
    // Requests of the edit's cycle(s), and of the idle verification when the gap leaves room for it.
    await sleep(GAP_MS > 0 ? Math.max(0, t0 + GAP_MS - performance.now()) : 150);
    await d.daemon.whenIdle();
    reqs.push(d.cycles.slice(mark).reduce((n, c) => n + c.e.requests, 0));
  }
  // The last edit's idle verification.
  await sleep(1_500);
  await d.daemon.whenIdle();
  const cpu = process.cpuUsage(cpu0);
  const perEditReqs = (d.session.client.stats().total - stats0) / edits;
  loads.push(load());
  const sw = await branchSwitch(impl.label, salt, async (files) => {
    const s0 = d.session.client.stats();
    const mark = d.cycles.length;
    await files();
    return async () => {
      await sleep(1_500); // the idle verification of the switch's writes
      await d.daemon.whenIdle();
      const s1 = d.session.client.stats();
      const cycles = d.cycles.slice(mark).map((c) => `${c.e.trigger} ${c.e.requests} req (${c.e.counts?.written ?? 0} written, ${c.e.counts?.deleted ?? 0} deleted)`).join(', ');
      return { requests: s1.total - s0.total, cycles: d.cycles.length - mark, detail: `${opsOf(s1, s0)}; cycles: ${cycles}` };
    };
  });
  await d.daemon.stop();
  await d.session.close();
  progress(`${impl.label}: no-op restart`);
  const again = await daemonOf(impl);
  const start = again.cycles.find((c) => c.e.trigger === 'start')?.e;
  const noop = { requests: again.session.client.stats().total, ops: opsOf(again.session.client.stats()), written: start?.counts.written ?? 0, ms: again.startMs, load: load() };
  await again.daemon.stop();
  await again.session.close();
  const drift = await driftAfterEdit(impl, salt);
  return { apply, vol, reqs, perEditReqs, cpuMs: (cpu.user + cpu.system) / 1000 / edits, loads, sw, noop, drift };
}

/** Drift polls after an edit of ours, then a restart after an edit (see the header). */
async function driftAfterEdit(impl, salt) {
  progress(`${impl.label}: drift polls after an edit (one every ${POLL_MS} ms)`);
  const d = await daemonOf(impl, false, { pollMs: POLL_MS });
  const polls = () => d.cycles.filter((c) => c.e.trigger === 'poll');
  const pollsReach = async (n) => {
    while (polls().length < n) await sleep(50);
  };
  await pollsReach(1);
  const rel = pickSource(Math.floor(FILES / 4) + 17 + salt);
  const content = `${await readFile(path.join(root, rel), 'utf8')}// drift phase ${salt}\n`;
  await writeFile(path.join(root, rel), content);
  await landed(rel, content);
  await sleep(1_500); // its idle verification
  await d.daemon.whenIdle();
  const mark = polls().length;
  // Someone edits the deployment, far from our edit.
  const far = pickSource(Math.floor((3 * FILES) / 4) + 29 + salt);
  const theirs = await readFile(onVolume(far), 'utf8');
  await writeFile(onVolume(far), `${theirs}// edited on the server ${salt}\n`);
  let found = 0;
  for (let k = mark; found === 0 && k < mark + MAX_POLLS; k++) {
    await pollsReach(k + 1);
    if (polls()[k].e.drift.some((x) => x.path === far)) found = k - mark + 1;
  }
  const reqs = polls().slice(mark, mark + (found || MAX_POLLS)).map((c) => c.e.requests);
  await d.daemon.stop();
  await d.session.close();
  // Put the server's file back as it was (= the base): later phases start without drift.
  await writeFile(onVolume(far), theirs);

  progress(`${impl.label}: restart after an edit`);
  const rel2 = pickSource(Math.floor(FILES / 3) + 5 + salt);
  const content2 = `${await readFile(path.join(root, rel2), 'utf8')}// edited while stopped ${salt}\n`;
  await writeFile(path.join(root, rel2), content2);
  const again = await daemonOf(impl);
  await landed(rel2, content2);
  const stats = again.session.client.stats();
  const restart = { requests: stats.total, ops: opsOf(stats), ms: again.startMs, load: load() };
  await again.daemon.stop();
  await again.session.close();
  return { reqs, found, restart };
}

/**
 * A branch switch: SWITCH files rewritten, 5 new files and 5 deleted, at once. `run(files)`
 * lets the contender do its part around the file operations and returns its request count.
 */
async function branchSwitch(label, salt, run) {
  progress(`${label}: branch switch`);
  const edited = new Map();
  for (let k = 0; edited.size < SWITCH && k < SWITCH * 2; k++) {
    const rel = pickSource(Math.floor((k * FILES) / SWITCH) + 3 + salt);
    edited.set(rel, `${await readFile(path.join(root, rel), 'utf8')}// switch ${salt}.${k}\n`);
  }
  const added = new Map();
  const gone = [];
  for (let k = 0; k < 5; k++) {
    added.set(`${path.posix.dirname(pickSource(Math.floor(((k + 0.5) * FILES) / 5)))}/switch-${salt}-${k}.js`, `export const s = ${k};\n`);
    const victim = pickSource(Math.floor(((k + 0.25) * FILES) / 5) + 11 + salt);
    if (edited.has(victim)) continue;
    deleted.add(victim);
    gone.push(victim);
  }
  const load0 = load();
  const t0 = performance.now();
  const finish = await run(async () => {
    await Promise.all([
      ...[...edited, ...added].map(([rel, text]) => writeFile(path.join(root, rel), text)),
      ...gone.map((rel) => fs.promises.unlink(path.join(root, rel))),
    ]);
  }, { written: [...edited, ...added], gone });
  const done = async () => {
    for (const [rel, text] of [...edited, ...added]) if ((await readFile(onVolume(rel), 'utf8').catch(() => null)) !== text) return false;
    for (const rel of gone) if (fs.existsSync(onVolume(rel))) return false;
    return true;
  };
  while (!(await done()) && performance.now() - t0 < 300_000) await sleep(50);
  const onVol = performance.now() - t0;
  const end = await finish();
  return { files: edited.size + added.size + gone.length, ms: onVol, complete: await done(), load: load0, ...end };
}

/** Continuous saving: one save every 100 ms, alternating two files, for `seconds`. */
async function continuous(label, seconds, start) {
  progress(`${label}: continuous saving for ${seconds} s`);
  const files = [pickSource(7), pickSource(Math.floor(FILES / 2) + 3)];
  const base = await Promise.all(files.map((f) => readFile(path.join(root, f), 'utf8')));
  const saves = []; // {file, n, at, landedAt}
  const landedUpTo = [0, 0];
  // After start: with --only-continuous the daemon's start-up cycle is what fills the volume.
  const ctl = await start(files);
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
  const load0 = load();
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
  // Saving stops with the last save.
  const stoppedAt = saves.at(-1).at;
  progress(`${label}: saving stopped; waiting up to ${DRAIN_MS / 1000} s for the last saves`);
  while (saves.some((s) => s.landedAt === undefined) && performance.now() - stoppedAt < DRAIN_MS) {
    await Promise.all(watchers.map((w) => w.check()));
    await sleep(50);
  }
  const gaveUpAt = performance.now();
  const load1 = load();
  const end = await ctl.stop(Math.max(0, stoppedAt + DRAIN_MS - gaveUpAt));
  for (const w of watchers) w.w.close();
  // A save that never landed counts as the time it waited (a lower bound).
  const lags = saves.map((s) => (s.landedAt ?? gaveUpAt) - s.at);
  const censored = saves.filter((s) => s.landedAt === undefined).map((s) => gaveUpAt - s.at);
  const minCensored = censored.length ? Math.min(...censored) : Infinity;
  const lastOf = [0, 1].map((i) => saves.filter((s) => s.file === i).at(-1));
  const lastLands = lastOf.every((s) => s.landedAt !== undefined) ? Math.max(...lastOf.map((s) => s.landedAt)) - stoppedAt : null;
  const worst = saves.reduce((w, s, k) => (lags[k] > lags[w] ? k : w), 0);
  const worstAt = `the longest lag: the save at +${((saves[worst].at - t0) / 1000).toFixed(1)} s`;
  return { label, saves: saves.length, lags, minCensored, lastLands, drainedFor: gaveUpAt - stoppedAt, lost: censored.length, loads: `${load0}/${load1}`, worstAt, t0, ...end };
}

/** "files.index 2, files.writeMany 1" */
const opsOf = (st, since) =>
  Object.entries(st.byOperation)
    .map(([k, n]) => [k, n - (since?.byOperation[k] ?? 0)])
    .filter(([, n]) => n > 0)
    .map(([k, n]) => `${k} ${n}`)
    .join(', ');

/** Resolves after `msLeft` or with `p`, whichever first; true when `p` won. */
const within = (p, msLeft) => Promise.race([p.then(() => true), sleep(msLeft).then(() => false)]);

const pad = (x) => (Number.isFinite(x) ? ms(x) : 'never');
const results = [];
try {
  if (!args['only-continuous']) await editPhases();
  await continuousPhase();
} finally {
  emuProc.kill('SIGTERM');
  if (!args.keep) {
    fs.rmSync(root, { recursive: true, force: true });
    fs.rmSync(emuData, { recursive: true, force: true });
  }
}

/** Phases 2 and 3: per edit, branch switch and no-op restart for each build, then the baselines. */
async function editPhases() {
  console.log(`\n== one-file edits (API latency ${LATENCY} ms, budget raised on the emulator; the client keeps 120/min) ==`);
  for (const [i, impl] of builds.entries()) results.push({ label: impl.label, ...(await perEdit(impl, i === 0 ? EDITS : BEFORE_EDITS, i * 5)) });

  // ---- 3a. naive baseline ----
  progress('naive: edits');
  const client = new HostingClient({ baseUrl: ready.baseUrl, apiKey: ready.apiKey, deploymentId: ready.deploymentId, ledger: false });
  const nApply = [];
  const nVol = [];
  const nLoads = [load()];
  const cpuN0 = process.cpuUsage();
  for (let k = 0; k < EDITS; k++) {
    const rel = pickSource(Math.floor((k * FILES) / EDITS) + 1);
    const content = `${await readFile(path.join(root, rel), 'utf8')}// naive edit ${k}\n`;
    const t0 = performance.now();
    await writeFile(path.join(root, rel), content);
    const volP = landed(rel, content);
    await client.files.write(rel, await readFile(path.join(root, rel), 'utf8'));
    await client.deployments.apply({});
    nApply.push(performance.now() - t0);
    nVol.push((await volP) - t0);
    await sleep(GAP_MS > 0 ? Math.max(0, t0 + GAP_MS - performance.now()) : 150);
  }
  nLoads.push(load());
  const cpuN = process.cpuUsage(cpuN0);
  const naiveReqs = client.stats().total / EDITS;
  await client.close();
  // The naive branch switch: a write per changed or new file, a delete per removed one, one apply.
  const nSwitch = await branchSwitch('naive', 9, async (files, { written, gone }) => {
    const c = new HostingClient({ baseUrl: ready.baseUrl, apiKey: ready.apiKey, deploymentId: ready.deploymentId, ledger: false });
    await files();
    await Promise.all(written.map(([rel, text]) => c.files.write(rel, text)));
    if (gone.length > 0) await c.files.delete(gone.map((rel) => `/${rel}`));
    await c.deployments.apply({});
    return async () => {
      const requests = c.stats().total;
      await c.close();
      return { requests, cycles: 1 };
    };
  });

  // ---- 3b. hostsync push per save ----
  progress('hostsync push per save');
  const pWall = [];
  const pReqs = [];
  const pLoads = [load()];
  for (let k = 0; k < PUSH_EDITS; k++) {
    const rel = pickSource(Math.floor((k * FILES) / Math.max(1, PUSH_EDITS)) + 2);
    await writeFile(path.join(root, rel), `${await readFile(path.join(root, rel), 'utf8')}// push edit ${k}\n`);
    const t0 = performance.now();
    const r = spawnSync(process.execPath, [CLI, 'push', '--json', '--dir', root], { env: { ...env, PATH: process.env.PATH, HOME: os.homedir() }, encoding: 'utf8', maxBuffer: 16 << 20 });
    pWall.push(performance.now() - t0);
    const out = JSON.parse(r.stdout.trim().split('\n').at(-1));
    pReqs.push(out.requests.total);
  }
  pLoads.push(load());

  console.log(`\n== per edit (${EDITS} edits, --before: ${BEFORE_EDITS}; hostsync push: ${PUSH_EDITS}; ${GAP_MS > 0 ? `one edit every ${GAP_MS} ms` : 'back to back'}) ==`);
  row('', 'save->applied p50', 'p95', 'save->volume p50', 'p95', 'requests/edit', 'client CPU/edit', 'load avg');
  for (const r of results) row(`watch, ${r.label} (${FILES} files)`, ms(pct(r.apply, 50)), ms(pct(r.apply, 95)), ms(pct(r.vol, 50)), ms(pct(r.vol, 95)), r.perEditReqs.toFixed(2), ms(r.cpuMs), r.loads.join('-'));
  row('naive files.write + apply', ms(pct(nApply, 50)), ms(pct(nApply, 95)), ms(pct(nVol, 50)), ms(pct(nVol, 95)), naiveReqs.toFixed(2), ms((cpuN.user + cpuN.system) / 1000 / EDITS), nLoads.join('-'));
  row('hostsync push per save (CLI)', ms(pct(pWall, 50)), ms(pct(pWall, 95)), '-', '-', (pReqs.reduce((a, b) => a + b, 0) / pReqs.length).toFixed(2), '(whole process)', pLoads.join('-'));
  for (const r of results) console.log(`(${r.label}: requests per edit including its idle verification: ${[...new Set(r.reqs)].sort((a, b) => a - b).join(', ')})`);

  console.log(`\n== branch switch: ${SWITCH} files rewritten, 5 added, 5 deleted at once; no-op restart ==`);
  row('', 'requests', 'to volume', 'cycles', 'load avg', 'no-op restart: requests', 'to idle', 'load avg');
  for (const r of results) row(`watch, ${r.label}`, `${r.sw.requests}${r.sw.complete ? '' : ' (incomplete)'}`, ms(r.sw.ms), r.sw.cycles, r.sw.load, `${r.noop.requests}${r.noop.written ? ` (${r.noop.written} written)` : ''}`, ms(r.noop.ms), r.noop.load);
  row('naive (write/delete per file + apply)', `${nSwitch.requests}${nSwitch.complete ? '' : ' (incomplete)'}`, ms(nSwitch.ms), '-', nSwitch.load, '-', '-', '-');
  for (const r of results) console.log(`(${r.label}: branch switch: ${r.sw.detail}; no-op restart: ${r.noop.ops})`);

  console.log(`\n== drift polls after an edit of ours (one every ${POLL_MS} ms here, 30 s in use); restart after an edit ==`);
  row('', 'requests per poll', 'max', 'polls to find drift', 'latency at 30 s', 'restart after edit', 'to idle', 'load avg');
  for (const r of results) {
    const { reqs, found, restart } = r.drift;
    row(`watch, ${r.label}`, reqs.join(' '), Math.max(...reqs), found || `> ${MAX_POLLS}`, found ? `${found * 30} s` : '-', restart.requests, ms(restart.ms), restart.load);
  }
  for (const r of results) console.log(`(${r.label}: restart after an edit: ${r.drift.restart.ops})`);

}

/** Phase 4: continuous saving at the default limits (with --only-continuous, the daemon's start-up cycle is the initial sync). */
async function continuousPhase() {
  if (CONTINUOUS_S > 0) {
    const cont = [];
    for (const impl of builds) {
      // A fresh emulator process on the same data: a full budget, the documented limits.
      ready = await startEmu('default');
      env = envOf(ready);
      const c = await continuous(`watch, ${impl.label}`, CONTINUOUS_S, async () => {
        const d = await daemonOf(impl);
        const stats0 = d.session.client.stats();
        return {
          stop: async (msLeft) => {
            const idle = await within(d.daemon.whenIdle(), msLeft);
            const st = d.session.client.stats();
            await d.daemon.stop();
            await d.session.close();
            const other = d.cycles.filter((x) => x.e.trigger !== 'change' && x.e.trigger !== 'start');
            return {
              idle,
              requests: st.total - stats0.total,
              limited: st.rateLimited - stats0.rateLimited,
              cycles: d.cycles.filter((x) => x.e.trigger === 'change').length,
              // Cycles other than saves during the phase (when each ended, from the first save; how long it ran).
              others: (t0) => other.map((x) => `${x.e.trigger} ${x.e.requests} req, ended +${((x.at - t0) / 1000).toFixed(1)} s after ${x.e.cycleMs} ms`).join('; ') || 'none',
            };
          },
        };
      });
      // A restart right afterwards should be a no-op (nothing written).
      progress(`${impl.label}: restart after continuous saving`);
      const again = await daemonOf(impl);
      const start = again.cycles.find((x) => x.e.trigger === 'start')?.e;
      c.restart = `${again.session.client.stats().total} req, ${start?.counts.written ?? 0} written`;
      c.restartOps = opsOf(again.session.client.stats());
      await again.daemon.stop();
      await again.session.close();
      cont.push(c);
    }
    ready = await startEmu('default');
    env = envOf(ready);
    cont.push(await continuous('naive write + apply per save', CONTINUOUS_S, async () => {
      const c = new HostingClient({ baseUrl: ready.baseUrl, apiKey: ready.apiKey, deploymentId: ready.deploymentId, ledger: false });
      const inflight = [];
      return {
        saved: (rel, content) => inflight.push(c.files.write(rel, content).then(() => c.deployments.apply({})).catch(() => undefined)),
        stop: async (msLeft) => {
          const idle = await within(Promise.all(inflight), msLeft);
          const st = c.stats();
          // Still queued after the drain: dropped (a real naive client would go on for many minutes).
          await c.destroy();
          await Promise.all(inflight);
          return { idle, requests: st.total, unsent: inflight.length * 2 - st.total, limited: st.rateLimited, cycles: inflight.length };
        },
      };
    }));
    console.log(`\n== continuous saving: a save every 100 ms to two files for ${CONTINUOUS_S} s, default limits (120/min per key); ${DRAIN_MS / 1000} s allowed after ==`);
    row('', 'lag p50', 'p95', 'max', 'last save lands', '429s', 'requests', 'cycles', 'restart after', 'load avg');
    const lag = (c, p) => {
      const v = p === 'max' ? Math.max(...c.lags) : pct(c.lags, p);
      return v >= c.minCensored ? `> ${ms(v)}` : pad(v);
    };
    for (const c of cont) {
      row(c.label, lag(c, 50), lag(c, 95), lag(c, 'max'), c.lastLands === null ? `not within ${(c.drainedFor / 1000).toFixed(0)} s` : `${pad(c.lastLands)} after the last save`, c.limited, `${c.requests}${c.unsent ? ` (+${c.unsent} unsent)` : ''}`, c.cycles, c.restart ?? '-', c.loads);
    }
    for (const c of cont) if (c.restartOps) console.log(`(${c.label}: ${c.worstAt}; other cycles: ${c.others(c.t0)}; restart after: ${c.restartOps})`);
    for (const c of cont) if (c.lost > 0) console.log(`(${c.label}: ${c.lost} of ${c.saves} saves had not landed ${(c.drainedFor / 1000).toFixed(0)} s after saving stopped)`);
  }
}
