#!/usr/bin/env node
// Local scan benchmark (GitHub issues 4 and 5): prints figures, asserts nothing.
//
//   npm run build && node bench/scan/run.mjs [--files 100000] [--keep]
//   (or SCAN_BENCH_FILES=20000 node bench/scan/run.mjs)
//
// On a generated tree (plus a node_modules/ the scan must skip), committed to git:
// - cold scan (hash everything) vs `find | xargs xxhsum -H64` (when xxhsum exists)
// - warm no-op scan (stat cache hits) vs `git status --porcelain`
// - peak RSS, and chokidar watcher start-up (time to ready, RSS delta) vs the cold scan.
// The page cache is warm for every contender (git add has just read every file); each
// figure is the best of a few runs, since the machine is shared and noisy.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { parseArgs } from 'node:util';
import { generateTree } from './tree.mjs';

const dist = (p) => new URL(`../../dist/local/${p}`, import.meta.url).href;
const { loadIgnoreMatcher } = await import(dist('ignore-file.js'));
const { scanTree } = await import(dist('scan.js'));
const { StatCache } = await import(dist('statcache.js'));
const { startWatcher } = await import(dist('watcher.js'));
const { STAT_CACHE_RACY_WINDOW_MS } = await import(new URL('../../dist/local/tunables.js', import.meta.url).href);

const { values: args } = parseArgs({
  options: {
    files: { type: 'string', default: process.env.SCAN_BENCH_FILES ?? '100000' },
    runs: { type: 'string', default: '2' },
    keep: { type: 'boolean', default: false },
    'no-watch': { type: 'boolean', default: false },
  },
});
const FILES = Number(args.files);
const RUNS = Math.max(1, Number(args.runs));

const mb = (bytes) => `${(bytes / 1024 / 1024).toFixed(0)} MB`;
const sec = (ms) => `${(ms / 1000).toFixed(2)} s`;
const maxRssBytes = () => process.resourceUsage().maxRSS * 1024; // maxRSS is in KiB
const has = (cmd) => spawnSync('sh', ['-c', `command -v ${cmd}`]).status === 0;

function timeShell(cmd, cwd) {
  const t = performance.now();
  const r = spawnSync('sh', ['-c', cmd], { cwd, stdio: ['ignore', 'ignore', 'pipe'], maxBuffer: 64 << 20 });
  const ms = performance.now() - t;
  if (r.status !== 0) throw new Error(`${cmd} failed (${r.status}): ${r.stderr}`);
  return ms;
}

/** The fastest of n runs (all of its figures, not a mix of runs). */
async function best(n, fn) {
  let fastest;
  for (let i = 0; i < n; i++) {
    const r = await fn();
    if (fastest === undefined || r.ms < fastest.ms) fastest = r;
  }
  return fastest;
}

const root = fs.mkdtempSync(path.join(os.tmpdir(), 'hostsync-bench-scan-'));
const figures = { files: FILES };
try {
  console.log(`tree: ${root}`);
  let t = performance.now();
  const gen = generateTree(root, { files: FILES });
  // What a real repository would keep out of git (and what hostsync ignores by default).
  fs.writeFileSync(path.join(root, '.gitignore'), 'node_modules/\n.hostsync/\n');
  console.log(`generated ${gen.files} files (+${gen.nodeModulesFiles} in node_modules), ${gen.dirs} dirs, ${mb(gen.bytes)} in ${sec(performance.now() - t)}`);
  const generatedAt = Date.now();

  t = performance.now();
  // No background `git gc --auto` after the big commit: it would compete with the
  // measurements and still be writing into .git when the tree is removed.
  const git = (cmd) => timeShell(`git -c user.name=bench -c user.email=bench@localhost -c commit.gpgsign=false -c gc.auto=0 -c maintenance.auto=false ${cmd}`, root);
  git('init -q');
  git('add -A');
  git('commit -q -m tree');
  console.log(`git init + add + commit: ${sec(performance.now() - t)}`);

  // Files younger than the racy window are re-hashed by design; a warm scan is measured on
  // a tree nobody is editing.
  await sleep(Math.max(0, generatedAt + STAT_CACHE_RACY_WINDOW_MS + 100 - Date.now()));

  const matcher = await loadIgnoreMatcher(root);
  const cacheFile = path.join(root, '.hostsync', 'statcache.bin');

  // ---- cold: hash everything ----
  if (has('xxhsum')) {
    const cmd = "find . -path ./node_modules -prune -o -path ./.git -prune -o -path ./.hostsync -prune -o -type f -print0 | xargs -0 xxhsum -H64";
    figures.xxhsumMs = (await best(RUNS, () => ({ ms: timeShell(`${cmd} > /dev/null`, root) }))).ms;
  } else {
    console.log('xxhsum not installed (apt-get install xxhash): that baseline is skipped');
  }
  const cold = await best(RUNS, async () => {
    fs.rmSync(path.dirname(cacheFile), { recursive: true, force: true });
    const cache = await StatCache.load(cacheFile);
    const r = await scanTree({ root, matcher, cache });
    const s = performance.now();
    await cache.save();
    return { ms: r.stats.ms, saveMs: performance.now() - s, stats: r.stats, cacheBytes: fs.statSync(cacheFile).size };
  });
  figures.coldScanMs = cold.ms;
  figures.cacheSaveMs = cold.saveMs;
  figures.cacheBytes = cold.cacheBytes;
  if (cold.stats.files !== FILES + 1) throw new Error(`cold scan saw ${cold.stats.files} files, expected ${FILES + 1} (node_modules must be skipped)`);

  // ---- warm: nothing changed ----
  const warm = await best(RUNS + 1, async () => {
    const s = performance.now();
    const cache = await StatCache.load(cacheFile);
    const loadMs = performance.now() - s;
    const r = await scanTree({ root, matcher, cache });
    return { ms: loadMs + r.stats.ms, loadMs, scanMs: r.stats.ms, stats: r.stats };
  });
  if (warm.stats.hashed !== 0) console.log(`note: warm scan re-hashed ${warm.stats.hashed} files`);
  figures.warmScanMs = warm.ms;
  figures.warmCacheLoadMs = warm.loadMs;
  git('status --porcelain'); // let git refresh its index once, as it would after any commit
  figures.gitStatusMs = (await best(RUNS + 1, () => ({ ms: git('status --porcelain') }))).ms;
  figures.scanPeakRssBytes = maxRssBytes();

  console.log('');
  console.log(`cold scan (hash all ${cold.stats.files} files): ${sec(figures.coldScanMs)}  (+ cache save ${sec(figures.cacheSaveMs)}, ${mb(figures.cacheBytes)})`);
  if (figures.xxhsumMs !== undefined) {
    console.log(`  find | xargs xxhsum -H64:          ${sec(figures.xxhsumMs)}   ratio hostsync/xxhsum = ${(figures.coldScanMs / figures.xxhsumMs).toFixed(2)}`);
  }
  console.log(`warm no-op scan (load cache + scan): ${sec(figures.warmScanMs)}  (load ${sec(warm.loadMs)} + scan ${sec(warm.scanMs)}, ${warm.stats.cached} cached, ${warm.stats.hashed} hashed)`);
  console.log(`  git status --porcelain:            ${sec(figures.gitStatusMs)}   ratio hostsync/git = ${(figures.warmScanMs / figures.gitStatusMs).toFixed(2)}`);
  console.log(`peak RSS after scans: ${mb(figures.scanPeakRssBytes)}`);

  // ---- watcher start-up ----
  if (!args['no-watch']) {
    global.gc?.();
    const rssBefore = process.memoryUsage().rss;
    const s = performance.now();
    const w = await startWatcher({ root, matcher, onEvents: () => {}, onError: (e) => console.log(`watcher error: ${e.message}`) });
    figures.watcherReadyMs = performance.now() - s;
    figures.watcherRssDeltaBytes = process.memoryUsage().rss - rssBefore;
    figures.watcherPeakRssBytes = maxRssBytes();
    await w.close();
    console.log(`watcher (chokidar) ready: ${sec(figures.watcherReadyMs)}, RSS +${mb(figures.watcherRssDeltaBytes)} (peak ${mb(figures.watcherPeakRssBytes)})   ratio watcher/cold scan = ${(figures.watcherReadyMs / figures.coldScanMs).toFixed(2)}`);
  }
  console.log(JSON.stringify({ bench: 'scan', ...figures }));
} finally {
  if (args.keep) console.log(`kept ${root}`);
  else fs.rmSync(root, { recursive: true, force: true, maxRetries: 5 });
}
