// Checks a push's result on disk, outside the API (so it spends no requests): every local
// file (hostsync's .hostsync/ state aside) is on the deployment's volume with the same
// bytes. Every file is compared, not a sample: at a few thousand files it takes a second.
import fs from 'node:fs';
import path from 'node:path';
import { createHash } from 'node:crypto';
import { listFiles } from './naive.mjs';

const sha256 = (abs) => createHash('sha256').update(fs.readFileSync(abs)).digest('hex');

/** Throws, naming the first differences, unless the volume mirrors the local tree. Returns { files, extra }. */
export function verifyVolume(localRoot, volume, label) {
  const local = listFiles(localRoot);
  const remote = new Set(listFiles(volume, new Set()));
  const missing = [];
  const differ = [];
  for (const p of local) {
    if (!remote.has(p)) {
      missing.push(p);
      continue;
    }
    remote.delete(p);
    if (sha256(path.join(localRoot, ...p.split('/'))) !== sha256(path.join(volume, ...p.split('/')))) differ.push(p);
  }
  if (missing.length > 0 || differ.length > 0) {
    const show = (xs) => `${xs.length}${xs.length ? ` (${xs.slice(0, 3).join(', ')}${xs.length > 3 ? ', ...' : ''})` : ''}`;
    throw new Error(`${label}: the volume does not match the local tree: missing ${show(missing)}, different ${show(differ)}`);
  }
  return { files: local.length, extra: [...remote] };
}
