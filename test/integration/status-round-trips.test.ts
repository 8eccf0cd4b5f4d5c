/**
 * `status` asks for the deployment's record beside its comparison, not after it: on a real
 * network that is one round trip of waiting instead of two. A proxy in front of the
 * emulator holds the index's answer until the record's request has arrived (bounded):
 * asked one after the other, the record would only come once the index was answered.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator, type RunningEmulator } from '../../src/emulator/index.js';
import { runStatus } from '../../src/app/status.js';
import { tempDir, writeTree } from '../helpers/tree.js';

/** A safety bound for the held answer, not a timing assertion: past it the answer goes on, marked as not overlapped. */
const HOLD_BOUND_MS = 10_000;

let emu: RunningEmulator;
beforeAll(async () => {
  emu = await startEmulator({ runtime: 'static' });
});
afterAll(async () => {
  await emu?.close();
});

function holdingProxy(upstream: string, deploymentId: string) {
  const seen: string[] = [];
  let recordAsked: () => void = () => undefined;
  const recordArrived = new Promise<void>((resolve) => (recordAsked = resolve));
  let overlapped: boolean | null = null;
  const server = http.createServer((req, res) => {
    const route = `${req.method} ${new URL(req.url ?? '/', 'http://x').pathname}`;
    seen.push(route);
    if (route.startsWith('GET ') && route.endsWith(`/deployments/${deploymentId}`)) recordAsked();
    const up = http.request(new URL(req.url ?? '/', upstream), { method: req.method, headers: req.headers }, async (answer) => {
      if (route.endsWith(`/deployments/${deploymentId}/files/index`)) {
        let timer: NodeJS.Timeout | undefined;
        const bound = new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(false), HOLD_BOUND_MS)));
        overlapped = await Promise.race([recordArrived.then(() => true), bound]);
        clearTimeout(timer);
      }
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    req.pipe(up);
  });
  return {
    seen,
    overlapped: () => overlapped,
    listen: () => new Promise<string>((resolve) => server.listen(0, '127.0.0.1', () => resolve(`http://127.0.0.1:${(server.address() as AddressInfo).port}`))),
    close: () => new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  };
}

describe('status round trips', () => {
  it('asks for the deployment record while the index is still being answered', async () => {
    const { dir, cleanup } = await tempDir('hostsync-status-rtt-');
    const proxy = holdingProxy(emu.baseUrl, emu.deploymentId);
    try {
      await writeTree(dir, { 'index.html': '<title>t</title>\n', 'a.txt': 'a\n' });
      const baseUrl = await proxy.listen();
      const { result } = await runStatus({ dir, baseUrl, apiKey: emu.apiKey, deployment: emu.deploymentId, env: {} });
      expect(result.ok, result.error).toBe(true);
      expect(result.appState).not.toBeNull();
      expect(result.changes.map((c) => c.path).sort()).toEqual(['a.txt', 'index.html']);
      expect(proxy.seen.filter((r) => r.includes('/files/index'))).toHaveLength(1);
      expect(proxy.overlapped(), proxy.seen.join(', ')).toBe(true);
      // The record is not what a push reads: the estimate is the same as with the requests in turn.
      expect(result.requests.total).toBe(2);
    } finally {
      await proxy.close();
      await cleanup();
    }
  });
});
