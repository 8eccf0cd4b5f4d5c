/**
 * hostsync.json "health": how to judge that the app came up after an apply (web answers
 * HTTP, a worker prints its ready line). Its own module so that project-kind.ts can name
 * it without importing config.ts, which imports project-kind.ts through restart-settings.
 */
import { usageError } from '../errors.js';

/** web: serves HTTP; worker: runs without listening (a bot, a queue consumer); auto: web if it answers HTTP, else worker. */
export type HealthKind = 'auto' | 'web' | 'worker';

export interface HealthSettings {
  kind: HealthKind;
  /** The path a web app must answer 2xx/3xx on. */
  path: string;
  /** A worker is up once a console line matches this (case-sensitive JavaScript RegExp source); null: running is enough. */
  ready: string | null;
  /** How long a web app may take to answer, or a worker to print its ready line, after the apply. */
  timeoutSeconds: number;
}

export const DEFAULT_HEALTH: HealthSettings = { kind: 'auto', path: '/', ready: null, timeoutSeconds: 30 };
const HEALTH_KINDS: readonly HealthKind[] = ['auto', 'web', 'worker'];

export function validateHealth(value: unknown, file: string): Partial<HealthSettings> {
  const where = `${file}: "health"`;
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw usageError(`${where} must be an object such as {"kind": "worker", "ready": "Logged in as", "timeoutSeconds": 30}`);
  }
  const h = value as Record<string, unknown>;
  const unknown = Object.keys(h).filter((k) => !['kind', 'path', 'ready', 'timeoutSeconds'].includes(k));
  if (unknown.length > 0) throw usageError(`${where} has an unknown key "${unknown[0]}": use kind, path, ready and timeoutSeconds`);
  const out: Partial<HealthSettings> = {};
  if (h.kind !== undefined) {
    if (!HEALTH_KINDS.includes(h.kind as HealthKind)) throw usageError(`${where}.kind must be one of ${HEALTH_KINDS.join(', ')}`);
    out.kind = h.kind as HealthKind;
  }
  if (h.path !== undefined) {
    if (typeof h.path !== 'string' || !h.path.startsWith('/')) throw usageError(`${where}.path must be a path starting with "/", e.g. "/healthz"`);
    out.path = h.path;
  }
  if (h.ready !== undefined && h.ready !== null) {
    if (typeof h.ready !== 'string' || h.ready === '') throw usageError(`${where}.ready must be a regular expression as a string, e.g. "Logged in as"`);
    try {
      new RegExp(h.ready);
    } catch (err) {
      throw usageError(`${where}.ready is not a valid regular expression (${(err as Error).message}): escape special characters with \\\\`);
    }
    out.ready = h.ready;
  }
  if (h.timeoutSeconds !== undefined) {
    const n = h.timeoutSeconds;
    if (typeof n !== 'number' || !Number.isFinite(n) || n <= 0 || n > 600) throw usageError(`${where}.timeoutSeconds must be a number of seconds above 0, at most 600`);
    out.timeoutSeconds = n;
  }
  return out;
}
