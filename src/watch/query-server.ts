/**
 * The daemon's side of query-protocol.ts: a local socket that answers one request per
 * connection. Only the daemon holding the deployment's lock listens, so a socket file
 * left by a killed one is stale and removed first.
 */
import { rm } from 'node:fs/promises';
import net from 'node:net';
import { WATCH_QUERY_VERSION, type WatchAnswer, type WatchStatusAnswer } from './query-protocol.js';

/** A request is a few dozen bytes: anything longer is not ours. */
const MAX_REQUEST_BYTES = 4096;

export interface QueryServer {
  close(): Promise<void>;
}

/** What the daemon answers with; without `status`, that question is answered "no" (the asker works it out). */
export interface QueryHandlers {
  changes(): Promise<WatchAnswer>;
  status?: (config: string) => Promise<WatchStatusAnswer>;
}

/** Listens on `endpoint`; a handler is called per well-formed request, and never throws through. */
export async function startQueryServer(endpoint: string, handlers: QueryHandlers): Promise<QueryServer> {
  if (!endpoint.startsWith('\\\\')) await rm(endpoint, { force: true });
  const sockets = new Set<net.Socket>();
  const server = net.createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => socket.destroy());
    socket.setEncoding('utf8');
    let received = '';
    socket.on('data', (chunk: string) => {
      received += chunk;
      if (received.length > MAX_REQUEST_BYTES) return void socket.destroy();
      const nl = received.indexOf('\n');
      if (nl < 0) return;
      socket.pause();
      void reply(received.slice(0, nl)).then((line) => socket.end(`${line}\n`));
    });
  });
  const reply = async (line: string): Promise<string> => {
    let out: WatchAnswer | WatchStatusAnswer;
    const no = (reason: string): WatchStatusAnswer => ({ v: WATCH_QUERY_VERSION, ok: false, reason });
    try {
      const req = JSON.parse(line) as { v?: unknown; op?: unknown; config?: unknown };
      if (req.v !== WATCH_QUERY_VERSION) out = no('unknown request');
      else if (req.op === 'changes') out = await handlers.changes();
      else if (req.op === 'status' && typeof req.config === 'string') out = handlers.status ? await handlers.status(req.config) : no('this watch does not work out a status');
      else out = no('unknown request');
    } catch (err) {
      out = { v: WATCH_QUERY_VERSION, ok: false, reason: err instanceof SyntaxError ? 'unreadable request' : `the watch could not answer: ${(err as Error).message}` };
    }
    return JSON.stringify(out);
  };
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(endpoint, () => {
      server.off('error', reject);
      resolve();
    });
  });
  // A watch must never stay alive for its query socket alone.
  server.unref();
  return {
    close: async () => {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      if (!endpoint.startsWith('\\\\')) await rm(endpoint, { force: true }).catch(() => undefined);
    },
  };
}
