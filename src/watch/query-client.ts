/**
 * The commands' side of query-protocol.ts: ask the watch of this state folder, or learn
 * why it cannot answer. Never throws: every failure is a reason to scan.
 */
import net from 'node:net';
import { queryEndpoint, WATCH_QUERY_VERSION, type WatchAnswer, type WatchQuery, type WatchStatusAnswer } from './query-protocol.js';
import { WATCH_QUERY_COOKIE_TIMEOUT_MS } from './tunables.js';

/** The daemon's own probe wait, plus room for the connection and the answer. */
const ASK_TIMEOUT_MS = WATCH_QUERY_COOKIE_TIMEOUT_MS + 1_000;
/** Paths are many at most as the tree has files: bound what is read all the same. */
const MAX_ANSWER_BYTES = 64 * 1024 * 1024;

export function askWatch(stateDir: string, timeoutMs = ASK_TIMEOUT_MS): Promise<WatchAnswer> {
  return ask<WatchAnswer>(stateDir, { v: WATCH_QUERY_VERSION, op: 'changes' }, timeoutMs);
}

/** The whole status from the watch, for a command whose resolved configuration has digest `config`. */
export function askWatchStatus(stateDir: string, config: string, timeoutMs: number): Promise<WatchStatusAnswer> {
  return ask<WatchStatusAnswer>(stateDir, { v: WATCH_QUERY_VERSION, op: 'status', config }, timeoutMs);
}

type Answer = { v: typeof WATCH_QUERY_VERSION; ok: true } | { v: typeof WATCH_QUERY_VERSION; ok: false; reason: string };

function ask<A extends Answer>(stateDir: string, request: WatchQuery, timeoutMs: number): Promise<A> {
  const endpoint = queryEndpoint(stateDir);
  const fail = (reason: string): A => ({ v: WATCH_QUERY_VERSION, ok: false, reason }) as A;
  if (endpoint === null) return Promise.resolve(fail('the state folder\'s path is too long for a local socket'));
  return new Promise<A>((resolve) => {
    let received = '';
    let settled = false;
    const done = (a: A): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      socket.destroy();
      resolve(a);
    };
    const timer = setTimeout(() => done(fail(`no answer within ${timeoutMs} ms`)), timeoutMs);
    const socket = net.connect(endpoint, () => socket.write(`${JSON.stringify(request)}\n`));
    socket.setEncoding('utf8');
    socket.on('error', (err: NodeJS.ErrnoException) => done(fail(err.code === 'ENOENT' || err.code === 'ECONNREFUSED' ? 'no watch is answering' : `the watch could not be asked (${err.code ?? err.message})`)));
    socket.on('data', (chunk: string) => {
      received += chunk;
      if (received.length > MAX_ANSWER_BYTES) done(fail('the watch\'s answer was too long'));
    });
    socket.on('end', () => {
      try {
        const a = JSON.parse(received) as A;
        done(a.v === WATCH_QUERY_VERSION && typeof a.ok === 'boolean' ? a : fail('the watch answered in another version'));
      } catch {
        done(fail('the watch\'s answer was unreadable'));
      }
    });
  });
}
