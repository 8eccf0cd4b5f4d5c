#!/usr/bin/env node
/**
 * One process spending a key's budget: N metered reads through hostsync's client,
 * all handed over at once (the client paces them). Used by test/remote/ledger-processes
 * and bench/ratelimit/shared.mjs to run two such processes against one emulator.
 *
 *   node budget-child.mjs BASE_URL DEPLOYMENT N LIMIT WINDOW_MS START_AT_MS ledger|no-ledger
 *
 * The key comes from HOSTSYNC_API_KEY, the ledger folder from HOSTSYNC_CACHE_DIR.
 * Waits until wall-clock START_AT_MS so both processes start together, then prints
 * one JSON line: the client's stats plus failures.
 */
import { HostingClient } from '../../dist/remote/client.js';

const [baseUrl, deploymentId, n, limit, windowMs, startAt, mode] = process.argv.slice(2);
const client = new HostingClient({
  baseUrl, deploymentId, apiKey: process.env.HOSTSYNC_API_KEY,
  rateLimit: { requests: Number(limit), windowMs: Number(windowMs) },
  ...(mode === 'no-ledger' ? { ledger: false } : {}),
});
await new Promise((r) => setTimeout(r, Math.max(0, Number(startAt) - Date.now())));
const t0 = performance.now();
const results = await Promise.allSettled(Array.from({ length: Number(n) }, (_, i) => (i % 2 ? client.files.list('') : client.files.index({}))));
const ms = Math.round(performance.now() - t0);
const failures = results.filter((r) => r.status === 'rejected').map((r) => String(r.reason?.message ?? r.reason));
const stats = client.stats();
await client.close();
console.log(JSON.stringify({ ...stats, ms, failures }));
