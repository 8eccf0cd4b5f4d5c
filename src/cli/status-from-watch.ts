/**
 * `hostsync status` answered by the running watch of the project (app/status-for-watch.ts),
 * before the command line and the commands' modules are loaded: this process resolves its
 * configuration, asks, and prints what the watch worked out. git's fsmonitor is the model;
 * here the daemon answers the whole question, because what a status costs at any tree size
 * is mostly a fresh process loading its modules and the base.
 *
 * Anything it does not take for certain (a flag it does not know, diagnostics asked for,
 * a configuration it cannot resolve, no watch, any answer but a result) returns null, and
 * the command runs as ever, which asks the watch what changed or scans, and says why.
 */
import { parseArgs } from 'node:util';
import { configFlags, loadConfig, projectRootOf } from '../config/config.js';
import { configDigest } from '../config/config-digest.js';
import { deploymentStateDir } from '../state/paths.js';
import { askWatchStatus } from '../watch/query-client.js';
import type { Outcome } from '../app/result.js';
import type { StatusResult } from '../app/status.js';
import { WATCH_STATUS_WAIT_MS } from './tunables.js';
import { noteDevEmulator } from './dev-emulator-note.js';
import { noteTargetFromFolder } from './target-folder-note.js';

/** Levels at which the command itself would print diagnostics a watch's answer cannot carry. */
const CHATTY = new Set(['info', 'debug', 'trace']);

/** The exit code when the watch answered and its result was printed; null: run the command. */
export async function statusFromWatch(argv: string[], env: NodeJS.ProcessEnv = process.env): Promise<number | null> {
  let values;
  try {
    const parsed = parseArgs({
      args: argv.slice(2),
      allowPositionals: true,
      strict: true,
      options: {
        dir: { type: 'string' },
        deployment: { type: 'string' },
        'base-url': { type: 'string' },
        target: { type: 'string', short: 't' },
        yes: { type: 'boolean', short: 'y' },
        json: { type: 'boolean' },
        quiet: { type: 'boolean', short: 'q' },
      },
    });
    if (parsed.positionals.length !== 1 || parsed.positionals[0] !== 'status') return null;
    values = parsed.values;
  } catch {
    return null;
  }
  let config;
  try {
    config = await loadConfig({ flags: configFlags({ ...values, baseUrl: values['base-url'] }), env });
  } catch {
    return null;
  }
  if (CHATTY.has(config.logLevel)) return null;
  const stateDir = deploymentStateDir(projectRootOf(config), config.baseUrl, config.deploymentId);
  // Loaded while the watch works out the answer, which then prints at once (~15 ms of the
  // wait). An answer that does not come leaves them loaded for the command, which prints too.
  const printing = Promise.all([import('./output.js'), import('./render.js')]);
  printing.catch(() => undefined);
  const answer = await askWatchStatus(stateDir, configDigest(config), WATCH_STATUS_WAIT_MS);
  if (!answer.ok || !isStatusResult(answer.result)) return null;
  const [{ emitResult }, { renderStatus, statusSummary }] = await printing;
  const json = values.json ?? false;
  const quiet = values.quiet ?? false;
  if (!quiet) {
    noteDevEmulator(config);
    noteTargetFromFolder(config);
  }
  return emitResult({ result: answer.result, thrown: false }, json, renderStatus, { quiet, summary: statusSummary });
}

/** The watch is our own process, but its answer crossed a socket: print only what has a result's shape. */
function isStatusResult(r: unknown): r is Outcome<StatusResult> {
  if (r === null || typeof r !== 'object') return false;
  const o = r as Record<string, unknown>;
  return typeof o.ok === 'boolean' && Array.isArray(o.changes) && Array.isArray(o.conflicts) && Array.isArray(o.drift) && typeof o.local === 'object' && o.local !== null;
}
