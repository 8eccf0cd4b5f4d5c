/**
 * The restart rules of the project a command runs on (config/restart-settings.ts) and the
 * guard that applies them to every restart the command asks for (sync/apply/restart-guard.ts):
 * whether it is a worker, which Discord library it uses (read from its manifests, as
 * `init` reads them), and the machine's restart ledger of its deployment.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { projectRootOf, type Config } from '../config/config.js';
import { discordLibraryOf, restartRulesFor, type RestartRules } from '../config/restart-settings.js';
import { RestartLedger, restartLedgerFile } from '../state/restart-ledger.js';
import { EXIT } from '../errors.js';
import { RestartGuard, type RestartGuardOptions, type RestartNote, type SlowStop } from '../sync/apply/restart-guard.js';
import { failedWith, type FailureFields } from './result.js';
import type { Session } from '../sync/session.js';
import { knownWorker } from './worker-app.js';

/** The deployment's restarts in the last 24 hours (this machine's count, every hostsync of the user) and the day's limit (null: none). */
export interface RestartCount {
  today: number;
  limit: number | null;
}

export async function restartRulesOf(config: Config): Promise<RestartRules> {
  const read = async (name: string): Promise<string | null> => {
    for (const dir of new Set([config.root, projectRootOf(config)])) {
      const text = await readFile(path.join(dir, name), 'utf8').catch(() => null);
      if (text !== null) return text;
    }
    return null;
  };
  const library = discordLibraryOf({ packageJson: await read('package.json'), requirements: await read('requirements.txt') });
  return restartRulesFor(config.restarts ?? {}, await knownWorker(config), library);
}

export function restartLedgerOf(config: Pick<Config, 'baseUrl' | 'deploymentId'>, onUnavailable?: (message: string) => void): RestartLedger {
  return new RestartLedger({ file: restartLedgerFile(new URL(config.baseUrl).origin, config.deploymentId), ...(onUnavailable ? { onUnavailable } : {}) });
}

/** Installs the guard on the session's client: every apply of the command is counted and judged. */
export async function guardRestarts(session: Session, opts: Omit<RestartGuardOptions, 'rules' | 'ledger'> & { onUnavailable?: (message: string) => void } = {}): Promise<RestartGuard> {
  const rules = await restartRulesOf(session.config);
  const { onUnavailable, ...rest } = opts;
  return new RestartGuard(session.client, { ...rest, rules, ledger: restartLedgerOf(session.config, onUnavailable) }).install();
}

/** What a command that may restart (push, env push --restart) adds to its result from the guard's notes. */
export interface RestartFields {
  /** The day's restarts after this command's, and the limit; null when it asked for none. */
  restarts: RestartCount | null;
  /** The stop of a restart slow enough to be timed (sync/apply/restart-guard.ts); null otherwise. */
  shutdown: SlowStop | null;
}

/**
 * The result with the guard's notes folded in: the count, a timed stop, the warnings (the
 * count near its limit, a stop that was a kill) and, for a restart refused at the day's
 * limit, exit 3 (the files landed; the message says why the app was not restarted).
 */
export function withRestartNotes<R extends RestartFields & Partial<FailureFields> & { ok: boolean; warnings: string[] }>(result: R, notes: readonly RestartNote[]): R {
  const last = notes.at(-1);
  if (last === undefined) return result;
  const counted = [...notes].reverse().find((n) => n.today !== null);
  const stop = [...notes].reverse().find((n) => n.stop !== null)?.stop ?? null;
  const warnings = [...result.warnings];
  for (const n of notes) {
    if (n.warning) warnings.push(n.warning);
    if (n.stop?.killed) warnings.push(n.stop.message);
  }
  const out: R = { ...result, warnings, restarts: counted ? { today: counted.today!, limit: counted.limit } : null, shutdown: stop };
  const refused = notes.find((n) => n.refused !== null)?.refused;
  return refused && out.ok ? failedWith(out, refused, EXIT.refused) : out;
}
