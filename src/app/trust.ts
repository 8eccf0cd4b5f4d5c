import { CONFIG_FILE, normaliseBaseUrl, readConfigFile, resolveRoot, selectTarget } from '../config/config.js';
import { trustBaseUrl } from '../config/trust.js';
import { usageError } from '../errors.js';
import { runCommand, type FailureFields, type Outcome } from './result.js';

export interface TrustOptions {
  dir?: string;
  env?: NodeJS.ProcessEnv;
  /** The target whose "baseUrl" to trust (else HOSTSYNC_TARGET, else "defaultTarget", as every command selects it). */
  target?: string;
}

/** What `trust --json` prints; `error` and `exitCode` when `ok` is false. */
export interface TrustResult extends Partial<FailureFields> {
  ok: boolean;
  /** The origin now trusted to receive the API key. */
  origin: string | null;
  /** The user-level file that records it. */
  recordFile: string | null;
}

/** The shape of a trust that recorded nothing. */
export const emptyTrustResult = (): TrustResult => ({ ok: false, origin: null, recordFile: null });

/**
 * `hostsync trust`: records the origin of hostsync.json's "baseUrl" in the user's config
 * directory: the selected target's when it sets one (the address that target's commands
 * would send the key to, config.ts loadConfig), else the top level's.
 */
export async function runTrust(opts: TrustOptions = {}): Promise<{ result: Outcome<TrustResult>; thrown: boolean }> {
  return runCommand<TrustResult>(
    emptyTrustResult,
    async () => {
      const env = opts.env ?? process.env;
      const root = await resolveRoot(opts.dir);
      const file = await readConfigFile(root);
      const selected = selectTarget(file, opts.target, env);
      const raw = selected?.settings.baseUrl ?? file.baseUrl;
      if (!raw) {
        const withUrl = Object.entries(file.targets ?? {}).filter(([, t]) => t.baseUrl).map(([name]) => name);
        if (selected === null && withUrl.length > 0) {
          throw usageError(`${CONFIG_FILE} in ${root} sets "baseUrl" only in targets (${withUrl.join(', ')}): name one with --target NAME`);
        }
        throw usageError(`${CONFIG_FILE} in ${root} sets no "baseUrl"${selected ? ` for target ${selected.name}` : ''}: there is nothing to trust`);
      }
      const source = selected?.settings.baseUrl ? `"baseUrl" of target ${selected.name}` : `"baseUrl" in ${CONFIG_FILE}`;
      const baseUrl = normaliseBaseUrl(raw, source);
      const recordFile = await trustBaseUrl(baseUrl, env);
      return { ok: true, origin: new URL(baseUrl).origin, recordFile };
    },
  );
}
