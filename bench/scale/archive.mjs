#!/usr/bin/env node
/**
 * The archive part of an initial push alone (issue 16): tarGzPart of every file of a tree
 * (no .git, .hostsync or node_modules), streamed to nowhere, in this process, for each
 * build given, taking turns. Prints wall, CPU (all threads) and compressed size; asserts
 * nothing. The baseline is the other build (e.g. main before gzip members).
 *
 *   node bench/scale/archive.mjs --tree DIR [--rounds 2] DIST [DIST...]
 */
import fs from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';

const { values: args, positionals: dists } = parseArgs({ options: { tree: { type: 'string' }, rounds: { type: 'string', default: '2' } }, allowPositionals: true });
if (!args.tree || dists.length === 0) {
  console.error('usage: node bench/scale/archive.mjs --tree DIR [--rounds 2] DIST [DIST...]');
  process.exit(2);
}
const root = path.resolve(args.tree);
const files = [];
(function walk(rel) {
  for (const d of fs.readdirSync(path.join(root, rel), { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1))) {
    const r = rel ? `${rel}/${d.name}` : d.name;
    if (d.isDirectory()) {
      if (!['.git', '.hostsync', 'node_modules'].includes(d.name)) walk(r);
    } else if (d.isFile()) files.push({ path: r, stat: fs.lstatSync(path.join(root, r)) });
  }
})('');
const limit = 100 * 1024 * 1024;
for (let round = 0; round < Number(args.rounds); round++) {
  for (const dist of dists) {
    const { tarGzPart } = await import(path.resolve(dist, 'remote/upload.js'));
    const { partFits, tarEntryBytesOf } = await import(path.resolve(dist, 'sync/core/archive-bound.js'));
    const budget = { maxBytes: limit, entryBytes: tarEntryBytesOf, fits: (f, t) => partFits(limit, f, t, 2 * 1024 * 1024) };
    const t0 = performance.now();
    const c0 = process.cpuUsage();
    const part = tarGzPart(root, files, budget);
    let bytes = 0;
    for await (const c of part.stream) bytes += c.length;
    const c = process.cpuUsage(c0);
    console.log(`${dist}: ${files.length} files, ${part.files()} in the part, ${(bytes / 1e6).toFixed(1)} MB, ${((performance.now() - t0) / 1000).toFixed(1)} s wall, ${((c.user + c.system) / 1e6).toFixed(1)} s CPU, load ${(await import('node:os')).loadavg()[0].toFixed(1)}`);
  }
}
