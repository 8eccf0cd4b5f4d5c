/**
 * A tiny scripted HTTP service on 127.0.0.1 for client tests: it records every
 * request (method, path, query, JSON body, raw body, Authorization, arrival time)
 * and answers what the test's handler says, including dropping the connection.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Seen {
  n: number;
  method: string;
  path: string;
  query: URLSearchParams;
  body: unknown;
  raw: Buffer;
  headers: http.IncomingHttpHeaders;
  auth: string | undefined;
  /** performance.now() when the request's head arrived. */
  at: number;
}

/**
 * One answer that fits every endpoint's schema (api/schemas.ts keeps unknown fields, so
 * the union of their required fields passes them all): for tests about the transport,
 * the queue or retries, where what the answer says does not matter.
 */
export const WELL_FORMED = {
  ok: true, unchanged: false, digest: 'd0', truncated: false, entries: [], files: [], content: '', hasMore: false,
  url: '/__node/none', versions: [], written: [], failed: [], moved: [], archive: 'a.tar.gz',
  id: 'dep-1', name: 'app', username: 'user', state: 'running', deployments: [], lines: [], exitCode: 0, output: '',
  status: 200, cpu: { usedPercent: 0, limitPercent: 100 }, memory: { usedBytes: 0, limitBytes: 1 }, disk: { usedBytes: 0, limitBytes: 1 },
  variables: [], used: [], missing: [], unused: [], placeholders: [],
} as const;

export type Reply =
  | { status?: number; json?: unknown; text?: string; headers?: Record<string, string> }
  | 'drop';

export interface FakeService {
  baseUrl: string;
  port: number;
  seen: Seen[];
  /** performance.now() when each answer was written, by request number. */
  repliedAt: Map<number, number>;
  close(): Promise<void>;
}

export interface FakeServiceOptions {
  /**
   * Called when a request's head arrives, before its body is read: 'drop' destroys the
   * connection there and then (the client is still sending), and the request is not recorded.
   */
  onHead?(method: string, path: string): 'drop' | undefined;
}

export async function startFakeService(
  handler: (r: Seen) => Reply | Promise<Reply>,
  opts: FakeServiceOptions = {},
): Promise<FakeService> {
  const seen: Seen[] = [];
  const repliedAt = new Map<number, number>();
  const server = http.createServer((req, res) => {
    const at = performance.now();
    if (opts.onHead?.(req.method ?? '', new URL(req.url ?? '/', 'http://x').pathname) === 'drop') {
      req.socket.destroy();
      return;
    }
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const raw = Buffer.concat(chunks);
      const url = new URL(req.url ?? '/', 'http://x');
      let body: unknown;
      if (String(req.headers['content-type']).includes('json')) {
        try {
          body = JSON.parse(raw.toString('utf8'));
        } catch {
          body = undefined;
        }
      }
      const s: Seen = {
        n: seen.length, method: req.method ?? '', path: url.pathname, query: url.searchParams, body, raw,
        headers: req.headers, auth: req.headers.authorization, at,
      };
      seen.push(s);
      void Promise.resolve(handler(s)).then((reply) => {
        repliedAt.set(s.n, performance.now());
        if (reply === 'drop') {
          req.socket.destroy();
          return;
        }
        res.statusCode = reply.status ?? 200;
        for (const [k, v] of Object.entries(reply.headers ?? {})) res.setHeader(k, v);
        if (reply.text !== undefined) {
          res.end(reply.text);
        } else {
          res.setHeader('content-type', 'application/json');
          res.end(JSON.stringify(reply.json ?? WELL_FORMED));
        }
      });
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    port,
    seen,
    repliedAt,
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

/** The service's sliding window, as the contract states it: N per key per window, counted at arrival. */
export class ServerWindow {
  private stamps: number[] = [];
  constructor(private readonly limit: number, private readonly windowMs: number) {}
  /** Records requests someone else made at `at`. */
  prefill(count: number, at: number): void {
    for (let i = 0; i < count; i++) this.stamps.push(at);
  }
  take(now: number): { allowed: boolean; remaining: number } {
    this.stamps = this.stamps.filter((t) => t > now - this.windowMs);
    if (this.stamps.length >= this.limit) return { allowed: false, remaining: 0 };
    this.stamps.push(now);
    return { allowed: true, remaining: this.limit - this.stamps.length };
  }
}
