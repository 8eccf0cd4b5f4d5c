// One measurement in a fresh process, so RSS figures are not mixed up with another's:
//   node bench/watch/startup.mjs scan|native|chokidar ROOT
// Prints one JSON line: {mode, ms, rssDeltaMB, maxRssMB, files?}.
import { performance } from 'node:perf_hooks';

const [mode, root] = process.argv.slice(2);
const dist = (p) => new URL(`../../dist/${p}`, import.meta.url).href;
const { loadIgnoreMatcher } = await import(dist('local/ignore-file.js'));
const { scanTree } = await import(dist('local/scan.js'));
const { StatCache } = await import(dist('local/statcache.js'));
const { startWatcherBackend } = await import(dist('watch/watcher-backend.js'));

const matcher = await loadIgnoreMatcher(root, []);
global.gc?.();
const rss0 = process.memoryUsage().rss;
const t0 = performance.now();
const out = { mode };
if (mode === 'scan') {
  const r = await scanTree({ root, matcher, cache: StatCache.inMemory() });
  out.files = r.snapshot.size;
} else {
  const { watcher, backend } = await startWatcherBackend({ root, matcher, onEvents() {}, onError() {} }, mode);
  out.backend = backend;
  out.ms = performance.now() - t0;
  out.rssDeltaMB = (process.memoryUsage().rss - rss0) / 1048576;
  await watcher.close();
}
out.ms ??= performance.now() - t0;
out.rssDeltaMB ??= (process.memoryUsage().rss - rss0) / 1048576;
out.maxRssMB = process.resourceUsage().maxRSS / 1024;
process.stdout.write(`${JSON.stringify(out)}\n`);
process.exit(0);
