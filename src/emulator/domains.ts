/**
 * Domains, with loopback stand-ins: the subdomain is `<name>.apps.localhost`, a slug
 * is `<slug>.localhost`, and both (and a verified custom domain) are served by the
 * emulator's own port, which forwards a request whose Host names a deployment to that
 * deployment's app. `*.localhost` resolves to loopback in browsers and curl; from
 * code, send the Host header to 127.0.0.1. DNS is never consulted: a custom domain
 * verifies only when the emulator runs with --dns-verified.
 */
import { randomBytes } from 'node:crypto';
import { request, type IncomingMessage, type ServerResponse } from 'node:http';
import { depRoute, type Ctx, type EmulatorCore, type Route } from './context.js';
import type { EmulatedDeployment } from './deployment.js';
import { badRequest, conflict, notFound } from './errors.js';
import { reqString } from './validate.js';

const SLUG = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;
const DOMAIN = /^(?=.{1,253}$)(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}$/;

function emulatorPort(core: EmulatorCore): string {
  return new URL(core.baseUrl).port;
}

export function subdomainHost(dep: EmulatedDeployment): string {
  return `${dep.spec.name.toLowerCase().replace(/[^a-z0-9-]+/g, '-').replace(/^-+|-+$/g, '') || dep.id}.apps.localhost`;
}

const urlFor = (core: EmulatorCore, host: string): string => `http://${host}:${emulatorPort(core)}`;

async function enable(ctx: Ctx, dep: EmulatedDeployment): Promise<{ subdomain: string; url: string; note: string }> {
  const already = dep.domains.subdomainEnabled;
  dep.domains.subdomainEnabled = true;
  const host = subdomainHost(dep);
  return {
    subdomain: host,
    url: urlFor(ctx.core, host),
    note: `${already ? 'already assigned' : 'assigned'}; the emulator serves it on its own port (*.localhost is loopback)`,
  };
}

async function setSlug(ctx: Ctx, dep: EmulatedDeployment): Promise<{ ok: boolean; url: string }> {
  const slug = reqString(await ctx.body(), 'slug').toLowerCase();
  if (!SLUG.test(slug)) throw badRequest('slug must be 1-63 letters, digits or hyphens, not starting or ending with a hyphen');
  for (const other of ctx.core.deployments.values()) {
    if (other !== dep && other.domains.slug === slug) throw conflict(`slug ${slug} is taken by another deployment`, 'slug_taken');
  }
  dep.domains.slug = slug;
  return { ok: true, url: urlFor(ctx.core, `${slug}.localhost`) };
}

async function removeSlug(_ctx: Ctx, dep: EmulatedDeployment): Promise<{ ok: boolean }> {
  if (dep.domains.slug === null) throw notFound('this deployment has no slug', 'slug_not_set');
  dep.domains.slug = null;
  return { ok: true };
}

async function setCustom(ctx: Ctx, dep: EmulatedDeployment): Promise<{ token: string }> {
  const domain = reqString(await ctx.body(), 'domain').toLowerCase();
  if (!DOMAIN.test(domain)) throw badRequest(`${domain} is not a domain name (e.g. app.example.com)`);
  const token = `hostsync-verify=${randomBytes(12).toString('hex')}`;
  dep.domains.custom = { domain, token, verified: false };
  return { token };
}

async function verifyCustom(ctx: Ctx, dep: EmulatedDeployment): Promise<{ verified: boolean; reason: string }> {
  const custom = dep.domains.custom;
  if (!custom) throw notFound('no custom domain attached; set one with setCustomDomain first', 'custom_domain_not_set');
  custom.verified = ctx.core.outside.dnsVerified;
  return custom.verified
    ? { verified: true, reason: `TXT record ${custom.token} found (emulator: --dns-verified)` }
    : { verified: false, reason: `no TXT record ${custom.token} found for ${custom.domain} (the emulator reaches no DNS; run it with --dns-verified to treat DNS as right)` };
}

async function removeCustom(_ctx: Ctx, dep: EmulatedDeployment): Promise<{ ok: boolean }> {
  if (!dep.domains.custom) throw notFound('no custom domain attached', 'custom_domain_not_set');
  dep.domains.custom = null;
  return { ok: true };
}

/** The deployment a Host header names through its subdomain, slug or verified custom domain. */
function deploymentForHost(core: EmulatorCore, host: string): EmulatedDeployment | undefined {
  const name = host.toLowerCase().replace(/:\d+$/, '');
  for (const dep of core.deployments.values()) {
    if (dep.domains.subdomainEnabled && name === subdomainHost(dep)) return dep;
    if (dep.domains.slug !== null && name === `${dep.domains.slug}.localhost`) return dep;
    if (dep.domains.custom?.verified && name === dep.domains.custom.domain) return dep;
  }
  return undefined;
}

/**
 * Forwards a request whose Host names a deployment's domain to its app; false when
 * the Host is the emulator's own (127.0.0.1, localhost), so the API handles it.
 */
export function proxyByHost(core: EmulatorCore, req: IncomingMessage, res: ServerResponse): boolean {
  const host = req.headers.host ?? '';
  const name = host.toLowerCase().replace(/:\d+$/, '');
  if (name === '127.0.0.1' || name === 'localhost' || name === '[::1]' || name === '') return false;
  const dep = deploymentForHost(core, host);
  if (!dep) return false;
  const port = dep.runner.port;
  if (port === null || dep.runner.state !== 'running') {
    res.writeHead(502, { 'Content-Type': 'text/plain' }).end(`deployment ${dep.id} is ${dep.runner.state}; nothing answers behind ${name}\n`);
    return true;
  }
  const upstream = request({ host: '127.0.0.1', port, method: req.method, path: req.url, headers: req.headers }, (answer) => {
    res.writeHead(answer.statusCode ?? 502, answer.headers);
    answer.pipe(res);
  });
  upstream.on('error', () => {
    if (!res.headersSent) res.writeHead(502, { 'Content-Type': 'text/plain' });
    res.end(`the app behind ${name} did not answer\n`);
  });
  req.pipe(upstream);
  return true;
}

export const domainRoutes: Route[] = [
  depRoute('POST', '/deployments/:id/domains', 'deployments.enableDomains', 'deployments:write', enable),
  depRoute('PATCH', '/deployments/:id/domains/slug', 'deployments.setSlug', 'deployments:write', setSlug),
  depRoute('DELETE', '/deployments/:id/domains/slug', 'deployments.removeSlug', 'deployments:write', removeSlug),
  depRoute('PATCH', '/deployments/:id/domains/custom', 'deployments.setCustomDomain', 'deployments:write', setCustom),
  depRoute('POST', '/deployments/:id/domains/custom/verify', 'deployments.verifyCustomDomain', 'deployments:write', verifyCustom),
  depRoute('DELETE', '/deployments/:id/domains/custom', 'deployments.removeCustomDomain', 'deployments:write', removeCustom),
];
