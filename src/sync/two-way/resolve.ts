/**
 * `resolve PATH... --ours|--theirs`: settles conflicts per path.
 *   theirs: the remote content comes down (a forced pull of exactly those paths);
 *   ours:   the base takes what the remote holds now, so the next push sees R = B and
 *           L != B, a plain local change, and writes (or deletes) it without --force.
 * Neither touches the remote; `ours` does not touch the local tree either.
 */
import type { Snapshot } from '../../model/types.js';
import { toBaseEntry } from '../../model/snapshot.js';
import { pull, type PullReport } from './pull.js';
import { mergeBase, readSides } from './sides.js';
import { settleUnverified } from '../unverified-fold.js';
import { leftAloneOf, type LeftAlone } from './left-alone.js';
import type { Session } from '../session.js';
import { recordBaseChange } from '../record/remote-record.js';

export interface ResolveReport {
  side: 'ours' | 'theirs';
  /** Paths now settled: theirs took the remote file, ours will push the local one. */
  settled: string[];
  /** Named paths neither side can settle: a link (or a special or unreadable file) here, or below one. */
  leftAlone: LeftAlone[];
  pull: PullReport | null;
}

export async function resolve(session: Session, paths: string[], side: 'ours' | 'theirs'): Promise<ResolveReport> {
  if (side === 'theirs') {
    const report = await pull(session, { paths, force: true });
    const failed = new Set([...report.failures.map((f) => f.path), ...report.conflicts.map((c) => c.path)]);
    const settled = [...report.fetched, ...report.removed, ...report.chmod.map((c) => c.path)].filter((p) => !failed.has(p)).sort();
    return { side, settled, leftAlone: leftAloneOf(session.config.root, paths, report.skipped, 'settle'), pull: report };
  }
  const lock = await session.hold('resolve');
  try {
    const sides = await readSides(session, paths, 'resolve');
    const scoped: Snapshot = new Map();
    for (const [k, v] of sides.remote) scoped.set(k, toBaseEntry(v));
    const settled = [...new Set([...sides.local.keys(), ...sides.remote.keys()])]
      .filter((p) => {
        const l = sides.local.get(p);
        const r = sides.remote.get(p);
        return !l || !r || l.hash !== r.hash || l.size !== r.size || l.executable !== r.executable;
      })
      .sort();
    const base = mergeBase(sides.state.base, sides.scopes, scoped, (rel) => session.matcher.ignores(rel, false));
    await session.store.save({ base, remote: sides.state.remote });
    await settleUnverified(session, sides.unverified);
    // Not a change of the deployment, but of what hostsync takes it to hold: other machines see it too.
    await recordBaseChange(session, 'resolve', sides.state.base, base, sides.remoteRead);
    await session.store.appendLog({ command: 'resolve', side, paths: settled.length, requests: session.client.stats().total });
    return { side, settled, leftAlone: leftAloneOf(session.config.root, paths, sides.skipped, 'settle'), pull: null };
  } finally {
    await lock.release();
  }
}
