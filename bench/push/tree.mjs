// Generates a synthetic web project for the push benchmark, deterministic (seeded PRNG)
// so two runs push the same bytes:
// - source: src/**/*.js|.ts, 1-20 KB each (skewed small), the bulk of the files;
// - ~20 % small assets: JSON (data, i18n), CSS, Markdown docs, 100 B - 2 KB;
// - ~1 in 60 files a binary image, 5-200 KB of random bytes behind a PNG signature;
// - two 1 MB files: a minified vendor bundle (text) and a video (binary).
// Nothing here matches hostsync's default ignore rules (.env*, *.pem, ...), so every
// generated file is part of the push.
import fs from 'node:fs';
import path from 'node:path';
import { mulberry32 } from '../../dist/emulator/prng.js';


const WORDS = ('const let function return import export from async await if else for while class new this ' +
  'true false null undefined module value index result error data config path props state render ' +
  'component route fetch response request user items map filter reduce promise').split(' ');

/** A block of code-like UTF-8 text (no NUL) that files are sliced from. */
function corpus(rand, bytes) {
  const parts = [];
  let n = 0;
  while (n < bytes) {
    const indent = '  '.repeat(Math.floor(rand() * 3));
    const line = indent + Array.from({ length: 3 + Math.floor(rand() * 9) }, () => WORDS[Math.floor(rand() * WORDS.length)]).join(' ') + ';\n';
    parts.push(line);
    n += line.length;
  }
  return Buffer.from(parts.join(''));
}

function randomBytes(rand, size) {
  const buf = Buffer.allocUnsafe(size);
  for (let i = 0; i < size; i += 4) {
    const v = (rand() * 4294967296) >>> 0;
    for (let j = 0; j < 4 && i + j < size; j++) buf[i + j] = (v >>> (8 * j)) & 0xff;
  }
  return buf;
}

const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

/**
 * Writes about `files` files under `root`. Returns
 * { files, bytes, textFiles, textBytes, binaryFiles, binaryBytes, editTarget } where
 * editTarget is the relative path of the source file the edit scenario changes (the middle one generated).
 */
export function generateWebProject(root, { files = 3000, seed = 7 } = {}) {
  const rand = mulberry32(seed);
  const text = corpus(rand, 1 << 20);
  const dirs = new Set();
  const out = { files: 0, bytes: 0, textFiles: 0, textBytes: 0, binaryFiles: 0, binaryBytes: 0, editTarget: '' };

  const put = (rel, content, binary) => {
    const abs = path.join(root, ...rel.split('/'));
    const dir = path.dirname(abs);
    if (!dirs.has(dir)) {
      fs.mkdirSync(dir, { recursive: true });
      dirs.add(dir);
    }
    fs.writeFileSync(abs, content);
    out.files++;
    out.bytes += content.length;
    if (binary) {
      out.binaryFiles++;
      out.binaryBytes += content.length;
    } else {
      out.textFiles++;
      out.textBytes += content.length;
    }
  };
  const textOf = (rel, size) => {
    const header = Buffer.from(`/* ${rel} */\n`);
    const start = Math.floor(rand() * (text.length - size));
    return Buffer.concat([header, text.subarray(start, start + Math.max(0, size - header.length))]);
  };
  const between = (lo, hi, skew = 1) => lo + Math.floor(rand() ** skew * (hi - lo));

  put('package.json', Buffer.from(JSON.stringify({ name: 'bench-web-app', version: '1.0.0', main: 'index.js' }, null, 2) + '\n'), false);
  put('index.js', Buffer.from("import './src/main.js';\n"), false);
  put('README.md', textOf('README.md', 2_000), false);

  const big = files >= 20 ? 2 : 0;
  const binaries = Math.max(1, Math.round(files / 60));
  const small = Math.round(files * 0.2);
  const source = Math.max(0, files - out.files - big - binaries - small);

  if (big > 0) {
    put('public/vendor/vendor.bundle.min.js', textOf('vendor.bundle.min.js', 1 << 20), false);
    put('public/media/intro.mp4', randomBytes(rand, 1 << 20), true);
  }
  for (let i = 0; i < binaries; i++) {
    const body = randomBytes(rand, between(5 * 1024, 200 * 1024, 2));
    put(`public/img/${['hero', 'icon', 'photo', 'banner', 'thumb'][i % 5]}-${i}.png`, Buffer.concat([PNG_SIGNATURE, body]), true);
  }
  for (let i = 0; i < small; i++) {
    const size = between(100, 2_048);
    switch (i % 4) {
      case 0:
        put(`public/data/d${i % 7}/item-${i}.json`, Buffer.from(JSON.stringify({ id: i, body: textOf('', size).toString('utf8') }) + '\n'), false);
        break;
      case 1:
        put(`src/i18n/${['en', 'de', 'fr', 'ja'][Math.floor(i / 4) % 4]}/messages-${i}.json`, Buffer.from(JSON.stringify({ key: `m${i}`, text: textOf('', size).toString('utf8') }) + '\n'), false);
        break;
      case 2:
        put(`src/styles/${['base', 'layout', 'theme'][i % 3]}/s${i}.css`, textOf(`s${i}.css`, size), false);
        break;
      default:
        put(`docs/${['guide', 'api', 'howto'][i % 3]}/page-${i}.md`, textOf(`page-${i}.md`, size), false);
    }
  }
  // About 25 files per leaf directory, two levels under a handful of feature areas.
  const areas = ['components', 'pages', 'lib', 'hooks', 'services', 'store', 'utils', 'api'];
  const leaves = Math.max(1, Math.round(source / 25));
  for (let i = 0; i < source; i++) {
    const leaf = i % leaves;
    const rel = `src/${areas[leaf % areas.length]}/m${Math.floor(leaf / areas.length)}/f${i}.${i % 3 === 0 ? 'js' : 'ts'}`;
    put(rel, textOf(rel, between(1024, 20 * 1024, 1.5)), false);
    if (i === Math.floor(source / 2)) out.editTarget = rel;
  }
  if (out.editTarget === '') out.editTarget = 'index.js';
  return out;
}
