// A code-only restart of a bot, with the runtime's default start command (an install at
// every boot) and with `"install": "on-change"` (a start command that only starts the app),
// side by side, against the emulator (which installs at every boot as the service does):
//
//   npm run build && node bench/bots/install.mjs [--restarts 5]
//
// The bot depends on real packages: this repository's own copies of undici, commander,
// dotenv, picocolors, ignore, diff, acorn and fastest-levenshtein (no dependencies of
// their own), packed with `npm pack` into tarballs the bot's package.json names, so the
// install is npm's real work (unpack, link, lockfile) and reaches no registry. Each
// restart is `push()` of a one-line edit of bot.js, timed from the call to the worker's
// ready line. Prints the median and the range of each; asserts nothing about speed.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';

const { values: args } = parseArgs({ options: { restarts: { type: 'string', default: '5' } } });
const RESTARTS = Number(args.restarts);
const REPO = path.resolve(new URL('../..', import.meta.url).pathname);
const dist = (p) => new URL(`../../dist/${p}`, import.meta.url).href;
const { push } = await import(dist('index.js'));
const { startEmulator } = await import(dist('emulator/index.js'));

const PACKAGES = ['undici', 'commander', 'dotenv', 'picocolors', 'ignore', 'diff', 'acorn', 'fastest-levenshtein'];
const tmp = mkdtempSync(path.join(os.tmpdir(), 'hostsync-bench-bots-'));
const vendor = path.join(tmp, 'vendor');
mkdirSync(vendor);
const tarballs = {};
for (const name of PACKAGES) {
  const out = execFileSync('npm', ['pack', path.join(REPO, 'node_modules', name), '--pack-destination', vendor, '--silent', '--ignore-scripts'], { encoding: 'utf8' }).trim().split('\n').pop();
  tarballs[name] = `file:vendor/${out}`;
}

const bot = (n) => `${PACKAGES.map((p, i) => `const m${i} = require('${p}');`).join('\n')}\nconsole.log('ready', ${n});\nsetInterval(() => {}, 1000);\n`;

async function project(dir, deployment, install) {
  mkdirSync(dir, { recursive: true });
  execFileSync('cp', ['-r', vendor, dir]);
  writeFileSync(path.join(dir, 'package.json'), JSON.stringify({ name: 'bot', private: true, dependencies: tarballs }));
  writeFileSync(path.join(dir, 'bot.js'), bot(0));
  writeFileSync(path.join(dir, 'hostsync.json'), JSON.stringify({
    deployment,
    startup: { runtime: 'nodejs', entryFile: 'bot.js' },
    health: { kind: 'worker', ready: '^ready', timeoutSeconds: 120 },
    ...(install ? { install } : {}),
  }));
}

const emu = await startEmulator({ ramMB: 1024 });
const env = { HOSTSYNC_BASE_URL: emu.baseUrl, HOSTSYNC_API_KEY: emu.apiKey };
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const rows = [];
try {
  for (const [label, install] of [['default start (install at every boot)', null], ['"install": "on-change"', 'on-change']]) {
    const dep = await emu.createDeployment({ name: install ?? 'default', runtime: 'nodejs', entryFile: 'bot.js', ramMB: 1024 });
    const dir = path.join(tmp, install ?? 'default');
    await project(dir, dep.id, install);
    // The first push installs either way: not what is measured.
    const first = await push({ dir, env });
    if (!first.ok) throw new Error(`${label}: first push failed: ${first.error}`);
    const times = [];
    for (let i = 1; i <= RESTARTS; i++) {
      writeFileSync(path.join(dir, 'bot.js'), bot(i));
      const t0 = performance.now();
      const r = await push({ dir, env });
      const ms = performance.now() - t0;
      if (!r.ok) throw new Error(`${label}: restart ${i} failed: ${r.error}`);
      if (r.install) throw new Error(`${label}: a code-only push ran an install`);
      times.push(ms);
    }
    rows.push({ label, median: median(times), min: Math.min(...times), max: Math.max(...times) });
  }
} finally {
  await emu.close();
  rmSync(tmp, { recursive: true, force: true });
}
const s = (ms) => `${(ms / 1000).toFixed(2)} s`;
console.log(`code-only restart of a bot with ${PACKAGES.length} real dependencies (${RESTARTS} restarts each, push() to ready line):`);
for (const r of rows) console.log(`  ${r.label.padEnd(40)} median ${s(r.median)}  (${s(r.min)} .. ${s(r.max)})`);
console.log(`  saved per code restart: ${s(rows[0].median - rows[1].median)}`);
