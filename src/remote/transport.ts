/**
 * The one function that puts a request on the wire: one undici Agent (kept-alive,
 * reused connections per origin), one HTTP exchange, no policy. Retrying, pacing and
 * error interpretation are layers above (retry.ts, queue.ts, errors.ts).
 *
 * Invariants:
 * - The Authorization header is set here and only here, and only for API calls
 *   (never for signed node URLs, whose token is in the URL).
 * - A non-2xx answer is returned, not thrown; only "no HTTP answer" throws (as ApiError).
 * - Logs carry operation, method, host, status, ms and bytes: never headers, never a
 *   signed URL (its path is a credential), never the key.
 * - One exchange ends within its wall-clock bound (`timeoutMs`, plus its bytes' worth at
 *   `minBytesPerSecond`), headers and body alike: undici's own timeouts are idle
 *   timeouts that every byte restarts, so a server trickling a space every few seconds
 *   would otherwise hold the request (and the command) forever.
 */

import { Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { IncomingHttpHeaders } from 'node:http';
import type { Agent, FormData } from 'undici';
import type { Logger } from 'pino';
import { CONNECT_TIMEOUT_MS } from './tunables.js';
import { cancelledError, networkError, timeoutError, type ApiError } from './errors.js';
import { undiciAgent, type RequestFn } from './undici-agent.js';
import type { Operation } from './operations.js';
import type { Redactor } from './redact.js';

export type RequestBody = string | FormData | NodeJS.ReadableStream | AsyncIterable<Uint8Array>;

export interface TransportRequest {
  op: Operation;
  url: URL;
  /** Whether the call is safe to repeat (decides retryable vs outcome-unknown on a dropped connection). */
  idempotent: boolean;
  /** JSON body (serialised here), or a ready body; a stream body must be made fresh per attempt. */
  json?: unknown;
  body?: RequestBody;
  contentType?: string;
  /** Send the API key (API calls). Signed node URLs carry their own token. */
  auth: boolean;
  /**
   * How long the whole exchange may take, from this call to the last byte of the answer
   * (wall clock: a trickling answer does not extend it). Fails the attempt as a timeout.
   */
  timeoutMs: number;
  /**
   * With it, every byte sent or received earns the bound 1/rate s more (a large transfer
   * is not cut at `timeoutMs`); a trickle earns next to nothing.
   */
  minBytesPerSecond?: number;
  /** On a 2xx answer, the body is streamed here instead of parsed. */
  sink?: Writable;
  /** Bytes sent, for the log line, when the body is a stream. */
  bytesOut?: () => number;
  attempt: number;
  /** Aborting it cuts the exchange short (HostingClient.destroy, the command's deadline). */
  signal?: AbortSignal;
  /** The error for an exchange `signal` cut short; default: cancelled. */
  stopped?: (sent: boolean) => ApiError;
}

export interface TransportResponse {
  status: number;
  headers: IncomingHttpHeaders;
  /** Parsed JSON when the answer is JSON, its text otherwise; undefined when streamed to a sink. */
  body: unknown;
  bytesIn: number;
}

export interface TransportOptions {
  apiKey: string;
  redactor: Redactor;
  logger: Logger;
  connectionsPerOrigin: number;
  userAgent: string;
  /** Where the service address came from (`--base-url`, `HOSTSYNC_BASE_URL`, ...), named when it cannot be reached. */
  baseUrlFrom?: string | undefined;
}

/** setTimeout's largest delay; a longer one fires at once. */
const MAX_TIMER_MS = 2 ** 31 - 1;

const LOOPBACK_HOSTS = new Set(['localhost', '[::1]', '::1']);

function isLoopback(hostname: string): boolean {
  return LOOPBACK_HOSTS.has(hostname) || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(hostname);
}

/**
 * The key must never cross a network in clear text: http:// is accepted only for
 * loopback hosts (the emulator, a local tunnel); everything else must be https://.
 */
export function assertSecureUrl(url: URL, what: string): void {
  if (url.protocol === 'https:') return;
  if (url.protocol === 'http:' && isLoopback(url.hostname)) return;
  if (url.protocol === 'http:') {
    throw new Error(
      `${what} ${url.protocol}//${url.host} uses plain http:// to a non-loopback host; the API key would travel in clear text. Use https://.`,
    );
  }
  throw new Error(`${what} must be an https:// URL (got ${url.protocol}//${url.host}).`);
}

export function hostOf(url: URL): string {
  return url.port ? `${url.hostname}:${url.port}` : `${url.hostname}:${url.protocol === 'https:' ? 443 : 80}`;
}

export class Transport {
  private readonly agent: Agent;
  private readonly request: RequestFn;

  constructor(private readonly opts: TransportOptions) {
    const undici = undiciAgent();
    this.request = undici.request;
    this.agent = new undici.Agent({
      connections: opts.connectionsPerOrigin,
      pipelining: 1,
      connect: { timeout: CONNECT_TIMEOUT_MS },
    });
  }

  async send(req: TransportRequest): Promise<TransportResponse> {
    const host = hostOf(req.url);
    const started = performance.now();
    const headers: Record<string, string> = { 'user-agent': this.opts.userAgent, accept: 'application/json' };
    if (req.auth) headers.authorization = `Bearer ${this.opts.apiKey}`;
    let body: RequestBody | undefined = req.body;
    let bytesOut = 0;
    if (req.json !== undefined) {
      body = JSON.stringify(req.json);
      headers['content-type'] = 'application/json';
      bytesOut = Buffer.byteLength(body);
    } else if (req.contentType) {
      headers['content-type'] = req.contentType;
    }
    const log = (fields: Record<string, unknown>): void => {
      this.opts.logger.debug(
        {
          op: req.op.name,
          method: req.op.method,
          host,
          attempt: req.attempt,
          ms: Math.round(performance.now() - started),
          bytesOut: req.bytesOut ? req.bytesOut() : bytesOut,
          ...fields,
        },
        'request',
      );
    };

    let bytesIn = 0;
    const stopped = (sent: boolean): ApiError =>
      req.stopped ? req.stopped(sent) : cancelledError(req.op.name, { sent, idempotent: req.idempotent, host });
    if (req.signal?.aborted) throw stopped(false);
    // The wall-clock bound: undici's headersTimeout/bodyTimeout below only catch silence.
    // One controller per exchange, fed by the caller's signal through a listener removed
    // at the end (AbortSignal.any would tie every exchange to a signal that lives for days).
    const stop = new AbortController();
    const onStop = (): void => stop.abort();
    req.signal?.addEventListener('abort', onStop, { once: true });
    let timedOut = false;
    let headersIn = false;
    let timer: NodeJS.Timeout | undefined;
    const check = (): void => {
      const earned = req.minBytesPerSecond ? ((bytesIn + (req.bytesOut ? req.bytesOut() : bytesOut)) / req.minBytesPerSecond) * 1000 : 0;
      const left = req.timeoutMs + earned - (performance.now() - started);
      if (left <= 0) {
        timedOut = true;
        stop.abort();
      } else timer = setTimeout(check, Math.min(Math.ceil(left), MAX_TIMER_MS));
    };
    timer = setTimeout(check, Math.min(req.timeoutMs, MAX_TIMER_MS));
    try {
      const res = await this.request(this.agent, {
        origin: req.url.origin,
        path: req.url.pathname + req.url.search,
        method: req.op.method,
        headers,
        body: body as never,
        headersTimeout: req.timeoutMs,
        bodyTimeout: req.timeoutMs,
        signal: stop.signal,
      });
      headersIn = true;
      const ok = res.statusCode >= 200 && res.statusCode < 300;
      let parsed: unknown;
      if (ok && req.sink) {
        res.body.on('data', (c: Buffer) => {
          bytesIn += c.length;
        });
        await pipeline(res.body, req.sink);
      } else {
        // Read by hand, not body.text(), so the bound's check sees the bytes as they come.
        const chunks: Buffer[] = [];
        for await (const c of res.body as AsyncIterable<Buffer>) {
          chunks.push(c);
          bytesIn += c.length;
        }
        parsed = parseBody(Buffer.concat(chunks).toString('utf8'), res.headers['content-type']);
      }
      log({ status: res.statusCode, bytesIn });
      return { status: res.statusCode, headers: res.headers, body: parsed, bytesIn };
    } catch (cause) {
      // Once aborted, whatever undici reports is our own doing; the request may have left.
      const err = req.signal?.aborted
        ? stopped(true)
        : timedOut
          ? timeoutError(req.op, headersIn ? 'UND_ERR_BODY_TIMEOUT' : 'UND_ERR_HEADERS_TIMEOUT', { host, idempotent: req.idempotent, timeoutMs: req.timeoutMs })
          : networkError(req.op, cause, { host, redactor: this.opts.redactor, idempotent: req.idempotent, timeoutMs: req.timeoutMs, baseUrlFrom: this.opts.baseUrlFrom });
      log({ status: 0, bytesIn, error: err.code });
      throw err;
    } finally {
      clearTimeout(timer);
      req.signal?.removeEventListener('abort', onStop);
    }
  }

  /** Waits for running requests, then closes the connections. */
  async close(): Promise<void> {
    await this.agent.close();
  }

  /** Drops every connection now; running requests fail (abort their signal first for a clear error). */
  async destroy(): Promise<void> {
    await this.agent.destroy();
  }
}

function parseBody(text: string, contentType: string | string[] | undefined): unknown {
  const ct = Array.isArray(contentType) ? contentType[0] : contentType;
  const looksJson = (ct !== undefined && ct.includes('json')) || /^\s*[{[]/.test(text);
  if (looksJson && text.length > 0) {
    try {
      return JSON.parse(text);
    } catch {
      return text;
    }
  }
  return text;
}
