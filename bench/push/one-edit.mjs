#!/usr/bin/env node
/**
 * A one-file push as a user waits for it (issue 45, item 3): prints figures, asserts nothing.
 *
 *   npm run build && node bench/push/one-edit.mjs [--files 3000] [--latency 20] [--runs 5] [--compare DIST] [--dir /tmp]
 *
 * Each contender (this build; with --compare, another build's dist/, e.g. the commit before
 * in a git worktree) gets its own emulator process (20 ms added latency by default, budget
 * lifted so pacing stays out of the figures) and its own git repository of `--files` small
 * files, pushed once. Then, as whole `hostsync push --no-apply --json` processes under
 * /usr/bin/time (wall, CPU, peak RSS; requests from the command's own JSON):
 *   - laptop, one file edited (an overwrite), `--runs` times;
 *   - laptop, one new file;
 *   - laptop, nothing changed (a no-op);
 *   - a fresh clone (`git clone --depth 1` of a commit holding one more edited file, as a CI
 *     job checks out), its push: the base record is read, the clone is ahead of the last push.
 * The contenders take turns, step by step, so a load that comes and goes falls on both.
 * The baseline a naive client would be: one files.write per file, no reads (1 request, no
 * safety): printed for scale.
 */
import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import readline from 'node:readline';
import { parseArgs } from 'node:util';
import { requireTime, timed } from '../lib/timed.mjs';

const { values: args } = parseArgs({
  options: {
    files: { type: 'string', default: '3000' },
    latency: { type: 'string', default: '20' },
    runs: { type: 'string', default: '5' },
    compare: { type: 'string' },
    dir: { type: 'string', default: os.tmpdir() },
  },
});
const FILES = Number(args.files);
const RUNS = Number(args.runs);
requireTime();

const here = path.dirname(new URL(import.meta.url).pathname);
const THIS_DIST = path.resolve(here, '../../dist');
const GIT_ENV = { ...process.env, GIT_AUTHOR_NAME: 'b', GIT_AUTHOR_EMAIL: 'b@x', GIT_COMMITTER_NAME: 'b', GIT_COMMITTER_EMAIL: 'b@x' };
const git = (cwd, ...a) => execFileSync('git', ['-c', 'init.defaultBranch=main', '-c', 'protocol.file.allow=always', ...a], { cwd, env: GIT_ENV, stdio: ['ignore', 'pipe', 'pipe'] });

/** The emulator in its own process (bench/watch/emulator-child.mjs), so the CPU figures are the client's alone. */
async function emulator() {
  const child = spawn(process.execPath, [path.join(here, '../watch/emulator-child.mjs'), args.latency], { stdio: ['ignore', 'pipe', 'inherit'] });
  const line = await new Promise((resolve, reject) => {
    readline.createInterface({ input: child.stdout }).once('line', resolve);
    child.once('exit', (code) => reject(new Error(`emulator exited ${code}`)));
  });
  return { ...JSON.parse(line), stop: () => child.kill('SIGTERM') };
}

function writeTree(root) {
  fs.writeFileSync(path.join(root, '.gitignore'), '.hostsync/\n');
  fs.writeFileSync(path.join(root, 'index.html'), '<title>bench</title>\n');
  for (let i = 0; i < FILES; i++) {
    const f = path.join(root, 'src', `mod${i % 40}`, `sub${i % 7}`, `file${i}.js`);
    fs.mkdirSync(path.dirname(f), { recursive: true });
    fs.writeFileSync(f, `export const v${i} = ${i};\n`);
  }
}

/** One contender's emulator, repository and CLI; `run(cwd)` times one whole push there. */
async function contender(label, dist, work) {
  const emu = await emulator();
  const env = { HOSTSYNC_API_KEY: emu.apiKey, HOSTSYNC_BASE_URL: emu.baseUrl, HOSTSYNC_DEPLOYMENT: emu.deploymentId };
  const cli = path.join(dist, 'bin/hostsync.js');
  const timeFile = path.join(work, 'time.txt');
  const laptop = path.join(work, 'laptop');
  fs.mkdirSync(laptop, { recursive: true });
  writeTree(laptop);
  git(laptop, 'init', '-q');
  git(laptop, 'add', '-A');
  git(laptop, 'commit', '-q', '-m', 'first');
  const run = async (cwd) => {
    const r = await timed(process.execPath, [cli, 'push', '--no-apply', '--json'], { env, cwd, timeFile });
    if (r.code !== 0) throw new Error(`${label}: push exited ${r.code}: ${r.err || r.out}`);
    const json = JSON.parse(r.out);
    return { wall: r.wall, cpu: r.cpu, rssMb: r.rssMb, requests: json.requests.total, ops: json.requests.byOperation };
  };
  await run(laptop);
  return { label, work, laptop, run, stop: () => emu.stop() };
}

/** The steps every contender takes, in turns: each returns one timed push. */
const steps = [
  ...Array.from({ length: RUNS }, (_, i) => ['laptop, one file edited', (c) => (fs.appendFileSync(path.join(c.laptop, 'src/mod1/sub1/file1.js'), `// edit ${i}\n`), c.run(c.laptop))]),
  ['laptop, one new file', (c) => (fs.writeFileSync(path.join(c.laptop, 'src/new-file.js'), 'export const fresh = 1;\n'), c.run(c.laptop))],
  ['laptop, no-op', (c) => c.run(c.laptop)],
  [
    'fresh clone (--depth 1), one file edited',
    (c) => {
      git(c.laptop, 'add', '-A');
      git(c.laptop, 'commit', '-q', '-m', 'pushed');
      fs.appendFileSync(path.join(c.laptop, 'src/mod2/sub2/file2.js'), '// from CI\n');
      git(c.laptop, 'commit', '-q', '-am', 'one more');
      const clone = path.join(c.work, 'clone');
      git(c.work, 'clone', '-q', '--depth', '1', `file://${c.laptop}`, clone);
      return c.run(clone);
    },
  ],
];

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const ops = (o) => Object.entries(o).map(([k, v]) => `${k.replace('files.', '')} ${v}`).join(', ');

const contenders = [['this build', THIS_DIST], ...(args.compare ? [['--compare', path.resolve(args.compare)]] : [])];
const set = [];
/** rows[label] = [[what, [figures...]], ...] in step order. */
const rows = new Map();
try {
  for (const [label, dist] of contenders) set.push(await contender(label, dist, fs.mkdtempSync(path.join(args.dir, 'hostsync-one-edit-'))));
  for (const [what, step] of steps) {
    for (const c of set) {
      const list = rows.get(c.label) ?? [];
      rows.set(c.label, list);
      const figures = await step(c);
      const row = list.find((r) => r[0] === what);
      if (row) row[1].push(figures);
      else list.push([what, [figures]]);
    }
  }
} finally {
  for (const c of set) {
    c.stop();
    fs.rmSync(c.work, { recursive: true, force: true });
  }
}
const results = [...rows.entries()];
console.log(`\n${FILES} files, ${args.latency} ms added latency, node ${process.version}, ${os.cpus().length} cores; medians of the runs\n`);
console.log('| push | build | requests | which | wall s | CPU s | peak RSS MB |\n|---|---|---|---|---|---|---|');
for (let i = 0; i < results[0][1].length; i++) {
  for (const [label, rows] of results) {
    const [what, runs] = rows[i];
    const last = runs.at(-1);
    console.log(`| ${what} | ${label} | ${median(runs.map((r) => r.requests))} | ${ops(last.ops)} | ${median(runs.map((r) => r.wall)).toFixed(2)} | ${median(runs.map((r) => r.cpu)).toFixed(2)} | ${Math.round(median(runs.map((r) => r.rssMb)))} |`);
  }
}
console.log('| naive client (one files.write, no read, no record, no check) | - | 1 | write 1 | - | - | - |');
