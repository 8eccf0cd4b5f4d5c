#!/usr/bin/env node
/**
 * The state formats at scale (issue 16, item 1): what loading the sync state and the stat
 * cache of a 100k-file project costs in each candidate format, in this process.
 *
 *   npm run build && node --expose-gc bench/scale/state-format.mjs [--files 100000] [--runs 5] [--lmdb DIR]
 *
 * Candidates:
 * - JSON: the format of earlier releases (state.json v2, statcache.json v1), re-created here;
 * - packed: what hostsync writes now (state.bin, statcache.bin: local/packed-file.ts);
 * - lmdb (only with --lmdb DIR, a folder where `npm install lmdb` was run): an embedded
 *   store, one key per path, values msgpack-encoded by lmdb itself.
 * Each load is the median of --runs, from a warm page cache; "heap" is the growth of the
 * JS heap the loaded state holds (after a forced GC), so run with --expose-gc.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { StateStore } from '../../dist/state/store.js';
import { StatCache } from '../../dist/local/statcache.js';
import { writeFileAtomic } from '../../dist/local/atomic-write.js';

const { values: args } = parseArgs({
  options: { files: { type: 'string', default: '100000' }, runs: { type: 'string', default: '5' }, lmdb: { type: 'string' } },
});
const FILES = Number(args.files);
const RUNS = Number(args.runs);
const gc = globalThis.gc ?? (() => {});
const work = fs.mkdtempSync(path.join(os.tmpdir(), 'hostsync-format-'));

// Paths shaped like bench/scan's tree: src/dA/eB/fC/fileN.js.
const fan = Math.max(2, Math.round(Math.cbrt(FILES / 24)));
const paths = Array.from({ length: FILES }, (_, i) => `src/d${i % fan}/e${Math.floor(i / fan) % fan}/f${Math.floor(i / fan / fan) % fan}/file${i}.js`).sort();
const hex = (i) => (BigInt(i) * 0x9e3779b97f4a7c15n & 0xffffffffffffffffn).toString(16).padStart(16, '0');
const snapshot = new Map(paths.map((p, i) => [p, { path: p, hash: hex(i), size: 100 + (i % 16000), executable: i % 50 === 0 }]));
const remote = { digest: 'ffffffffffffffff', requestKey: 'k', snapshot, symlinks: [], leftovers: [] };
const stats = paths.map((p, i) => ({ mtimeNs: 1_700_000_000_000_000_000n + BigInt(i), ctimeNs: 1_700_000_000_000_000_000n + BigInt(i), size: 100 + (i % 16000), ino: 1_000_000n + BigInt(i), mode: 0o100644 }));

function median(xs) {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
}

/** Median wall of `load()` and the heap the value it returns holds. */
async function measure(load) {
  const times = [];
  let heap = 0;
  for (let i = 0; i < RUNS; i++) {
    gc();
    const before = process.memoryUsage().heapUsed;
    const t = performance.now();
    const held = await load();
    times.push(performance.now() - t);
    gc();
    heap = Math.max(heap, process.memoryUsage().heapUsed - before);
    if (held === undefined) throw new Error('nothing loaded');
  }
  return { ms: median(times), heapMb: heap / 1e6 };
}

async function timeOnce(fn) {
  const t = performance.now();
  await fn();
  return performance.now() - t;
}

const rows = [];
const row = (what, format, bytes, saveMs, load) =>
  rows.push(`| ${what} | ${format} | ${(bytes / 1e6).toFixed(1)} MB | ${saveMs.toFixed(0)} ms | ${load.ms.toFixed(0)} ms | ${load.heapMb.toFixed(0)} MB |`);

// ---- sync state: base + last remote read, equal after a sync ----
{
  const jsonFile = path.join(work, 'state.json');
  const pack = (snap) => {
    const out = {};
    for (const [p, e] of snap) out[p] = [e.hash, e.size, e.executable ? 1 : 0];
    return out;
  };
  const unpack = (packed) => {
    const out = new Map();
    for (const [p, [hash, size, exec]] of Object.entries(packed)) out.set(p, { path: p, hash, size, executable: exec === 1 });
    return out;
  };
  const saveMs = await timeOnce(() =>
    writeFileAtomic(jsonFile, JSON.stringify({ version: 2, deploymentId: 'd1', savedAt: new Date().toISOString(), base: pack(snapshot), remote: { digest: remote.digest, requestKey: 'k', entries: pack(snapshot), symlinks: [], leftovers: [] } })),
  );
  const load = await measure(async () => {
    const parsed = JSON.parse(await fs.promises.readFile(jsonFile, 'utf8'));
    return { base: unpack(parsed.base), remote: unpack(parsed.remote.entries) };
  });
  row('sync state', 'JSON (earlier releases)', fs.statSync(jsonFile).size, saveMs, load);

  const dir = path.join(work, 'state');
  const saveBin = await timeOnce(() => new StateStore(dir, 'd1').save({ base: snapshot, remote }));
  const check = await new StateStore(dir, 'd1').load();
  if (check.base?.size !== FILES || check.remote?.snapshot.size !== FILES) throw new Error('packed state did not round-trip');
  row('sync state', 'packed (state.bin)', fs.statSync(path.join(dir, 'state.bin')).size, saveBin, await measure(() => new StateStore(dir, 'd1').load()));

  if (args.lmdb) {
    const { open } = await import(path.resolve(args.lmdb, 'node_modules/lmdb/index.js'));
    const dbPath = path.join(work, 'lmdb');
    const db = open({ path: dbPath, compression: false });
    // Synchronous writes: lmdb's asynchronous write thread never committed on this machine.
    const saveLmdb = await timeOnce(() =>
      db.transactionSync(() => {
        for (const [p, e] of snapshot) {
          db.putSync(`b\0${p}`, [e.hash, e.size, e.executable]);
          db.putSync(`r\0${p}`, [e.hash, e.size, e.executable]);
        }
      }),
    );
    await db.close();
    const load = await measure(async () => {
      const d = open({ path: dbPath, compression: false });
      const base = new Map();
      const rem = new Map();
      for (const { key, value } of d.getRange()) {
        const p = key.slice(2);
        (key[0] === 'b' ? base : rem).set(p, { path: p, hash: value[0], size: value[1], executable: value[2] });
      }
      await d.close();
      return { base, rem };
    });
    const bytes = fs.readdirSync(dbPath).reduce((n, f) => n + fs.statSync(path.join(dbPath, f)).size, 0);
    row('sync state', 'lmdb (embedded store)', bytes, saveLmdb, load);
  }
}

// ---- stat cache: load, then one lookup per file (what a warm no-op status does) ----
{
  const jsonFile = path.join(work, 'statcache.json');
  const entries = {};
  paths.forEach((p, i) => {
    const s = stats[i];
    entries[p] = [s.mtimeNs.toString(), s.ctimeNs.toString(), s.size, s.ino.toString(), s.mode, hex(i), true];
  });
  const saveMs = await timeOnce(() => writeFileAtomic(jsonFile, JSON.stringify({ format: 'hostsync-statcache', version: 1, writtenAtNs: String(2n ** 62n), entries })));
  const load = await measure(async () => {
    const parsed = JSON.parse(await fs.promises.readFile(jsonFile, 'utf8'));
    const map = new Map();
    for (const [rel, [m, c, size, ino, mode, hash, text]] of Object.entries(parsed.entries)) {
      map.set(rel, { mtimeNs: BigInt(m), ctimeNs: BigInt(c), size, ino: BigInt(ino), mode, hash, text, recordedNs: 0n });
    }
    let hits = 0;
    paths.forEach((p, i) => {
      const e = map.get(p);
      if (e && e.mtimeNs === stats[i].mtimeNs && e.size === stats[i].size && e.ino === stats[i].ino) hits++;
    });
    if (hits !== FILES) throw new Error(`JSON cache: ${hits} hits`);
    return map;
  });
  row('stat cache, load + a lookup per file', 'JSON (earlier releases)', fs.statSync(jsonFile).size, saveMs, load);

  const binFile = path.join(work, 'statcache.bin');
  const cache = await StatCache.load(binFile);
  paths.forEach((p, i) => cache.update(p, stats[i], hex(i), true, 2n ** 62n));
  const saveBin = await timeOnce(() => cache.save());
  const loadBin = await measure(async () => {
    const c = await StatCache.load(binFile);
    let hits = 0;
    paths.forEach((p, i) => {
      if (c.lookup(p, stats[i]) !== undefined) hits++;
    });
    if (hits !== FILES) throw new Error(`packed cache: ${hits} hits`);
    return c;
  });
  row('stat cache, load + a lookup per file', 'packed (statcache.bin)', fs.statSync(binFile).size, saveBin, loadBin);
}

console.log(`\n${FILES} files, node ${process.version}, ${os.cpus().length} cores, median of ${RUNS} loads${globalThis.gc ? '' : ' (heap: run with --expose-gc)'}\n`);
console.log('| what | format | on disk | save | load | heap held |');
console.log('|---|---|---|---|---|---|');
for (const r of rows) console.log(r);
fs.rmSync(work, { recursive: true, force: true });
