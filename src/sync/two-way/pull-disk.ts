/**
 * A pull's plan, checked against what the local file system can hold (local/platform.ts)
 * before anything is written, and given the names it lands under:
 * - on a case-insensitive file system, names that would be one file there (`A.txt` and
 *   `a.txt`, or `Docs/` and `docs/`) refuse the whole pull (exit 3), naming both;
 * - with Windows naming rules, a file Windows cannot hold (`con.txt`, `a:b`, a trailing
 *   dot) is reported as not brought down, with why; the rest still land;
 * - a file lands under the name the disk already gives it (an NFD name stays NFD), or its
 *   wire name (NFC) when new;
 * - removals that fold onto a fetched name go first, so a remote case-only rename does not
 *   delete the file it just wrote.
 */
import { refusal } from '../../errors.js';
import { caseCollisions, removalsFirst } from '../../local/case-fold.js';
import { diskNamer } from '../../local/names.js';
import type { Platform } from '../../local/platform.js';
import { windowsNameProblem } from '../../local/windows-names.js';
import type { Entry, Snapshot } from '../../model/types.js';
import type { StepFailure } from '../../model/types.js';
import type { PullReconciliation } from '../core/pull-reconcile.js';

/** How many colliding pairs a refusal names before "+N more". */
const COLLISIONS_NAMED = 5;

export interface PullOnDisk {
  /** The fetches to make, each with `local` set when its disk name differs from its wire name. */
  fetch: Entry[];
  /** Fetches this file system cannot hold, as failures (permanent). */
  unrepresentable: StepFailure[];
  /** Removals to make before the fetches (the rest come after, as always). */
  removeFirst: string[];
  /** Wire path -> disk path (relative). */
  disk: (wire: string) => string;
}

/** Throws a refusal (exit 3) on a case collision; otherwise where everything lands. */
export function pullOnDisk(rec: PullReconciliation, local: Snapshot, remote: Snapshot, platform: Platform, root: string): PullOnDisk {
  if (platform.caseInsensitive) {
    const removed = new Set(rec.remove);
    const kept = [...local.keys()].filter((p) => !removed.has(p) && !remote.has(p));
    const pairs = caseCollisions([...remote.keys(), ...kept]);
    if (pairs.length > 0) {
      const named = pairs.slice(0, COLLISIONS_NAMED).map(([a, b]) => `${a} and ${b}`).join(', ');
      const more = pairs.length > COLLISIONS_NAMED ? `, +${pairs.length - COLLISIONS_NAMED} more` : '';
      throw refusal(
        `refusing to pull: this file system does not tell case apart, and these names would be one file here: ${named}${more}; nothing was written (rename one of each on the deployment; see docs/platforms.md)`,
      );
    }
  }
  const disk = diskNamer(local);
  const fetch: Entry[] = [];
  const unrepresentable: StepFailure[] = [];
  for (const e of rec.fetch) {
    const name = disk(e.path);
    const problem = platform.windowsNames ? windowsNameProblem(name, root) : null;
    if (problem !== null) unrepresentable.push({ path: e.path, error: `cannot be written on this file system: ${problem}; left on the deployment (rename it there to bring it down)`, permanent: true });
    else fetch.push(name === e.path ? e : { ...e, local: name });
  }
  const removeFirst = platform.caseInsensitive ? removalsFirst(rec.remove, fetch.map((e) => e.path)) : [];
  return { fetch, unrepresentable, removeFirst, disk };
}
