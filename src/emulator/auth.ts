/**
 * API keys and scopes (hosting-api.md, Authentication). Every key belongs to the
 * one emulated user, which is what the per-user rate limit counts across.
 */
import { randomBytes } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { forbidden, unauthorized } from './errors.js';

/** The document's scope table, in its order. */
export const ALL_SCOPES = [
  'deployments:read', 'deployments:power', 'deployments:write', 'deployments:shell',
  'projects:read', 'projects:write', 'files:read', 'files:write', 'env:read', 'env:write',
  'backups:read', 'backups:write', 'packages:read', 'packages:write', 'account:read',
  'billing:read', 'credits:spend', 'templates:read', 'docs:read',
] as const;
export type Scope = (typeof ALL_SCOPES)[number];

const TOKEN_RE = /^[A-Za-z0-9._~+/=-]+$/;

/** "TOKEN:scope,scope" -> key. A key may hold no scopes ("TOKEN:") to test 403s. */
export function parseKeySpec(spec: string): { token: string; scopes: string[] } {
  const colon = spec.indexOf(':');
  if (colon < 0) throw new Error(`bad key "${redact(spec)}": expected TOKEN:scope,scope (e.g. mykey:files:read,files:write)`);
  const token = spec.slice(0, colon);
  if (!token || !TOKEN_RE.test(token)) {
    throw new Error('bad key: the TOKEN before ":" must be non-empty letters, digits or ._~+/=-');
  }
  const rest = spec.slice(colon + 1).trim();
  const scopes = rest === '' ? [] : rest.split(',').map((s) => s.trim());
  for (const s of scopes) {
    if (!(ALL_SCOPES as readonly string[]).includes(s)) {
      throw new Error(`bad key scope "${s}": known scopes are ${ALL_SCOPES.join(', ')}`);
    }
  }
  return { token, scopes: [...new Set(scopes)] };
}

/** A bad spec's token must not be echoed into an error message: it may be a real key. */
function redact(spec: string): string {
  return spec.length > 4 ? `${spec.slice(0, 2)}…` : '…';
}

export function newApiKey(): string {
  return `hsk_emu_${randomBytes(20).toString('hex')}`;
}

export class KeyRing {
  private readonly keys = new Map<string, ReadonlySet<string>>();

  add(token: string, scopes: Iterable<string>): void {
    this.keys.set(token, new Set(scopes));
  }

  /** The key of a request, or 401. The message never repeats the presented token. */
  authenticate(req: IncomingMessage): string {
    const header = req.headers.authorization;
    if (!header) throw unauthorized('missing API key: send Authorization: Bearer <API_KEY>');
    const m = /^Bearer[ ]+(\S+)\s*$/i.exec(header);
    if (!m) throw unauthorized('malformed Authorization header: expected Bearer <API_KEY>');
    const token = m[1]!;
    if (!this.keys.has(token)) throw unauthorized('unknown API key');
    return token;
  }

  requireScope(token: string, scope: string): void {
    if (!this.keys.get(token)?.has(scope)) {
      throw forbidden(`this key lacks the ${scope} scope`, 'missing_scope');
    }
  }
}
