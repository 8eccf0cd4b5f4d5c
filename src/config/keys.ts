/**
 * Every key hostsync.json may hold, in one place: a key missing here is refused (exit 2)
 * with the closest known key, so a typo such as "ignroe" cannot silently do nothing.
 * A feature that adds a key adds it here, beside its owner's validation.
 */
import { createRequire } from 'node:module';
import type * as Levenshtein from 'fastest-levenshtein';
import { usageError, type HostsyncError } from '../errors.js';

// CommonJS packages are required, not imported: see docs/decisions.md, "Start-up".
const require = createRequire(import.meta.url);
const { closest } = require('fastest-levenshtein') as typeof Levenshtein;

export const CONFIG_KEYS = [
  '$schema',
  'deployment',
  'baseUrl',
  'ignore',
  'gitignore',
  'restart',
  'hotPaths',
  'applyWaitSeconds',
  // Owned by parallel work: health checks (#11), targets and env files (#14).
  'health',
  'targets',
  'defaultTarget',
  'envFile',
  // Credentials the user chose to send (local/ignore.ts CREDENTIAL_PATTERNS): top level only.
  'sendSecrets',
  // The deployment as code (#29): deploy-settings.ts.
  'startup',
  'size',
  'dir',
  'build',
  // App data the deployment owns (#47 item 5): top level only; config.ts validateRemoteOwned, sync/core/remote-owned.ts.
  'remoteOwned',
  // Restarts a login limit allows (issue 47): restart-settings.ts.
  'restartMinSeconds',
  'restartsPerDay',
  // Bots first (issue 47): tokens.ts, install.ts, notify.ts. "tokens" and "notify" are top level only.
  'tokens',
  'install',
  'notify',
] as const;

export type ConfigKey = (typeof CONFIG_KEYS)[number];

/** Keys a target of "targets" may hold: every setting of the top level, and "confirm". */
export const TARGET_KEYS: readonly string[] = [
  ...CONFIG_KEYS.filter((k) => !['$schema', 'targets', 'defaultTarget', 'gitignore', 'sendSecrets', 'remoteOwned', 'tokens', 'notify'].includes(k)),
  'confirm',
];

/** The first key of `value` hostsync does not know, as a usage error naming the closest known key; null when all are known. */
export function unknownKeyError(value: Record<string, unknown>, file: string, known: readonly string[] = CONFIG_KEYS, at = ''): HostsyncError | null {
  const unknown = Object.keys(value).find((k) => !known.includes(k));
  if (unknown === undefined) return null;
  return usageError(`${file}: unknown key "${at}${unknown}": did you mean "${at}${closest(unknown, [...known])}"? (known keys: ${known.filter((k) => k !== '$schema').join(', ')})`);
}
