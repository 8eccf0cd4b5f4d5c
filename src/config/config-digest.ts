/**
 * One value for a resolved configuration, so that two processes can tell whether they
 * would do the same work (a command asking the running watch for its whole status,
 * watch/query-protocol.ts) without either sending the other its settings or its API key:
 * a hash, from which the key cannot be read back.
 *
 * Invariant: equal digests mean equal configurations in everything that decides what a
 * command compares and how (root, service, deployment, key, ignore rules, file system
 * kind, targets, timeouts); left out are the log level, which decides where diagnostics
 * go, and what only messages name: where the base URL and the target came from.
 */
import { createHash } from 'node:crypto';
import type { Config } from './config.js';

export function configDigest(config: Config): string {
  const { logLevel: _diagnosticsOnly, baseUrlFrom: _named, targetFromFolder: _noted, ...decisive } = config;
  return createHash('sha256').update(canonical(decisive)).digest('hex');
}

/** JSON with every object's keys sorted: the same configuration built in another order hashes the same. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>).filter(([, v]) => v !== undefined);
    return `{${entries.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([k, v]) => `${JSON.stringify(k)}:${canonical(v)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}
