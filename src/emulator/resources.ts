/**
 * deployments.resources (live usage against the deployment's limits) and
 * deployments.check (the app requested over its URL like a visitor).
 */
import { lstatSync, readdirSync } from 'node:fs';
import path from 'node:path';
import type { CheckResult, ResourcesResult } from '../api/types.js';
import { depRoute, type Ctx, type Route } from './context.js';
import type { EmulatedDeployment } from './deployment.js';
import { badRequest } from './errors.js';
import { extractTitle } from './probe.js';
import { EMULATOR_CHECK_BODY_MAX, EMULATOR_CHECK_MAX_LINKS, EMULATOR_CHECK_TIMEOUT_MS } from './tunables.js';

const MIB = 1024 * 1024;

/** Bytes of every file under the volume (what the node's quota counts), links not followed. */
function diskUsed(root: string): number {
  let total = 0;
  const walk = (dir: string): void => {
    let names: string[];
    try {
      names = readdirSync(dir);
    } catch {
      return;
    }
    for (const name of names) {
      const abs = path.join(dir, name);
      const st = lstatSync(abs, { throwIfNoEntry: false });
      if (!st) continue;
      if (st.isDirectory()) walk(abs);
      else total += st.size;
    }
  };
  walk(root);
  return total;
}

function resources(dep: EmulatedDeployment): ResourcesResult {
  const live = dep.runner.resources();
  const started = dep.runner.startedAt;
  return {
    state: dep.runner.state,
    cpu: { usedPercent: live.cpuPercent, limitPercent: dep.resources.cpuPercent },
    memory: { usedBytes: Math.round(live.ramMB * MIB), limitBytes: live.ramLimitMB * MIB },
    disk: { usedBytes: diskUsed(dep.volume.root), limitBytes: dep.resources.storageMB * MIB },
    // Stand-in: the emulator does not meter the app's traffic.
    network: { rxBytes: 0, txBytes: 0 },
    uptimeMs: started === null ? 0 : Math.round(performance.now() - started),
  };
}

const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'];

function jsonParam(q: URLSearchParams, name: string): unknown {
  const raw = q.get(name);
  if (raw === null) return undefined;
  try {
    return JSON.parse(raw);
  } catch {
    return raw;
  }
}

async function fetchText(url: string, init: RequestInit): Promise<{ status: number; contentType: string; body: string; error: string }> {
  try {
    const res = await fetch(url, { ...init, redirect: 'manual', signal: AbortSignal.timeout(EMULATOR_CHECK_TIMEOUT_MS) });
    return { status: res.status, contentType: res.headers.get('content-type') ?? '', body: await res.text(), error: '' };
  } catch (err) {
    const cause = (err as { cause?: { code?: string } }).cause?.code;
    return { status: 0, contentType: '', body: '', error: cause ?? (err as Error).name ?? 'request failed' };
  }
}

/** Same-origin links and assets of a page, in order of appearance, without repeats. */
function sameOriginLinks(html: string, base: URL): string[] {
  const out: string[] = [];
  for (const m of html.matchAll(/\b(?:href|src)\s*=\s*["']([^"'#]+)["']/gi)) {
    let u: URL;
    try {
      u = new URL(m[1]!, base);
    } catch {
      continue;
    }
    if (u.origin !== base.origin) continue;
    const p = u.pathname + u.search;
    if (!out.includes(p)) out.push(p);
  }
  return out;
}

/** Entries of the page's <nav> blocks that appear more than once (same href). */
function duplicatedNav(html: string): string[] {
  const dups = new Set<string>();
  for (const nav of html.matchAll(/<nav\b[\s\S]*?<\/nav\s*>/gi)) {
    const seen = new Set<string>();
    for (const a of nav[0].matchAll(/<a\b[^>]*\bhref\s*=\s*["']([^"']+)["']/gi)) {
      if (seen.has(a[1]!)) dups.add(a[1]!);
      seen.add(a[1]!);
    }
  }
  return [...dups];
}

async function check(ctx: Ctx, dep: EmulatedDeployment): Promise<CheckResult> {
  const q = ctx.query;
  const p = q.get('path') ?? '/';
  if (!p.startsWith('/')) throw badRequest('path must start with /');
  const method = (q.get('method') ?? 'GET').toUpperCase();
  if (!METHODS.includes(method)) throw badRequest(`method must be one of ${METHODS.join(', ')}`);
  const headers = jsonParam(q, 'headers');
  if (headers !== undefined && (typeof headers !== 'object' || headers === null || Array.isArray(headers) || Object.values(headers).some((v) => typeof v !== 'string'))) {
    throw badRequest('headers must be a JSON object of strings');
  }
  const body = jsonParam(q, 'body');
  const port = dep.runner.port;
  const url = port === null ? '' : `http://127.0.0.1:${port}${p}`;
  const empty: CheckResult = { url, status: 0, ok: false, contentType: '', title: '', body: '', error: '', hint: '', links: [], note: '' };
  if (port === null || dep.runner.state !== 'running') {
    return { ...empty, error: 'not running', hint: `The deployment is ${dep.runner.state}; start it with power start or apply, then check again.` };
  }
  const init: RequestInit & { headers: Record<string, string> } = { method, headers: { ...((headers as Record<string, string>) ?? {}) } };
  if (body !== undefined && method !== 'GET') {
    if (typeof body === 'object' && body !== null) {
      init.body = JSON.stringify(body);
      init.headers['content-type'] = 'application/json';
    } else init.body = String(q.get('body'));
  }
  const page = await fetchText(url, init);
  const ok = page.status >= 200 && page.status < 400;
  const html = /html/i.test(page.contentType);
  const result: CheckResult = {
    ...empty,
    status: page.status,
    ok,
    contentType: page.contentType,
    title: html ? extractTitle(page.body) : '',
    body: page.body.slice(0, EMULATOR_CHECK_BODY_MAX),
    error: page.error,
    hint: page.status === 0 ? `Nothing answered on port ${port}: a web app must listen on SERVER_PORT and 0.0.0.0.` : ok ? '' : `The app answered HTTP ${page.status}; the logs may show why.`,
  };
  if (html && page.status >= 200 && page.status < 300) {
    const links = sameOriginLinks(page.body, new URL(url)).filter((l) => l !== p).slice(0, EMULATOR_CHECK_MAX_LINKS);
    for (const l of links) {
      const r = await fetchText(`http://127.0.0.1:${port}${l}`, { method: 'GET' });
      result.links.push({ path: l, status: r.status });
    }
    const notes: string[] = [];
    const broken = result.links.filter((l) => l.status === 0 || l.status >= 400);
    if (broken.length > 0) notes.push(`broken: ${broken.map((l) => `${l.path} (${l.status})`).join(', ')}`);
    const dups = duplicatedNav(page.body);
    if (dups.length > 0) notes.push(`duplicated nav entries: ${dups.join(', ')}`);
    result.note = notes.join('; ');
  }
  return result;
}

export const resourceRoutes: Route[] = [
  depRoute('GET', '/deployments/:id/resources', 'deployments.resources', 'deployments:read', async (_ctx, dep) => resources(dep)),
  depRoute('GET', '/deployments/:id/check', 'deployments.check', 'deployments:read', check),
];
