// Generates a synthetic source tree for the scan benchmark: small text files of varied
// sizes in nested directories, plus a node_modules/ that the scan must never enter.
// Deterministic (seeded PRNG), so two runs measure the same tree.
import fs from 'node:fs';
import path from 'node:path';
import { mulberry32 } from '../../dist/emulator/prng.js';


const WORDS = 'const let function return import export from async await if else for while class new this true false null undefined module require value index result error data config path file hash tree sync push remote local'.split(' ');

function corpus(rand, bytes) {
  const parts = [];
  let n = 0;
  while (n < bytes) {
    const line = Array.from({ length: 3 + Math.floor(rand() * 9) }, () => WORDS[Math.floor(rand() * WORDS.length)]).join(' ') + ';\n';
    parts.push(line);
    n += line.length;
  }
  return Buffer.from(parts.join(''));
}

/**
 * Writes `files` files under `root` (three directory levels) and
 * `nodeModulesFiles` more under root/node_modules. Returns { files, dirs, bytes }.
 */
export function generateTree(root, { files, nodeModulesFiles = Math.ceil(files / 10), seed = 42 }) {
  const rand = mulberry32(seed);
  const text = corpus(rand, 1 << 20);
  let bytes = 0;
  const dirs = new Set();
  const write = (rel, size) => {
    const abs = path.join(root, rel);
    const dir = path.dirname(abs);
    if (!dirs.has(dir)) {
      fs.mkdirSync(dir, { recursive: true });
      dirs.add(dir);
    }
    const header = Buffer.from(`// ${rel}\n`);
    const start = Math.floor(rand() * (text.length - size));
    const body = text.subarray(start, start + Math.max(0, size - header.length));
    fs.writeFileSync(abs, Buffer.concat([header, body]));
    bytes += header.length + body.length;
  };
  // Sizes: mostly under 4 KB, a long tail to ~16 KB (rand^4 skews small), like source trees.
  const size = () => 64 + Math.floor(rand() ** 4 * 16_000);
  // About 24 files per leaf directory whatever the size, three levels deep (16 per level at 100k).
  const fan = Math.max(2, Math.round(Math.cbrt(files / 24)));
  for (let i = 0; i < files; i++) {
    const a = i % fan, b = Math.floor(i / fan) % fan, c = Math.floor(i / fan / fan) % fan;
    write(`src/d${a}/e${b}/f${c}/file${i}.js`, size());
  }
  for (let i = 0; i < nodeModulesFiles; i++) {
    write(`node_modules/pkg${i % 97}/lib/m${i}.js`, size());
  }
  return { files, nodeModulesFiles, dirs: dirs.size, bytes };
}
