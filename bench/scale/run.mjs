#!/usr/bin/env node
/**
 * Scale benchmark (issue 16): whole processes on a ~100k-file tree, each row against a
 * named baseline measured in the same run. Prints figures, asserts nothing about speed.
 *
 *   npm run build && node bench/scale/run.mjs [--files 100000] [--runs 3] [--dir /dev/shm] [--keep] [--cpu-prof DIR] [--push-only | --status-only] [--compare DIST] [--package DIR] [--rows-at DATE]
 *
 * Rows:
 * - `hostsync status`, warm no-op (stat cache and remote digest valid) vs `git status --porcelain`;
 * - Node's floor under it (floor-walk.mjs: the walk's readdir and lstat calls alone) vs the
 *   same `git status`, and `status` of a 1-file project (what any command costs) vs
 *   `node -e 0`; their CPU added (less one Node start) is the least a warm status could cost;
 * - the same with every answer 100 ms late (a distant service) vs the warm row: what the
 *   distance adds once the walk has let the requests go (ScanOptions.walkSliceMs);
 * - `hostsync status`, cold (stat cache removed: every file hashed) vs `find | xargs -P<cores> xxhsum -H64`;
 * - `hostsync status` on a fresh clone (no `.hostsync/`: no stat cache, no local base; the
 *   whole index read and the deployment's base record downloaded), against the same xxhsum;
 * - `hostsync status` with one file edited (a line appended to the file in the middle of the
 *   walk, the stat cache otherwise warm) vs `git status --porcelain` seeing the same edit;
 * - `hostsync status` right after a save (each run appends to that file first: it is read
 *   again and the stat cache saved) vs `git status` right after the same append;
 * - a no-op `hostsync push --no-apply` (1 request) vs `git status --porcelain`;
 * - `hostsync status` with a `hostsync watch` running on the tree, asked 1 s apart and
 *   back to back (see watchRunningRow), and the first and second after an edit the watch
 *   synced (with their requests), vs `git status --porcelain`;
 * - initial `hostsync push --no-apply` (requests, wall) vs `tar czf` + one upload + one
 *   decompress through the API, each into its own fresh deployment.
 * CPU (user+sys) and peak RSS come from /usr/bin/time; each status row is the best of
 * --runs runs (peak RSS: the largest), the contenders of a row taking turns, page cache
 * warm for every contender. The emulator
 * runs in this process; every contender is a child process, so their figures are their own.
 * --dir puts the tree and the emulator's volumes elsewhere than the temp folder: on a
 * shared disk, writing 100k files twice dominates everything, so a tmpfs is kinder.
 * --cpu-prof DIR writes a V8 CPU profile of one more warm `status` into DIR (not timed), and
 * one of the watch of the watch-running row (its answers are the profile's last seconds).
 * --push-only measures the initial push row alone; --status-only the status rows alone (the
 * tree is then pushed once, untimed, to make them). Rows carry the 1-minute load average.
 * --compare DIST also times the status rows with another build's dist/ (an older commit's),
 * on a copy of the tree pushed to a deployment of its own (so each build keeps its own state
 * and stat cache, whatever their formats), before and after from one run, taking turns.
 * --rows-at DATE (e.g. 2026-11-26T18:55:00Z) waits until then, the tree made and pushed,
 * to time the status rows: runs set up side by side, each timed at a moment of its own.
 * --package DIR makes the tree of copies of DIR's tree (a real npm package, e.g.
 * node_modules/pino: many small files, a different mix from the generated tree), one copy
 * per folder p1, p2... until --files files (the last copy whole).
 */
import { execFileSync, spawn } from 'node:child_process';
import { once } from 'node:events';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { parseArgs } from 'node:util';
import { startEmulator } from '../../dist/emulator/index.js';
import { HostingClient } from '../../dist/remote/client.js';
import { generateTree } from '../scan/tree.mjs';
import { requireTime, timed as timedProcess } from '../lib/timed.mjs';

const { values: args } = parseArgs({
  options: {
    files: { type: 'string', default: '100000' },
    runs: { type: 'string', default: '3' },
    dir: { type: 'string', default: os.tmpdir() },
    keep: { type: 'boolean', default: false },
    'cpu-prof': { type: 'string' },
    'push-only': { type: 'boolean', default: false },
    'status-only': { type: 'boolean', default: false },
    compare: { type: 'string' },
    package: { type: 'string' },
    'rows-at': { type: 'string' },
  },
});
const FILES = Number(args.files);
const RUNS = Number(args.runs);
if (!Number.isInteger(FILES) || FILES < 1 || !Number.isInteger(RUNS) || RUNS < 1) {
  console.error('--files and --runs must be whole numbers >= 1');
  process.exit(2);
}
requireTime();
const CORES = typeof os.availableParallelism === 'function' ? os.availableParallelism() : os.cpus().length;
const CLI = new URL('../../dist/bin/hostsync.js', import.meta.url).pathname;
const FLOOR_WALK = new URL('./floor-walk.mjs', import.meta.url).pathname;
const work = fs.mkdtempSync(path.join(args.dir, 'hostsync-scale-'));
const tree = path.join(work, 'tree');

const timed = (cmd, argv, { env, cwd } = {}) => timedProcess(cmd, argv, { env, cwd: cwd ?? tree, timeFile: path.join(work, 'time.out') });

/** `hostsync status` (and a no-op push) of build `cli` in `cwd`, as a timed process. */
const statusOf = (cli, cwd, env) => () => timed(process.execPath, [cli, 'status'], { env, cwd });
const pushOf = (cli, cwd, env) => () => timed(process.execPath, [cli, 'push', '--no-apply'], { env, cwd });

/** `push --no-apply --json` of `cwd` with `cli`, timed; throws, naming `what`, when it fails. */
async function pushedOnce(what, cli, cwd, env) {
  const run = await timed(process.execPath, [cli, 'push', '--no-apply', '--json'], { env, cwd });
  if (run.code !== 0) throw new Error(`${what} exited ${run.code}: ${run.err.slice(0, 500)} ${run.out.slice(0, 500)}`);
  return run;
}

async function best(label, run) {
  return (await bestOfEach([[label, run]]))[0];
}

/**
 * Each contender `RUNS` times, taking turns (A, B, A, B...), so a change in the machine's
 * load during the run weighs on all of them alike: run one after the other, whichever went
 * first on a busy machine came out up to a third slower. The best of each (largest RSS).
 */
async function bestOfEach(contenders) {
  const rs = contenders.map(() => []);
  for (let i = 0; i < RUNS; i++) {
    for (const [k, [label, run]] of contenders.entries()) {
      const r = await run();
      if (r.code !== 0) throw new Error(`${label} exited ${r.code}: ${r.err.slice(0, 500)}`);
      rs[k].push(r);
    }
  }
  return rs.map((runs) => ({ wall: Math.min(...runs.map((r) => r.wall)), cpu: Math.min(...runs.map((r) => r.cpu)), rssMb: Math.max(...runs.map((r) => r.rssMb)) }));
}

/** The late answers of the "distant" row: a service ~100 ms away (a round trip across an ocean). */
const DISTANT_MS = 100;
const sh = (script) => timed('/bin/sh', ['-c', script]);
// bench/lib/timed.mjs gives every contender PATH, HOME and the HOSTSYNC_* variables alone, as
// a user's shell usually has: a NODE_EXTRA_CA_CERTS of the machine that runs the bench (it
// costs every Node process ~0.09 s of CPU to start) is not passed on.
const ENV_NOTE = `Contenders run with PATH, HOME and HOSTSYNC_* alone${process.env.NODE_EXTRA_CA_CERTS ? ' (this machine sets NODE_EXTRA_CA_CERTS, ~0.09 s of CPU per Node start: not passed on)' : ''}.\n`;
const gitRun = (...a) => timed('git', ['-c', 'gc.auto=0', ...a], { env: { GIT_AUTHOR_NAME: 'b', GIT_AUTHOR_EMAIL: 'b@b', GIT_COMMITTER_NAME: 'b', GIT_COMMITTER_EMAIL: 'b@b' } });
const f2 = (n) => n.toFixed(2);
const load = () => os.loadavg()[0].toFixed(1);
const row = (what, a, b) =>
  console.log(
    `| ${what} | ${f2(a.wall)} s wall, ${f2(a.cpu)} s CPU, ${a.rssMb.toFixed(0)} MB | ${b.name}: ${f2(b.wall)} s wall, ${f2(b.cpu)} s CPU, ${b.rssMb.toFixed(0)} MB | ${f2(a.wall / b.wall)}x wall, ${f2(a.cpu / b.cpu)}x CPU |`,
  );

const emu = await startEmulator({ dataDir: path.join(work, 'emulator'), rateLimit: 1_000_000, userRateLimit: 1_000_000, autoBackups: false });
try {
  let t = performance.now();
  const made = args.package ? copiesOfPackage(path.resolve(args.package), tree, FILES) : generateTree(tree, { files: FILES, nodeModulesFiles: 0 });
  console.log(`tree: ${made.files} files in ${made.dirs} folders, ${(made.bytes / 1e6).toFixed(0)} MB, generated in ${((performance.now() - t) / 1000).toFixed(1)} s (${work})`);
  fs.writeFileSync(path.join(tree, '.gitignore'), '.hostsync/\n');
  await gitRun('init', '-q');
  await gitRun('add', '-A');
  await gitRun('commit', '-qm', 'tree');

  const env = { HOSTSYNC_API_KEY: emu.apiKey, HOSTSYNC_BASE_URL: emu.baseUrl, HOSTSYNC_DEPLOYMENT: emu.deploymentId };
  if (args['status-only']) {
    await pushedOnce('push', CLI, tree, env);
    await statusRows(env);
  } else await pushAndStatusRows(env);
} finally {
  await emu.close();
  if (!args.keep) fs.rmSync(work, { recursive: true, force: true });
}

/** A project of one file pushed to a deployment of its own: its `status`, to be timed. */
async function oneFileProject(env) {
  const dir = path.join(work, 'one-file');
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(dir, 'index.js'), "console.log('hello');\n");
  const dep = await emu.createDeployment({ name: 'one-file' });
  const oneEnv = { ...env, HOSTSYNC_DEPLOYMENT: dep.id };
  await pushedOnce('1-file push', CLI, dir, oneEnv);
  const status = statusOf(CLI, dir, oneEnv);
  await sleep(2500); // the file past the stat cache's racy window
  await status(); // caches it: the timed runs read no file
  return status;
}

/** `copies` of `src`'s regular files (links followed) under `dest`/p1, p2... until at least `files` files. */
function copiesOfPackage(src, dest, files) {
  const list = [];
  const walk = (rel) => {
    for (const d of fs.readdirSync(path.join(src, rel), { withFileTypes: true })) {
      const r = rel ? path.join(rel, d.name) : d.name;
      const st = fs.statSync(path.join(src, r));
      if (st.isDirectory()) walk(r);
      else if (st.isFile()) list.push([r, fs.readFileSync(path.join(src, r))]);
    }
  };
  walk('');
  if (list.length === 0) throw new Error(`--package ${src}: no files`);
  const made = { files: 0, dirs: 0, bytes: 0 };
  const dirs = new Set();
  for (let k = 1; made.files < files; k++) {
    for (const [rel, data] of list) {
      const abs = path.join(dest, `p${k}`, rel);
      const dir = path.dirname(abs);
      if (!dirs.has(dir)) {
        fs.mkdirSync(dir, { recursive: true });
        dirs.add(dir);
      }
      fs.writeFileSync(abs, data);
      made.files++;
      made.bytes += data.length;
    }
  }
  made.dirs = dirs.size;
  return made;
}

/** The status rows (warm and cold) against their baselines, under the table's head. */
async function statusRows(env) {
  const status = statusOf(CLI, tree, env);
  const push = pushOf(CLI, tree, env);
  let beforePush = null;
  // The other build gets a copy of the tree (its own inodes, the same bytes) pushed to a
  // deployment of its own: its state and stat cache are its own, whatever their format.
  let before = null;
  let compareWatch = null;
  const compareTree = `${tree}-compare`;
  if (args.compare) {
    // Its bundle, or tsc's cli/main.js for a build from before the CLI was bundled.
    const bundled = path.resolve(args.compare, 'bin/hostsync.js');
    const compareCli = fs.existsSync(bundled) ? bundled : path.resolve(args.compare, 'cli/main.js');
    fs.cpSync(tree, compareTree, { recursive: true, filter: (src) => !src.includes(`${path.sep}.hostsync`) });
    const dep = await emu.createDeployment({ name: 'compare' });
    const compareEnv = { ...env, HOSTSYNC_DEPLOYMENT: dep.id };
    await pushedOnce('--compare push', compareCli, compareTree, compareEnv);
    before = statusOf(compareCli, compareTree, compareEnv);
    compareWatch = { cli: compareCli, cwd: compareTree, env: compareEnv, label: ` (${args.compare})`, volume: dep.volume };
    beforePush = pushOf(compareCli, compareTree, compareEnv);
  }
  if (args['rows-at']) {
    // Two runs set up side by side (the slow part), then timed one after the other.
    const wait = Date.parse(args['rows-at']) - Date.now();
    if (Number.isNaN(wait)) throw new Error(`--rows-at ${args['rows-at']}: not a date`);
    if (wait > 0) await sleep(wait);
  }
  await status(); // settles the stat cache past its racy window on a fresh tree
  if (before) await before(); // and its own first run, which may save the cache once in its order
  const gitRow = ['git status', () => gitRun('status', '--porcelain')];
  const [warm, gitFigures, warmBefore] = await bestOfEach([['status (warm)', status], gitRow, ...(before ? [['status (warm, --compare)', before]] : [])]);
  const gitStatus = { name: '`git status --porcelain`', ...gitFigures };
  // The same no-op status with every answer DISTANT_MS late, as from a service across an
  // ocean: what the service's distance adds to the wait, against the warm row above.
  emu.setLatency(DISTANT_MS);
  const [distant, distantBefore] = await bestOfEach([['status (warm, distant)', status], ...(before ? [['status (warm, distant, --compare)', before]] : [])]);
  emu.setLatency(0);
  // What Node allows at best (see floor-walk.mjs), and what any command costs on a 1-file
  // project (Node's start, the modules, the configuration, two requests), beside `node -e 0`.
  const one = await oneFileProject(env);
  const [floorWalk, oneStatus, nodeAlone] = await bestOfEach([
    ['floor walk', () => timed(process.execPath, [FLOOR_WALK, tree])],
    ['status (1 file)', one],
    ['node -e 0', () => timed(process.execPath, ['-e', '0'])],
  ]);
  const dropStatCache = (root) => () => {
    const stateDir = path.join(root, '.hostsync');
    for (const f of fs.readdirSync(stateDir)) if (f.startsWith('statcache')) fs.rmSync(path.join(stateDir, f));
  };
  if (args['cpu-prof']) await timed(process.execPath, ['--cpu-prof', '--cpu-prof-dir', path.resolve(args['cpu-prof']), CLI, 'status'], { env });
  const [cold, coldBefore] = await bestOfEach([
    ['status (cold)', () => (dropStatCache(tree)(), status())],
    ...(before ? [['status (cold, --compare)', () => (dropStatCache(compareTree)(), before())]] : []),
  ]);
  // A fresh clone (CI, a teammate): no .hostsync/ at all, so no stat cache and no local base:
  // the whole index is read and the deployment's base record downloaded and replayed. Each
  // run starts from the state folder taken away; it is put back afterwards for the rows below.
  const asFreshClone = (root, run) => {
    const kept = `${root}-hostsync-kept`;
    fs.cpSync(path.join(root, '.hostsync'), kept, { recursive: true });
    return {
      run: () => (fs.rmSync(path.join(root, '.hostsync'), { recursive: true, force: true }), run()),
      restore: () => {
        fs.rmSync(path.join(root, '.hostsync'), { recursive: true, force: true });
        fs.renameSync(kept, path.join(root, '.hostsync'));
      },
    };
  };
  const fresh = asFreshClone(tree, status);
  const freshBefore = before ? asFreshClone(compareTree, before) : null;
  const [clone, cloneBefore] = await bestOfEach([['status (fresh clone)', fresh.run], ...(freshBefore ? [['status (fresh clone, --compare)', freshBefore.run]] : [])]);
  fresh.restore();
  freshBefore?.restore();
  await status(); // leave a warm cache behind (--keep)
  const edited = oneEdit(tree, before ? compareTree : null);
  await status(); // past the racy window: the edited file is cached from here on
  if (before) await before();
  const [edit, gitEdit, editBefore] = await bestOfEach([['status (one edit)', status], gitRow, ...(before ? [['status (one edit, --compare)', before]] : [])]);
  // The first status after a save: each run appends to the edited file first, so it is read
  // again (its mtime within the 2 s racy window) and the stat cache saved; git sees the same.
  const editing = (root, run) => () => (fs.appendFileSync(path.join(root, edited.rel), '// edited again\n'), run());
  const [justEdited, gitJustEdited, justEditedBefore] = await bestOfEach([
    ['status (just edited)', editing(tree, status)],
    ['git status (just edited)', editing(tree, gitRow[1])],
    ...(before ? [['status (just edited, --compare)', editing(compareTree, before)]] : []),
  ]);
  edited.undo();
  await status(); // leave a warm cache of the unedited tree behind (--keep)
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 2500); // the undone file past the racy window
  await push(); // a first push after the undo, untimed (the undone file read once more)
  if (beforePush) await beforePush();
  const [noopPush, gitNoop, noopPushBefore] = await bestOfEach([['push (no-op)', push], gitRow, ...(beforePush ? [['push (no-op, --compare)', beforePush]] : [])]);
  // As many xxhsum processes as cores, each given 2000 files at once (the cores hostsync's scan may use).
  const xx = { name: `\`find | xargs -P${CORES} xxhsum -H64\``, ...(await best('xxhsum', () => sh(`find . -path ./.git -prune -o -path ./.hostsync -prune -o -type f -print0 | xargs -0 -P${CORES} -n 2000 xxhsum -H64 > /dev/null`))) };

  console.log(`\nnode ${process.version}, ${os.cpus().length} cores, best of ${RUNS} (peak RSS: largest), load ${load()}\n`);
  console.log(ENV_NOTE);
  console.log('| what | hostsync | baseline | ratio |');
  console.log('|---|---|---|---|');
  row('`hostsync status`, no-op, warm', warm, gitStatus);
  row('`hostsync status`, cold (no stat cache)', cold, xx);
  if (warmBefore) row(`\`hostsync status\`, no-op, warm (${args.compare})`, warmBefore, gitStatus);
  row(`\`hostsync status\`, no-op, warm, each answer ${DISTANT_MS} ms late`, distant, { name: 'the warm row (answers at once)', ...warm });
  if (distantBefore) row(`\`hostsync status\`, no-op, warm, each answer ${DISTANT_MS} ms late (${args.compare})`, distantBefore, { name: 'its warm row', ...warmBefore });
  if (coldBefore) row(`\`hostsync status\`, cold (${args.compare})`, coldBefore, xx);
  row("Node's floor: the walk's system calls alone (`floor-walk.mjs`: readdir and lstat of every file, nothing compared)", floorWalk, gitStatus);
  row('`hostsync status`, no-op, a 1-file project: what every command costs', oneStatus, { name: '`node -e 0`', ...nodeAlone });
  const floorCpu = floorWalk.cpu + oneStatus.cpu - nodeAlone.cpu;
  console.log(`| (the floor's CPU plus a command's own, less one Node start) | ${f2(floorCpu)} s CPU | \`git status --porcelain\`: ${f2(gitStatus.cpu)} s CPU | ${f2(floorCpu / gitStatus.cpu)}x CPU |`);
  row('`hostsync status`, fresh clone (no `.hostsync/`: whole index, base record downloaded)', clone, xx);
  if (cloneBefore) row(`\`hostsync status\`, fresh clone (${args.compare})`, cloneBefore, xx);
  const gitEditRow = { name: '`git status --porcelain` (the same edit)', ...gitEdit };
  row(`\`hostsync status\`, one file edited (${edited.rel})`, edit, gitEditRow);
  if (editBefore) row(`\`hostsync status\`, one file edited (${args.compare})`, editBefore, gitEditRow);
  const gitJustRow = { name: '`git status --porcelain` (right after the same append)', ...gitJustEdited };
  row(`\`hostsync status\` right after a save (within the racy window)`, justEdited, gitJustRow);
  if (justEditedBefore) row(`\`hostsync status\` right after a save (${args.compare})`, justEditedBefore, gitJustRow);
  const gitNoopRow = { name: '`git status --porcelain`', ...gitNoop };
  row('`hostsync push --no-apply`, no-op (1 request)', noopPush, gitNoopRow);
  if (noopPushBefore) row(`\`hostsync push --no-apply\`, no-op (${args.compare})`, noopPushBefore, gitNoopRow);
  await watchRunningRow({ cli: CLI, cwd: tree, env, label: '', volume: emu.volume }, gitRow);
  // The other build's watch on its own tree, after this one has stopped (one watch at a time).
  if (compareWatch) await watchRunningRow(compareWatch, gitRow);
}

/**
 * `status` while a `hostsync watch --no-apply` runs on the tree (issue 32): status asks it
 * what changed instead of scanning. The row is the status process; the watch's own CPU per
 * question (from /proc, everything it did while the row ran, divided by the runs) is
 * printed beside it, so nothing the answer costs is hidden in the daemon.
 *
 * Two rows, because @parcel/watcher hands an event over at once only when it has handed
 * none over for 500 ms, and else batches it for 50 ms: the watch's probe file (which
 * vouches that every event before the question is in) pays that batching when the last
 * question's probe was reported less than 0.5 s before. "1 s apart" is a person typing
 * `status`; "back to back" a script asking twice in a row (the second one timed).
 */
/** Waits until the deployment's `volume` holds `rel` as `cwd` does (the watch pushed it); 60 s at most. */
async function synced(cwd, volume, rel) {
  const want = fs.readFileSync(path.join(cwd, rel));
  const until = Date.now() + 60_000;
  for (;;) {
    try {
      if (fs.readFileSync(path.join(volume, rel)).equals(want)) return;
    } catch {
      // not there yet
    }
    if (Date.now() > until) throw new Error(`the watch did not push ${rel} within 60 s`);
    await sleep(100);
  }
}

async function watchRunningRow({ cli, cwd, env, label, volume }, gitRow) {
  // With --cpu-prof the watch is profiled too (written when it stops): its answers are the profile's last seconds.
  const prof = args['cpu-prof'] && !label ? ['--cpu-prof', '--cpu-prof-dir', path.join(path.resolve(args['cpu-prof']), 'watch-daemon')] : [];
  const daemon = spawn(process.execPath, [...prof, cli, 'watch', '--no-apply', '--watcher', 'native'], { cwd, env: { PATH: process.env.PATH, HOME: os.homedir(), ...env }, stdio: 'ignore' });
  const ticks = Number(execFileSync('getconf', ['CLK_TCK']).toString()) || 100;
  const daemonCpu = () => {
    const f = fs.readFileSync(`/proc/${daemon.pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return (Number(f[11]) + Number(f[12])) / ticks;
  };
  try {
    const until = Date.now() + 600_000;
    const started = performance.now();
    for (;;) {
      const r = await timed(process.execPath, [cli, 'status', '--json'], { env, cwd });
      const local = JSON.parse(r.out).local;
      if (local.source === 'watch') break;
      if (Date.now() > until) throw new Error(`the watch never answered status: ${local.why}`);
      await sleep(1000);
    }
    console.log(`(watch${label}: answering status ${((performance.now() - started) / 1000).toFixed(1)} s after its start)`);
    // The watch's start-up (its second look at the tree once the watcher is ready) is over by now.
    await sleep(5000);
    const status = statusOf(cli, cwd, env);
    const apart = async () => (await sleep(1000), status());
    const cpu0 = daemonCpu();
    const [asked, git] = await bestOfEach([['status (watch running, 1 s apart)', apart], gitRow]);
    const perQuestion = (daemonCpu() - cpu0) / RUNS;
    const [again] = await bestOfEach([['status (watch running, back to back)', async () => (await status(), status())]]);
    if (args['cpu-prof'] && !label) await timed(process.execPath, ['--cpu-prof', '--cpu-prof-dir', path.join(path.resolve(args['cpu-prof']), 'watch-running'), cli, 'status'], { env, cwd });
    row(`\`hostsync status\`, no-op, a watch running, asked 1 s apart${label} (watch's CPU per status: ${f2(perQuestion)} s)`, asked, { name: '`git status --porcelain`', ...git });
    row(`\`hostsync status\`, a watch running, asked back to back${label} (the second of two timed)`, again, { name: '`git status --porcelain`', ...git });
    // After an edit the watch synced (issue 45, item 4): the first status after it, and the next.
    const afterEdit = [[], []];
    for (let i = 0; i < RUNS; i++) {
      const edit = oneEdit(cwd, null);
      await synced(cwd, volume, edit.rel);
      for (const k of [0, 1]) {
        const r = await timed(process.execPath, [cli, 'status', '--json'], { env, cwd });
        const req = JSON.parse(r.out).requests;
        afterEdit[k].push({ ...r, requests: typeof req === 'number' ? req : req.total });
      }
      edit.undo();
      await synced(cwd, volume, edit.rel);
    }
    for (const [k, what] of ['first', 'second'].entries()) {
      const runs = afterEdit[k];
      const fig = { wall: Math.min(...runs.map((r) => r.wall)), cpu: Math.min(...runs.map((r) => r.cpu)), rssMb: Math.max(...runs.map((r) => r.rssMb)) };
      row(`\`hostsync status\`, a watch running, the ${what} after an edit it synced${label} (requests: ${runs.map((r) => r.requests).join(', ')})`, fig, { name: '`git status --porcelain`', ...git });
    }
  } finally {
    daemon.kill('SIGINT');
    await once(daemon, 'exit');
  }
}

/**
 * Appends a line to the file in the middle of the walk (the middle entry of each folder, down
 * to a file) in `root` and, the same path, in `other`; waits out the stat cache's racy
 * window (2 s), so the first status after it caches the edited file. `undo` puts it back.
 */
function oneEdit(root, other) {
  let rel = '';
  for (;;) {
    const names = fs.readdirSync(path.join(root, rel), { withFileTypes: true }).filter((d) => !d.name.startsWith('.')).sort((a, b) => (a.name < b.name ? -1 : 1));
    const d = names[Math.floor(names.length / 2)];
    rel = rel ? `${rel}/${d.name}` : d.name;
    if (!d.isDirectory()) break;
  }
  const roots = other ? [root, other] : [root];
  const was = fs.readFileSync(path.join(root, rel));
  for (const r of roots) fs.appendFileSync(path.join(r, rel), '// one edit\n');
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 2500);
  return { rel, undo: () => roots.forEach((r) => fs.writeFileSync(path.join(r, rel), was)) };
}

/** The initial push row against its baseline, and (unless --push-only) the status rows before it. */
async function pushAndStatusRows(env) {
  let t;
  // Baseline for the initial push: tar czf, one upload, one decompress, into a fresh deployment.
  const other = await emu.createDeployment({ name: 'tar-baseline' });
  // A long timeout: decompressing 100k files on a loaded 2-core machine can take minutes.
  const client = new HostingClient({ baseUrl: emu.baseUrl, apiKey: emu.apiKey, deploymentId: other.id, timeoutMs: 30 * 60_000 });
  const archive = path.join(work, 'tree.tar.gz');
  t = performance.now();
  const tarRun = await timed('tar', ['czf', archive, '--exclude=./.git', '.']);
  await client.files.upload('/', [{ name: 'tree.tar.gz', localPath: archive, size: fs.statSync(archive).size }]);
  await client.files.decompress('tree.tar.gz', { removeArchive: true });
  const tarWall = (performance.now() - t) / 1000;
  const tarLoad = load();
  const tarRequests = client.stats().total;
  await client.close();

  // hostsync's initial push into the default deployment.
  emu.resetStats();
  const pushRun = await pushedOnce('push', CLI, tree, env);
  const pushReq = JSON.parse(pushRun.out).requests;
  const byOp = Object.entries(pushReq.byOperation).map(([op, n]) => `${n} ${op}`).join(', ');
  const pushRequests = `${pushReq.total} requests (${byOp})`;
  const pushLoad = load();
  const pushRow = `| initial \`push --no-apply\` | ${f2(pushRun.wall)} s wall (load ${pushLoad}), ${f2(pushRun.cpu)} s CPU, ${pushRun.rssMb.toFixed(0)} MB, ${pushRequests} | tar czf + upload + decompress: ${f2(tarWall)} s wall (load ${tarLoad}; tar ${f2(tarRun.cpu)} s CPU, ${(fs.statSync(archive).size / 1e6).toFixed(1)} MB), ${tarRequests} requests | ${f2(pushRun.wall / tarWall)}x wall |`;
  if (args['push-only']) console.log(`\nnode ${process.version}, ${os.cpus().length} cores\n\n| what | hostsync | baseline | ratio |\n|---|---|---|---|`);
  else await statusRows(env);
  console.log(pushRow);
}
