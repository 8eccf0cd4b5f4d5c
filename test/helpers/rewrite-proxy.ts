/**
 * A loopback HTTP proxy in front of the emulator that rewrites chosen JSON answers: how
 * tests play a service (or anything between it and the client) that answers with what
 * the emulator, faithful to hosting-api.md, never would (a URL with a newline in it, a
 * name with control characters). Requests pass through untouched, bodies streamed; only
 * answers the `rewrite` callback changes are re-serialised.
 */
import { createServer, request, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface RewriteRequest {
  method: string;
  /** The path below the API's root ("/deployments/ID/apply"), without the query. */
  operationPath: string;
  /** The query string, with its "?" when there is one. */
  search: string;
}

/** Returns the answer to send instead (undefined: the answer as it came). */
export type Rewrite = (operationPath: string, body: unknown, req: RewriteRequest) => unknown;

export interface RewriteProxy {
  /** Use as the client's base URL, as `targetBaseUrl` was. */
  baseUrl: string;
  close(): Promise<void>;
}

/** The emulator's API root below its base URL. */
const API_ROOT = '/api/v1';

export async function startRewriteProxy(targetBaseUrl: string, rewrite: Rewrite): Promise<RewriteProxy> {
  const target = new URL(targetBaseUrl);
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', target);
    const headers: IncomingHttpHeaders = { ...req.headers, host: target.host };
    // Answers come back uncompressed, so a rewrite reads plain JSON.
    delete headers['accept-encoding'];
    const upstream = request(
      { host: target.hostname, port: target.port, method: req.method, path: `${url.pathname}${url.search}`, headers },
      (answer) => {
        const chunks: Buffer[] = [];
        answer.on('data', (c: Buffer) => chunks.push(c));
        answer.on('end', () => {
          let body = Buffer.concat(chunks);
          const out = { ...answer.headers };
          if (String(answer.headers['content-type'] ?? '').includes('json')) {
            const path = url.pathname.startsWith(API_ROOT) ? url.pathname.slice(API_ROOT.length) : url.pathname;
            let parsed: unknown;
            try {
              parsed = JSON.parse(body.toString('utf8'));
            } catch {
              parsed = undefined;
            }
            const replaced = parsed === undefined ? undefined : rewrite(path, parsed, { method: req.method ?? 'GET', operationPath: path, search: url.search });
            if (replaced !== undefined) {
              body = Buffer.from(JSON.stringify(replaced));
              delete out['transfer-encoding'];
              out['content-length'] = String(body.length);
            }
          }
          res.writeHead(answer.statusCode ?? 502, out);
          res.end(body);
        });
        answer.on('error', () => res.destroy());
      },
    );
    upstream.on('error', () => res.destroy());
    req.pipe(upstream);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
