/**
 * A loopback proxy in front of an emulator that rewrites the JSON answers of one
 * operation (by path suffix, e.g. `/files/index`): what a service, or something between
 * it and the client, could send that the emulator never would. Everything else passes
 * through unchanged. Only for tests of what the client does with such an answer: the
 * emulator itself stays as strict as the contract.
 */
import { createServer, request, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface AnswerProxy {
  baseUrl: string;
  close(): Promise<void>;
}

export async function startAnswerProxy(target: string, pathSuffix: string, rewrite: (body: Record<string, unknown>) => Record<string, unknown>): Promise<AnswerProxy> {
  const to = new URL(target);
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const headers: IncomingHttpHeaders = { ...req.headers, host: to.host };
      delete headers['accept-encoding'];
      const out = request({ host: to.hostname, port: to.port, path: req.url, method: req.method, headers }, (answer) => {
        const parts: Buffer[] = [];
        answer.on('data', (c: Buffer) => parts.push(c));
        answer.on('end', () => {
          let body = Buffer.concat(parts);
          const url = new URL(req.url ?? '/', 'http://x');
          if (url.pathname.endsWith(pathSuffix) && answer.statusCode === 200) body = Buffer.from(JSON.stringify(rewrite(JSON.parse(body.toString('utf8')))));
          const h = { ...answer.headers, 'content-length': String(body.length) };
          delete h['transfer-encoding'];
          res.writeHead(answer.statusCode ?? 502, h);
          res.end(body);
        });
      });
      out.on('error', () => res.destroy());
      out.end(Buffer.concat(chunks));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    close: () => new Promise((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  };
}
