/** vitest's global setup, for its teardown: the run's own folder goes when the run ends (vitest.config.ts, RUN_DIR). */
import { rm } from 'node:fs/promises';

export async function teardown(): Promise<void> {
  const dir = process.env.HOSTSYNC_TEST_RUN_DIR;
  if (dir) await rm(dir, { recursive: true, force: true });
}
