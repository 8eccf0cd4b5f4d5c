/**
 * The emulator's HTTP server: /api/v1 (the service), /__node/* (signed upload and
 * download URLs, "straight to the node") and /__emulator/* (admin: stats, faults).
 *
 * Order of checks on /api/v1, each answering on its own when it fails:
 *   count in stats -> latency -> injected html403 (the CDN in front, not the API)
 *   -> key (401) -> injected 429 -> rate limit (429)
 *   -> injected 5xx (503) / dropped connection -> route (404/405) -> scope (403)
 *   -> deployment (404) -> handler -> (dropped connection after the handler ran).
 * A 429 consumes no budget; every answer of the API (401 included) carries
 * X-RateLimit-Remaining; the injected challenge page, which is not the API's, does not.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { KeyRing } from './auth.js';
import type { Ctx, EmulatorCore, Route } from './context.js';
import { ApiError, badRequest, notFound } from './errors.js';
import { parseFaultSpec } from './faults.js';
import { readJsonBody, sendError, sendJson, sleep } from './http-io.js';
import { proxyByHost } from './domains.js';
import { handleDownload, handleUpload } from './node-files.js';
import type { RateLimiter } from './ratelimit.js';
import { Router } from './router.js';
import type { Stats } from './stats.js';
import { asObject, type JsonObject } from './validate.js';

export const API_PREFIX = '/api/v1';

export interface ServerParts {
  core: EmulatorCore;
  keys: KeyRing;
  limiter: RateLimiter;
  stats: Stats;
  /** Mutable at run time through the admin route. */
  latency: { ms: number };
}

/** A dropped connection: RST where the platform allows, so the client sees a reset, not a clean close. */
function drop(socket: Socket | null | undefined): void {
  if (!socket) return;
  if (typeof socket.resetAndDestroy === 'function') socket.resetAndDestroy();
  else socket.destroy();
}

function internal(err: unknown): ApiError {
  const msg = err instanceof Error ? err.message : String(err);
  process.stderr.write(`[emulator] internal error: ${msg}\n`);
  return new ApiError(500, 'internal', `internal error: ${msg}`);
}

export function createEmulatorServer(parts: ServerParts, routes: Route[]): Server {
  const router = new Router(routes);
  const server = createServer((req, res) => {
    dispatch(parts, router, req, res).catch((err: unknown) => {
      if (!res.headersSent) sendError(res, internal(err));
      else res.destroy();
    });
  });
  // Keep-alive sockets must not hold close() open; closeAllConnections() ends them.
  server.keepAliveTimeout = 5_000;
  return server;
}

async function dispatch(parts: ServerParts, router: Router, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const url = new URL(req.url ?? '/', 'http://127.0.0.1');
  const p = url.pathname;
  // A request for a deployment's domain (Host: <name>.apps.localhost, a slug, a verified custom domain) goes to its app.
  if (proxyByHost(parts.core, req, res)) return;
  if (p === API_PREFIX || p.startsWith(API_PREFIX + '/')) return api(parts, router, url, req, res);
  if (p.startsWith('/__node/')) return nodeRoute(parts, p, req, res);
  if (p.startsWith('/__emulator/')) return admin(parts, p, req, res);
  sendError(res, notFound(`no such route ${p}; the API is under ${API_PREFIX}`, 'unknown_endpoint'));
}

async function api(parts: ServerParts, router: Router, url: URL, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const { core, keys, limiter, stats } = parts;
  const method = req.method ?? 'GET';
  const rel = url.pathname.slice(API_PREFIX.length) || '/';
  const m = router.match(method, rel);
  stats.count(m.kind === 'found' ? m.route.op : 'unknown');
  if (parts.latency.ms > 0) await sleep(parts.latency.ms);

  if (core.faults.roll('html403')) return sendChallengePage(res);
  const headers: Record<string, string> = {};
  let dropAfter = false;
  try {
    let key: string;
    try {
      key = keys.authenticate(req);
    } catch (err) {
      headers['X-RateLimit-Remaining'] = String(limiter.unauthenticated());
      throw err;
    }
    if (core.faults.roll('429')) {
      stats.countRateLimited();
      headers['X-RateLimit-Remaining'] = String(limiter.peek(key));
      throw new ApiError(429, 'rate_limited', 'rate limit exceeded (injected fault); retry after 1 s', { 'Retry-After': '1' });
    }
    const d = limiter.take(key);
    headers['X-RateLimit-Remaining'] = String(d.remaining);
    if (!d.allowed) {
      stats.countRateLimited();
      throw new ApiError(429, 'rate_limited', `rate limit exceeded; retry after ${d.retryAfterSeconds} s`, {
        'Retry-After': String(d.retryAfterSeconds),
      });
    }
    if (core.faults.roll('5xx')) throw new ApiError(503, 'unavailable', 'service temporarily unavailable (injected fault); retry');
    if (core.faults.roll('reset')) {
      if (core.faults.resetBefore()) return drop(req.socket);
      dropAfter = true;
    }
    if (m.kind === 'none') throw notFound(`no such endpoint: ${method} ${API_PREFIX}${rel}`, 'unknown_endpoint');
    if (m.kind === 'method') {
      throw new ApiError(405, 'method_not_allowed', `${method} is not allowed on ${API_PREFIX}${rel}`, { Allow: m.allow.join(', ') });
    }
    keys.requireScope(key, m.route.scope);
    for (const extra of m.route.alsoScopes ?? []) keys.requireScope(key, extra);
    if (m.route.destructive) {
      headers['X-Destructive'] = 'true';
      // A restore point before anything destructive touches a deployment's files (throttled per deployment).
      const dep = m.params.id === undefined ? undefined : core.deployments.get(m.params.id);
      if (dep) await core.backups.before(dep, m.route.op);
    }
    let body: Promise<JsonObject> | undefined;
    const ctx: Ctx = {
      core,
      req,
      params: m.params,
      query: url.searchParams,
      body: () => (body ??= method === 'GET' ? Promise.resolve({}) : readJsonBody(req).then(asObject)),
    };
    const result = await m.route.handler(ctx);
    if (dropAfter) return drop(req.socket);
    sendJson(res, 200, result, headers);
  } catch (err) {
    if (dropAfter) return drop(req.socket);
    sendError(res, err instanceof ApiError ? err : internal(err), headers);
  }
}

/**
 * What a CDN's bot check answers in front of an API (the service's older API met real
 * clients with such pages): HTTP 403, text/html, a page that wants a browser.
 */
const CHALLENGE_PAGE =
  '<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>Just a moment...</title>' +
  '<meta http-equiv="refresh" content="8"></head><body><h1>Checking your browser before accessing the site.</h1>' +
  '<p>This process is automatic. Your browser will redirect to your requested content shortly.</p>' +
  '<noscript>Please enable JavaScript and cookies to continue.</noscript></body></html>';

function sendChallengePage(res: ServerResponse): void {
  res.writeHead(403, { 'Content-Type': 'text/html; charset=UTF-8', 'Content-Length': String(Buffer.byteLength(CHALLENGE_PAGE)), 'Cache-Control': 'no-store' });
  res.end(CHALLENGE_PAGE);
}

/** Node routes get latency and the 5xx / reset faults, never the API's key, rate limit or stats. */
async function nodeRoute(parts: ServerParts, p: string, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const m = /^\/__node\/(upload|download)\/([A-Za-z0-9_-]+)$/.exec(p);
  if (!m) return sendError(res, notFound('no such node route', 'unknown_endpoint'));
  const { faults } = parts.core;
  if (parts.latency.ms > 0) await sleep(parts.latency.ms);
  if (faults.roll('5xx')) return sendError(res, new ApiError(503, 'unavailable', 'node temporarily unavailable (injected fault); retry'));
  const reset = faults.roll('reset');
  const before = reset && faults.resetBefore();
  if (before) return drop(req.socket);
  if (m[1] === 'download') return handleDownload(parts.core, m[2]!, req, res, reset);
  const answer = await handleUpload(parts.core, m[2]!, req);
  if (reset) return drop(req.socket);
  sendJson(res, answer.status, answer.body, answer.headers ?? {});
}

async function admin(parts: ServerParts, p: string, req: IncomingMessage, res: ServerResponse): Promise<void> {
  try {
    if (p === '/__emulator/stats' && req.method === 'GET') return sendJson(res, 200, parts.stats.snapshot());
    if (p === '/__emulator/stats/reset' && req.method === 'POST') {
      parts.stats.reset();
      return sendJson(res, 200, parts.stats.snapshot());
    }
    if (p === '/__emulator/faults' && req.method === 'GET') {
      return sendJson(res, 200, { faults: parts.core.faults.current(), latencyMs: parts.latency.ms });
    }
    if (p === '/__emulator/faults' && req.method === 'POST') {
      const body = asObject(await readJsonBody(req));
      const { faults, latencyMs } = body;
      if (faults !== undefined && typeof faults !== 'string') throw badRequest('faults must be a string such as "5xx=0.1,reset=0.05"');
      if (latencyMs !== undefined && (typeof latencyMs !== 'number' || !Number.isInteger(latencyMs) || latencyMs < 0)) {
        throw badRequest('latencyMs must be a whole number of milliseconds >= 0');
      }
      if (faults === undefined && latencyMs === undefined) throw badRequest('send faults and/or latencyMs');
      if (typeof faults === 'string') {
        try {
          parseFaultSpec(faults);
        } catch (err) {
          throw badRequest((err as Error).message, 'invalid_faults');
        }
        parts.core.faults.set(faults);
      }
      if (typeof latencyMs === 'number') parts.latency.ms = latencyMs;
      return sendJson(res, 200, { faults: parts.core.faults.current(), latencyMs: parts.latency.ms });
    }
    throw notFound(`no such admin route: ${req.method} ${p}`, 'unknown_endpoint');
  } catch (err) {
    sendError(res, err instanceof ApiError ? err : internal(err));
  }
}
