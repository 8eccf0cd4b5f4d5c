#!/usr/bin/env node
// The base record's size with the 50 kept pushes (issue 48), at 3k and 100k files: a snapshot
// of the tree plus 50 push batches of PATHS_PER_PUSH paths each, built with the record's own
// format (dist/), no emulator. Run after a build: node bench/push/history.mjs
import { appendedText, batchText, snapshotText } from '../../dist/state/base-record.js';

const PATHS_PER_PUSH = Number(process.env.PATHS_PER_PUSH ?? 20);
const hex = (n) => n.toString(16).padStart(16, '0');
const git = { head: 'a'.repeat(40), clean: true, time: 1_800_000_000, anc: Array.from({ length: 32 }, (_, i) => hex(i).slice(4)), subject: 'Fix the checkout flow when the cart is empty' };

for (const files of [3_000, 100_000]) {
  const paths = Array.from({ length: files }, (_, i) => `src/module-${Math.floor(i / 100)}/file-${i}.js`);
  const header = (id) => ({ t: new Date().toISOString(), id, kind: 'push', host: 'laptop', dir: 'site', v: '0.1.0', git });
  let tail = '0'.repeat(32);
  let text = snapshotText(header('s'), paths.map((p, i) => ({ path: p, hash: hex(i), size: 1000 + i, executable: false })), tail);
  const snapshot = Buffer.byteLength(text);
  for (let n = 0; n < 50; n++) {
    const batch = Array.from({ length: PATHS_PER_PUSH }, (_, k) => {
      const i = (n * 997 + k * 31) % files;
      return { path: paths[i], before: { hash: hex(i + n), size: 1000, executable: false }, after: { hash: hex(i + n + 1), size: 1001, executable: false } };
    });
    const next = String(n + 1).padStart(32, '0');
    text = appendedText(text, tail, batchText(header(hex(n)), batch), next);
    tail = next;
  }
  const total = Buffer.byteLength(text);
  console.log(`${files} files: snapshot ${(snapshot / 1024).toFixed(0)} KB, 50 pushes of ${PATHS_PER_PUSH} paths ${((total - snapshot) / 1024).toFixed(0)} KB (${((total - snapshot) / 50).toFixed(0)} B a push), record ${(total / 1024).toFixed(0)} KB`);
}
