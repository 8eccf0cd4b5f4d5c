import type { Logger } from 'pino';
import { DEFAULT_HOT_PATHS } from './tunables.js';
import { projectRootOf, type Config } from '../config/config.js';
import { loadGitignore } from '../local/gitignore.js';
import { createIgnoreMatcher, type IgnoreMatcher } from '../local/ignore.js';
import { loadIgnoreMatcher } from '../local/ignore-file.js';
import { StatCache } from '../local/statcache.js';
import { platformFrom, type Platform } from '../local/platform.js';
import type { HostingClient } from '../remote/client.js';
import type { RemoteCache } from '../state/store.js';
import { commandClient } from './command-client.js';
import { acquireLock, type Lock } from '../state/lock.js';
import { deploymentStateDir, statCacheFile } from '../state/paths.js';
import { StateStore } from '../state/store.js';
import { remoteOwnedMatcher, type RemoteOwned } from './core/remote-owned.js';

/** Everything one command needs to sync one root with one deployment, built from a Config. */
export interface Session {
  config: Config;
  client: HostingClient;
  matcher: IgnoreMatcher;
  hotPaths: IgnoreMatcher | null;
  /** The app's data (hostsync.json "remoteOwned"), built once: what every decision leaves to the deployment. */
  remoteOwned: RemoteOwned;
  /** What the local file system can hold: process.platform's, overridden by HOSTSYNC_FS (config.fs). */
  platform: Platform;
  cache: StatCache;
  store: StateStore;
  /** `.hostsync/<deployment>/`: state, push log and lock. */
  stateDir: string;
  /** Lent by a running watch to a status it works out (Lent.remote); null otherwise. */
  remoteShelf: RemoteShelf | null;
  /**
   * The one owner of `.hostsync/<deployment>/lock`: push() and the watch daemon both take
   * it here. Re-entrant within a session, so a watch that holds it for its lifetime runs
   * each cycle's push under the same hold; another process (or session) is refused (exit 3).
   */
  hold(command: string): Promise<Lock>;
  close(): Promise<void>;
}

/** A re-entrant hold on one lock file: the file is taken by the first hold and released by the last release. */
function lockHolder(stateDir: string): (command: string) => Promise<Lock> {
  let taking: Promise<Lock> | null = null;
  let holds = 0;
  return async (command) => {
    // Counted before the await, so concurrent holds share one acquisition.
    holds++;
    taking ??= acquireLock(stateDir, command);
    let lock: Lock;
    try {
      lock = await taking;
    } catch (err) {
      if (--holds === 0) taking = null;
      throw err;
    }
    let released = false;
    return {
      release: async () => {
        if (released) return;
        released = true;
        if (--holds > 0) return;
        taking = null;
        await lock.release();
      },
    };
  };
}

/**
 * What a long-running process lends a session it opens for a command on the same
 * configuration (the running watch working out a status): its client's warm connections,
 * and its stat cache, kept current by its own scans, instead of the cache file read again
 * (~10 ms at 100k files). The lender saves that cache; the session only reads and adds.
 */
export interface Lent {
  connections?: HostingClient;
  cache?: StatCache;
  /** The lender's shelf for the whole-remote read a status made: the next status asks with its digest (RemoteShelf). */
  remote?: RemoteShelf;
}

/**
 * A whole-remote read kept between statuses the running watch works out. state.bin's copy
 * stays at the watch's last whole push, so after the watch's own writes its digest never
 * matched again, and every status read the whole tree (6 pages at 100k files). Kept here,
 * the first status after a write reads the tree and the next asks with its digest: one
 * request while nothing changed. A digest decides, so a stale shelf costs a read, never a
 * wrong answer.
 */
export interface RemoteShelf {
  get(): RemoteCache | null;
  set(cache: RemoteCache | null): void;
}

/**
 * `deadlineMs`: the command's overall budget, as commandClient takes it (null: runs until
 * stopped, no deadline at all); absent: none unless HOSTSYNC_DEADLINE sets one.
 */
export async function openSession(config: Config, logger?: Logger, opts: { deadlineMs?: number | null; lent?: Lent } = {}): Promise<Session> {
  const platform = platformFrom(config.fs);
  // State lives in the project root even when a build's output folder is synced ("dir"):
  // a build that empties that folder loses nothing of it.
  const stateRoot = projectRootOf(config);
  const stateDir = deploymentStateDir(stateRoot, config.baseUrl, config.deploymentId);
  const client = commandClient(config, logger, {
    deadlineMs: opts.deadlineMs === undefined ? 0 : opts.deadlineMs,
    ...(opts.lent?.connections ? { connectionsOf: opts.lent.connections } : {}),
  });
  const gitignore = config.gitignore === true ? ((await loadGitignore(config.root)) ?? []) : [];
  const matcher = await loadIgnoreMatcher(stateRoot, config.ignore, {}, gitignore, { sendSecrets: config.sendSecrets, neverSync: config.envFiles });
  const cache = opts.lent?.cache ?? (await StatCache.load(statCacheFile(stateRoot)));
  return {
    config,
    client,
    matcher,
    hotPaths: createIgnoreMatcher([...DEFAULT_HOT_PATHS, ...config.hotPaths]),
    remoteOwned: remoteOwnedMatcher(config.remoteOwned ?? []),
    cache,
    platform,
    store: new StateStore(stateDir, config.deploymentId),
    stateDir,
    remoteShelf: opts.lent?.remote ?? null,
    hold: lockHolder(stateDir),
    close: () => client.close(),
  };
}
