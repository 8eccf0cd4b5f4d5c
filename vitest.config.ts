import { accessSync, constants, statfsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { defineConfig } from 'vitest/config';

/**
 * Files that mock a module (vi.mock): they need a module registry of their own. Every other
 * file shares its worker's (isolate: false), which saves each file a fresh worker process
 * and a fresh load of the modules it imports: about a quarter of the suite's CPU
 * (docs/decisions.md, "CI on Node 20, 22 and 24"). A file that changes process-wide state
 * (process.env, a module's state) restores it, or it belongs here.
 */
const OWN_MODULES = ['test/local/scan.test.ts'];

const TMPFS_MAGIC = 0x01021994;
const RAM_ROOM_BYTES = 4 * 2 ** 30;

/**
 * The tests' temporary folders (TMPDIR, so every tmpdir() of a test, an emulator's volume and
 * data) on the RAM file system at /dev/shm when there is one with room: the file-heavy tests
 * create and delete tens of thousands of files, and on a disk each new inode and each
 * deletion is kernel work (a whole run: about a fifth less CPU, system time 88 to 48 s;
 * docs/decisions.md, "Stop 30"). /dev/shm itself, not a folder under it: a watch's Unix
 * socket lives in the project's .hostsync/ and its path may have at most 100 bytes
 * (src/watch/query-protocol.ts: longer, status never asks the watch), and the longest the
 * tests make grew by only /tmp to /dev/shm's four bytes, 85 to 89.
 * Elsewhere (no /dev/shm, a small one as in a default container, not writable) the
 * system's. HOSTSYNC_TEST_TMPDIR=DIR chooses, an empty value the system's.
 */
function testTmpdir(): string | undefined {
  const chosen = process.env.HOSTSYNC_TEST_TMPDIR;
  if (chosen !== undefined) return chosen || undefined;
  try {
    const fs = statfsSync('/dev/shm');
    if (fs.type !== TMPFS_MAGIC || fs.bavail * fs.bsize < RAM_ROOM_BYTES) return undefined;
    accessSync('/dev/shm', constants.W_OK);
    return '/dev/shm';
  } catch {
    return undefined;
  }
}
const TMP = testTmpdir();

/**
 * This run's own folder: the clients' cache and config folders (`env` below) and the
 * folders helpers make that no test's cleanup owns (git repositories, CI runners' temp
 * folders, the CLI's config homes: test/helpers/tree.ts, runDir). The global teardown
 * (test/helpers/global-teardown.ts) removes it, so a run leaves nothing in the temp folder;
 * workers are stopped by signal, so their own exit handlers cannot be relied on for that.
 * In process.env, so the workers and the teardown know it too.
 */
const RUN_DIR = (process.env.HOSTSYNC_TEST_RUN_DIR = join(TMP ?? tmpdir(), `hostsync-test-run-${process.pid}`));

// Integration tests start emulators and child processes and wait on them much of the time,
// the more since most CLI commands run in a host (test/helpers/cli-host.ts) rather than a Node
// process each: five workers keep the 2-core CI machine's cores busy meanwhile (a whole run
// 206-223 s of wall at three, 173 s at five, the same CPU; docs/decisions.md). Room is
// generous, but no timing assertions live here.
export default defineConfig({
  test: {
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
    maxWorkers: 5,
    // Clients share a rate-budget ledger under the user's cache folder: tests keep theirs apart.
    // The user's config folder (trusted hosts, the env digest key) likewise: never the real ~/.config.
    // HOSTSYNC_TEST_CPU_LOG=FILE: one line of CPU seconds per test file (test/helpers/cpu-log.ts).
    // Every file: its CLI host (test/helpers/cli-host.ts) ends with it. The CPU log's afterAll
    // is registered first, so it runs after the host has ended and been reaped.
    globalSetup: ['test/helpers/global-teardown.ts'],
    setupFiles: [...(process.env.HOSTSYNC_TEST_CPU_LOG ? ['test/helpers/cpu-log.ts'] : []), 'test/helpers/cli-host-setup.ts'],
    env: {
      ...(TMP ? { TMPDIR: TMP } : {}),
      HOSTSYNC_CACHE_DIR: join(RUN_DIR, 'cache'),
      XDG_CONFIG_HOME: join(RUN_DIR, 'config'),
    },
    projects: [
      { extends: true, test: { name: 'shared', include: ['test/**/*.test.ts'], exclude: OWN_MODULES, isolate: false } },
      { extends: true, test: { name: 'isolated', include: OWN_MODULES, isolate: true } },
    ],
  },
});
