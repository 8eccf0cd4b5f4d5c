import { CONFIG_FILE, normaliseBaseUrl, readConfigFile, resolveRoot } from '../config/config.js';
import { trustBaseUrl } from '../config/trust.js';
import { usageError } from '../errors.js';
import { runCommand, type FailureFields, type Outcome } from './result.js';

export interface TrustOptions {
  dir?: string;
  env?: NodeJS.ProcessEnv;
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

/** `hostsync trust`: records the origin of hostsync.json's "baseUrl" in the user's config directory. */
export async function runTrust(opts: TrustOptions = {}): Promise<{ result: Outcome<TrustResult>; thrown: boolean }> {
  return runCommand<TrustResult>(
    emptyTrustResult,
    async () => {
      const root = await resolveRoot(opts.dir);
      const file = await readConfigFile(root);
      if (!file.baseUrl) throw usageError(`${CONFIG_FILE} in ${root} sets no "baseUrl": there is nothing to trust`);
      const baseUrl = normaliseBaseUrl(file.baseUrl, `"baseUrl" in ${CONFIG_FILE}`);
      const recordFile = await trustBaseUrl(baseUrl, opts.env ?? process.env);
      return { ok: true, origin: new URL(baseUrl).origin, recordFile };
    },
  );
}
