/**
 * The command's deadline and the per-request bound are wall clock (issue 28, item 4):
 * a trickled answer, a 429 pause or a wait for the shared budget cannot outlast them,
 * while a large answer that keeps coming at a working rate is not cut at the timeout.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { HostingClient } from '../../src/remote/client.js';
import { ApiError, DEADLINE_CODE, OutcomeUnknownError } from '../../src/remote/errors.js';
import { testKey } from '../helpers/keys.js';

const KEY = testKey('deadline');
let server: http.Server | undefined;
const clients: HostingClient[] = [];

afterEach(async () => {
  for (const c of clients.splice(0)) await c.destroy();
  server?.closeAllConnections();
  await new Promise<void>((r) => (server ? server.close(() => r()) : r()));
  server = undefined;
});

async function serve(handler: http.RequestListener, opts: { timeoutMs?: number; deadlineMs?: number } = {}): Promise<HostingClient> {
  server = http.createServer(handler);
  await new Promise<void>((r) => server!.listen(0, '127.0.0.1', r));
  const client = new HostingClient({
    baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, apiKey: KEY, deploymentId: 'dep-1', ledger: false,
    retry: { baseDelayMs: 5, maxDelayMs: 20 }, ...opts,
  });
  clients.push(client);
  return client;
}

/** Headers, `{`, then a space every 100 ms: never idle long enough for an idle timeout. */
const trickle: http.RequestListener = (_req, res) => {
  res.writeHead(200, { 'content-type': 'application/json' });
  res.write('{');
  const t = setInterval(() => res.write(' '), 100);
  res.on('close', () => clearInterval(t));
};

describe('a trickled answer', () => {
  it('fails its attempt once the timeout passes, however often bytes come', async () => {
    const client = await serve(trickle, { timeoutMs: 400 });
    const e = (await client.files.list('a').catch((x: unknown) => x)) as ApiError;
    expect(e).toBeInstanceOf(ApiError);
    expect(e.code).toBe('UND_ERR_BODY_TIMEOUT');
    expect(e.message).toMatch(/^the service did not finish its answer to files\.list within 0\.4 s; .*Gave up after 2 attempts\.$/);
  });

  it('a call not safe to repeat is outcome-unknown when the deadline cuts its answer', async () => {
    const client = await serve(trickle, { deadlineMs: 500 });
    const e = (await client.files.move(['a'], 'b').catch((x: unknown) => x)) as ApiError;
    expect(e).toBeInstanceOf(OutcomeUnknownError);
    expect(e.code).toBe(DEADLINE_CODE);
  });
});

describe('the deadline', () => {
  it('ends a 429 pause, and every later call fails the same way without a request', async () => {
    let seen = 0;
    const client = await serve((_req, res) => {
      seen++;
      res.writeHead(429, { 'content-type': 'application/json', 'retry-after': '100' });
      res.end('{"error":"slow down"}');
    }, { deadlineMs: 500 });
    const e = (await client.files.list('a').catch((x: unknown) => x)) as ApiError;
    expect(e.code).toBe(DEADLINE_CODE);
    expect(e.message).toBe("files.list: gave up when the command's deadline of 0.5 s passed; the service answers too slowly: try again later (HOSTSYNC_DEADLINE=<seconds> allows longer)");
    const later = (await client.deployments.get().catch((x: unknown) => x)) as ApiError;
    expect(later.code).toBe(DEADLINE_CODE);
    expect(seen).toBe(1);
  });
});

describe('a large answer at a working rate', () => {
  it('is not cut at the timeout: its bytes earn it time', async () => {
    // 1 MiB in 16 pieces over about 0.8 s (1.3 MB/s); the timeout is 0.3 s.
    const piece = 64 * 1024;
    const client = await serve((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('{"ok":true,"content":"');
      let n = 0;
      const t = setInterval(() => {
        res.write('x'.repeat(piece));
        if (++n === 16) {
          clearInterval(t);
          res.end('","hasMore":false}');
        }
      }, 50);
      res.on('close', () => clearInterval(t));
    }, { timeoutMs: 300 });
    const r = await client.files.read('big.txt');
    expect(r.content).toHaveLength(16 * piece);
  });
});
