/**
 * hostsync's own configuration never arrives silently through a pull. A `.syncignore`
 * taken from the deployment could re-include files the user keeps local, a hostsync.json
 * could point "envFile" or "baseUrl" elsewhere: a whole-tree pull leaves these files as
 * they are and reports the remote change; only a pull that names the file takes it.
 * Pure: the reconciliation in, the reconciliation without the held files out.
 */
import { CONFIG_FILE, type Config } from '../../config/config.js';
import { SYNCIGNORE_FILE } from '../../local/ignore.js';
import { toBaseEntry } from '../../model/snapshot.js';
import type { Snapshot } from '../../model/types.js';
import type { PullReconciliation } from '../core/pull-reconcile.js';

/** A configuration file the remote changed and the pull left alone. */
export interface HeldChange {
  path: string;
  /** changed: new or different content (or mode); deleted: the deployment removed it. */
  change: 'changed' | 'deleted';
}

/** The files that configure hostsync for this root: hostsync.json, .syncignore, every env file, the .gitignore unless the config turned it off. */
export function configFiles(config: Pick<Config, 'envFiles' | 'gitignore'>): Set<string> {
  const out = new Set([CONFIG_FILE, SYNCIGNORE_FILE, ...config.envFiles]);
  if (config.gitignore !== false) out.add('.gitignore');
  return out;
}

/**
 * `rec` without the fetch / remove / chmod of a configuration file the pull did not name
 * (`named`: the exact root-relative paths given, null for the whole tree). A held file
 * keeps its old base entry, so status and the next pull still see the remote change.
 */
export function holdConfigChanges(
  rec: PullReconciliation,
  base: Snapshot | null,
  files: ReadonlySet<string>,
  named: readonly string[] | null,
): { rec: PullReconciliation; held: HeldChange[] } {
  const holds = (p: string): boolean => files.has(p) && !(named ?? []).includes(p);
  const held = new Map<string, HeldChange['change']>();
  for (const e of rec.fetch) if (holds(e.path)) held.set(e.path, 'changed');
  for (const p of rec.remove) if (holds(p)) held.set(p, 'deleted');
  for (const c of rec.chmod) if (holds(c.path)) held.set(c.path, 'changed');
  if (held.size === 0) return { rec, held: [] };
  const nextBase: Snapshot = new Map(rec.nextBase);
  for (const p of held.keys()) {
    const b = base?.get(p);
    if (b) nextBase.set(p, toBaseEntry(b));
    else nextBase.delete(p);
  }
  return {
    rec: {
      ...rec,
      fetch: rec.fetch.filter((e) => !held.has(e.path)),
      remove: rec.remove.filter((p) => !held.has(p)),
      chmod: rec.chmod.filter((c) => !held.has(c.path)),
      overridden: rec.overridden.filter((c) => !held.has(c.path)),
      nextBase,
    },
    held: [...held].map(([path, change]) => ({ path, change })).sort((a, b) => (a.path < b.path ? -1 : 1)),
  };
}

/** The one line a held change prints. */
export function heldLine(h: HeldChange): string {
  const what = h.change === 'deleted' ? 'deleted' : 'changed';
  return `the deployment ${what} ${h.path}, which configures hostsync: left as it is. Review with \`hostsync diff ${h.path}\`, take it with \`hostsync pull ${h.path}\``;
}
