import { afterEach, beforeEach } from 'vitest';
import { tempDir } from './tree.js';

/**
 * Gives every test of the calling file its own cache folder (HOSTSYNC_CACHE_DIR), so its own
 * rate-budget ledger: each test starts with the key's whole budget, as if it had an emulator
 * of its own.
 *
 * Why: the client paces itself at the API's documented 120 requests per key a minute
 * whatever the emulator allows (a real key never gets more), through the ledger every
 * hostsync process of this user shares in the cache folder. Tests that share one emulator
 * (one key) and, together, pass 120 requests within a minute make the next request wait for
 * the oldest to leave the window: up to a minute of sleep in whichever test comes next,
 * testing nothing (56 s and 53 s in remote-base, 48 s in save-patterns). The processes of
 * one test (a watch and the CLI, two racing pushes) still share one ledger, as on a machine.
 *
 * The in-process client reads HOSTSYNC_CACHE_DIR when it is made and runCli passes it on, so
 * setting it for the test reaches both. Also fresh per test: the scope cache (scopes.ts), so a
 * test's request counts never depend on what an earlier test taught it.
 */
export function ownBudgetPerTest(): void {
  const outer = process.env.HOSTSYNC_CACHE_DIR;
  let cache: { dir: string; cleanup: () => Promise<void> } | undefined;
  beforeEach(async () => {
    cache = await tempDir('hostsync-cache-');
    process.env.HOSTSYNC_CACHE_DIR = cache.dir;
  });
  afterEach(async () => {
    if (outer === undefined) delete process.env.HOSTSYNC_CACHE_DIR;
    else process.env.HOSTSYNC_CACHE_DIR = outer;
    await cache?.cleanup();
    cache = undefined;
  });
}
