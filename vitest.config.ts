import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { defineConfig } from 'vitest/config';

// Integration tests start emulators and child processes: keep parallelism modest
// on the 2-core CI machine and give them room, but no timing assertions live here.
export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
    maxWorkers: 2,
    // Clients share a rate-budget ledger under the user's cache folder: tests keep theirs apart.
    // The user's config folder (trusted hosts, the env digest key) likewise: never the real ~/.config.
    env: { HOSTSYNC_CACHE_DIR: join(tmpdir(), `hostsync-test-cache-${process.pid}`), XDG_CONFIG_HOME: join(tmpdir(), `hostsync-test-config-${process.pid}`) },
  },
});
