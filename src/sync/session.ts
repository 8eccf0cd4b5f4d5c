import type { Logger } from 'pino';
import { DEFAULT_HOT_PATHS } from './tunables.js';
import type { Config } from '../config/config.js';
import { createIgnoreMatcher, loadIgnoreMatcher, type IgnoreMatcher } from '../local/ignore.js';
import { StatCache } from '../local/statcache.js';
import { HostingClient } from '../remote/client.js';
import { deploymentStateDir, statCacheFile } from '../state/paths.js';
import { StateStore } from '../state/store.js';

/** Everything one command needs to sync one root with one deployment, built from a Config. */
export interface Session {
  config: Config;
  client: HostingClient;
  matcher: IgnoreMatcher;
  hotPaths: IgnoreMatcher | null;
  cache: StatCache;
  store: StateStore;
  /** `.hostsync/<deployment>/`: state, push log and lock. */
  stateDir: string;
  close(): Promise<void>;
}

export async function openSession(config: Config, logger?: Logger): Promise<Session> {
  const stateDir = deploymentStateDir(config.root, config.baseUrl, config.deploymentId);
  const client = new HostingClient({
    baseUrl: config.baseUrl,
    apiKey: config.apiKey,
    deploymentId: config.deploymentId,
    ...(logger ? { logger } : {}),
  });
  const matcher = await loadIgnoreMatcher(config.root, config.ignore);
  const cache = await StatCache.load(statCacheFile(config.root));
  return {
    config,
    client,
    matcher,
    hotPaths: createIgnoreMatcher([...DEFAULT_HOT_PATHS, ...config.hotPaths]),
    cache,
    store: new StateStore(stateDir, config.deploymentId),
    stateDir,
    close: () => client.close(),
  };
}
