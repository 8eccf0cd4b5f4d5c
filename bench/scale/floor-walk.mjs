#!/usr/bin/env node
/**
 * Node's floor under a warm `status` (bench/scale): the system calls of its walk and nothing
 * else. Every folder read (readdirSync with types, in no particular order) and every file
 * lstat'ed with the same call hostsync's walk makes (dist/local/fast-stat.js), skipping .git
 * and .hostsync; no ignore matcher, no stat cache, no base, no request, no module but these.
 *
 *   node bench/scale/floor-walk.mjs ROOT    (prints the files and their total size)
 */
import fs from 'node:fs';
import path from 'node:path';
import { lstatOf } from '../../dist/local/fast-stat.js';

let files = 0;
let bytes = 0;
const walk = (dir) => {
  for (const d of fs.readdirSync(dir, { withFileTypes: true })) {
    const abs = dir + path.sep + d.name;
    if (d.isDirectory()) {
      if (d.name !== '.git' && d.name !== '.hostsync') walk(abs);
    } else if (d.isFile()) {
      const st = lstatOf(abs);
      if (st !== undefined) {
        files++;
        bytes += st.size;
      }
    }
  }
};
walk(path.resolve(process.argv[2] ?? '.'));
console.log(`${files} files, ${bytes} bytes`);
