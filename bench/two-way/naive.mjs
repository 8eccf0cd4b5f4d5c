// The two-way bench's baseline as its own process: a client without an index finds what
// differs by reading every file (files.readMany, 120 000-byte batches) and comparing it
// with the local bytes. Through the same HostingClient (same pacing), ledger off.
//   node bench/two-way/naive.mjs ROOT FILES WINDOW_S   (env: HOSTSYNC_BASE_URL, HOSTSYNC_API_KEY, HOSTSYNC_DEPLOYMENT)
// Prints one JSON line: {requests: {total, byOperation}, differs}.
import fs from 'node:fs';
import path from 'node:path';
import { HostingClient } from '../../dist/remote/client.js';
import { RATE_LIMIT_REQUESTS } from '../../dist/api/limits.js';
import { content, rel } from './tree.mjs';

const [root, files, windowS] = process.argv.slice(2);
const client = new HostingClient({
  baseUrl: process.env.HOSTSYNC_BASE_URL,
  apiKey: process.env.HOSTSYNC_API_KEY,
  deploymentId: process.env.HOSTSYNC_DEPLOYMENT,
  rateLimit: { requests: RATE_LIMIT_REQUESTS, windowMs: Number(windowS) * 1000 },
  ledger: false,
});
const budget = 120_000;
let batch = [];
let bytes = 0;
const differs = [];
const flush = async () => {
  if (batch.length === 0) return;
  const res = await client.files.readMany(batch.map((p) => `/${p}`), budget);
  for (const f of res.files) {
    const p = f.path.replace(/^\/+/, '');
    if (f.content !== fs.readFileSync(path.join(root, p), 'utf8')) differs.push(p);
  }
  batch = [];
  bytes = 0;
};
for (let i = 0; i < Number(files); i++) {
  const size = Buffer.byteLength(content(i));
  if (bytes + size > budget * 0.9) await flush();
  batch.push(rel(i));
  bytes += size;
}
await flush();
const { total, byOperation } = client.stats();
await client.close();
process.stdout.write(`${JSON.stringify({ requests: { total, byOperation }, differs })}\n`);
