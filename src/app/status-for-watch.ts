/**
 * The running watch works out a whole `status` for a command that asks
 * (watch/query-protocol.ts, cli/status-from-watch.ts): it has its modules loaded and knows
 * what changed, where the command would start a process from nothing and load them all.
 *
 * Invariant: the answer is the result the command would have worked out itself. The watch
 * answers only a command whose configuration, resolved in the command's process, has the
 * digest of the watch's own resolved again now (same root, service, deployment, key,
 * rules), and only from its own answer of what changed: anything less and the command is
 * told why, and works it out in its own process.
 */
import { configDigest } from '../config/config-digest.js';
import type { OwnAnswers } from '../watch/daemon.js';
import { WATCH_QUERY_VERSION, type WatchStatusAnswer } from '../watch/query-protocol.js';
import { resolveConfig, type ConnectionOptions } from './options.js';
import { runStatus } from './status.js';

export function statusAnswerer(opts: ConnectionOptions): (config: string, own: OwnAnswers) => Promise<WatchStatusAnswer> {
  // The watch's own diagnostics stay about the watch: a status it answers logs nothing.
  const { logger: _watchLog, ...quiet } = opts;
  const no = (reason: string): WatchStatusAnswer => ({ v: WATCH_QUERY_VERSION, ok: false, reason });
  return async (asked, own) => {
    try {
      if (configDigest(await resolveConfig(quiet)) !== asked) return no('the watch runs with another configuration');
    } catch (err) {
      return no(`the watch could not resolve its configuration again (${(err as Error).message})`);
    }
    const { result, thrown } = await runStatus(quiet, { watchOnly: own.changed, connections: own.connections, cache: own.cache, ...(own.remote ? { remote: own.remote } : {}) });
    if (thrown) return no(result.error ?? 'the watch could not work out the status');
    return { v: WATCH_QUERY_VERSION, ok: true, result: { ...result, local: { ...result.local, by: 'watch' } } };
  };
}
