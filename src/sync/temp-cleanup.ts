/**
 * Removes the temp and part files a killed pull left in the tree (issue 28, item 11): the
 * scan reports them (local/walk.ts, by their exact names), a pull or push removes them
 * while it holds its lock. Only files no running hostsync can still be writing: last
 * modified before the oldest live lock of this root was taken (state/lock.ts), so a pull
 * to another deployment of the same folder, running now, keeps its own.
 */
import { rm } from 'node:fs/promises';
import path from 'node:path';
import { confinedPath, lstatTarget } from '../local/confine.js';
import { isOwnTemp } from '../local/temp-names.js';
import { oldestLiveLockMs } from '../state/lock.js';
import { STATE_DIR } from '../state/paths.js';

/** Removes what it may of `temps` (root-relative); answers the paths removed. Best effort: a file it cannot remove stays. */
export async function removeLeftTemps(root: string, temps: readonly string[]): Promise<string[]> {
  if (temps.length === 0) return [];
  const before = await oldestLiveLockMs(path.join(root, STATE_DIR));
  const removed: string[] = [];
  for (const rel of temps) {
    if (!isOwnTemp(path.posix.basename(rel))) continue;
    try {
      const abs = confinedPath(root, rel, { create: false });
      const st = lstatTarget(abs);
      if (st === null || !st.isFile() || !(st.mtimeMs < before)) continue;
      await rm(abs, { force: true });
      removed.push(rel);
    } catch {
      // Left for the next run; never a reason to fail the command.
    }
  }
  return removed;
}
