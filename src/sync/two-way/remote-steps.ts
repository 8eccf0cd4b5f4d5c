/**
 * The steps `undo` and `rollback` both take on the deployment, and the clock they both
 * find versions by. A failed step is recorded against its paths and the rest go on: the
 * verifying read afterwards says what each path holds.
 */
import type { HostingClient } from '../../remote/client.js';
import type { StepFailure } from '../../model/types.js';
import { modeOf } from '../core/plan.js';
import { CLOCK_SKEW_IGNORED_MS, DELETE_BATCH_PATHS } from '../tunables.js';

/** Runs `fn`; a throw becomes a failure of each of `paths`. */
export type Attempt = (paths: string[], fn: () => Promise<void>) => Promise<void>;

export function attempter(failures: Pick<StepFailure, 'path' | 'error'>[]): Attempt {
  return async (paths, fn) => {
    try {
      await fn();
    } catch (err) {
      for (const p of paths) failures.push({ path: p, error: err instanceof Error ? err.message : String(err) });
    }
  };
}

/** The service's clock against ours, when it is off by more than NTP keeps clocks: what a version's savedAt is read with. */
export function clockSkewMs(client: HostingClient): number {
  const offset = client.clockOffsetMs();
  return offset !== null && Math.abs(offset) > CLOCK_SKEW_IGNORED_MS ? offset : 0;
}

/** Deletes `paths` DELETE_BATCH_PATHS at a time; returns how many the service deleted. */
export async function deleteAll(client: HostingClient, paths: readonly string[], attempt: Attempt): Promise<number> {
  let deleted = 0;
  for (let i = 0; i < paths.length; i += DELETE_BATCH_PATHS) {
    const batch = paths.slice(i, i + DELETE_BATCH_PATHS);
    await attempt(batch, async () => {
      deleted += (await client.files.delete(batch)).deleted;
    });
  }
  return deleted;
}

/** Sets each file's executable bit; returns how many were set. */
export async function chmodAll(client: HostingClient, chmods: readonly { path: string; executable: boolean }[], attempt: Attempt): Promise<number> {
  let done = 0;
  for (const c of chmods) {
    await attempt([c.path], async () => {
      await client.files.chmod(c.path, modeOf(c.executable));
      done++;
    });
  }
  return done;
}
