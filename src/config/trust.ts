/**
 * Which service addresses this user has trusted to receive the API key when the address
 * comes from a file in the project (hostsync.json): a cloned repository, or a pull request
 * that edits hostsync.json, must not be able to send HOSTSYNC_API_KEY to a host of its
 * choosing. The record lives in the user's config directory, never in the project.
 */
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import path from 'node:path';
import { usageError } from '../errors.js';

/**
 * Hosts a base URL from a file may name without a trust record. hosting-api.md documents
 * the service only as `{base_url}` and names no host, so there is none yet: add the
 * service's host here once it is documented.
 */
export const DOCUMENTED_SERVICE_HOSTS: readonly string[] = [];

export const TRUST_FILE = 'trusted-hosts.json';

/** $XDG_CONFIG_HOME/hostsync, else ~/.config/hostsync. */
export function userConfigDir(env: NodeJS.ProcessEnv = process.env): string {
  const xdg = env.XDG_CONFIG_HOME;
  return path.join(xdg && path.isAbsolute(xdg) ? xdg : path.join(env.HOME || homedir(), '.config'), 'hostsync');
}

export function isLoopback(url: URL): boolean {
  return url.hostname === 'localhost' || url.hostname === '[::1]' || /^127\.\d+\.\d+\.\d+$/.test(url.hostname);
}

interface TrustRecord {
  /** Origins (scheme://host:port), each trusted by `hostsync trust`. */
  origins: string[];
}

async function readRecord(env: NodeJS.ProcessEnv): Promise<TrustRecord> {
  const file = path.join(userConfigDir(env), TRUST_FILE);
  try {
    const parsed = JSON.parse(await readFile(file, 'utf8')) as Partial<TrustRecord>;
    return { origins: Array.isArray(parsed.origins) ? parsed.origins.filter((o): o is string => typeof o === 'string') : [] };
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return { origins: [] };
    throw usageError(`cannot read ${file} (${(err as Error).message}): fix or delete it, then run \`hostsync trust\` again`);
  }
}

export async function isTrusted(baseUrl: string, env: NodeJS.ProcessEnv = process.env): Promise<boolean> {
  const url = new URL(baseUrl);
  if (isLoopback(url) || DOCUMENTED_SERVICE_HOSTS.includes(url.hostname)) return true;
  return (await readRecord(env)).origins.includes(url.origin);
}

/** Records `baseUrl`'s origin as trusted (idempotent); returns the record file. */
export async function trustBaseUrl(baseUrl: string, env: NodeJS.ProcessEnv = process.env): Promise<string> {
  const dir = userConfigDir(env);
  const file = path.join(dir, TRUST_FILE);
  const record = await readRecord(env);
  const origin = new URL(baseUrl).origin;
  if (!record.origins.includes(origin)) record.origins.push(origin);
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const tmp = `${file}.${process.pid}.tmp`;
  await writeFile(tmp, `${JSON.stringify(record, null, 2)}\n`, { mode: 0o600 });
  await rename(tmp, file);
  return file;
}

/**
 * Refuses (exit 2) a base URL that came from hostsync.json, is neither loopback nor a
 * documented service host, and was never trusted: the key would follow it.
 */
export async function checkFileBaseUrl(baseUrl: string, env: NodeJS.ProcessEnv = process.env, target: string | null = null): Promise<void> {
  if (await isTrusted(baseUrl, env)) return;
  const origin = new URL(baseUrl).origin;
  // The target's own address is trusted by naming the target, as every command selects it.
  const where = target === null ? '"baseUrl" in hostsync.json' : `"baseUrl" of target ${target} in hostsync.json`;
  const trust = target === null ? 'hostsync trust' : `hostsync trust --target ${target}`;
  throw usageError(
    `${where} points at ${origin}, which you have not trusted, and HOSTSYNC_API_KEY would be sent there ` +
      `(a cloned repository or an edited hostsync.json can name any host): if it is your service, run \`${trust}\` once, ` +
      `or pass it with --base-url or HOSTSYNC_BASE_URL`,
  );
}
