/**
 * The local side of `status` and `diff` from a running watch's answer (watch/query-*.ts)
 * instead of a walk: the base on disk, with only the paths the watch names read again.
 * O(changes) in reads; the base is passed over once and none of its entries is kept but
 * those of the named paths (the result is a delta over it, as a scan's is).
 *
 * Invariant: the result equals what a scan would find, given the watch's promise (every
 * other path is as the base holds it). It is used only when the answer is about this
 * root, these ignore rules and this file system kind (`view`), and about the base this
 * process loaded (`state`, checked before and after loading); otherwise null, with the
 * reason, and the caller scans.
 */
import { rescanPaths } from '../../local/scan.js';
import { LazySnapshot, withDelta, type DeltaItem } from '../../model/lazy-snapshot.js';
import { comparePaths } from '../../model/paths.js';
import { entriesEqual } from '../../model/snapshot.js';
import { relPathProblem } from '../../model/safe-path.js';
import type { Entry, Snapshot } from '../../model/types.js';
import type { Session } from '../session.js';

/** What a watch answered (watch/query-protocol.ts), as this layer needs it. */
export interface WatchedChanges {
  changed: readonly string[];
  skipped: readonly string[];
  state: string;
  view: string;
}

export interface WatchedLocal {
  local: Snapshot;
  skipped: string[];
  warnings: string[];
  /** The base's identity this was built on: a caller checks it again once it is done. */
  state: string;
  /** Paths read again. */
  read: number;
}

export async function localFromWatch(session: Session, answer: WatchedChanges, view: string): Promise<WatchedLocal | { reason: string }> {
  if (answer.view !== view) return { reason: 'the watch runs with another root, other ignore rules or another HOSTSYNC_FS' };
  const badPath = [...answer.changed, ...answer.skipped].find((p) => typeof p !== 'string' || relPathProblem(p.replace(/\/$/, '')) !== null);
  if (badPath !== undefined) return { reason: 'the watch named a path outside the root' };
  const { store } = session;
  if ((await store.identity()) !== answer.state) return { reason: 'the base changed since the watch answered' };
  const { base } = await store.load();
  if (base === null) return { reason: 'there is no base yet' };
  // The state file's base is always lazy; anything else is not what the watch compared with.
  if (!(base instanceof LazySnapshot)) return { reason: 'the base is not as the state file gives it' };
  if ((await store.identity()) !== answer.state) return { reason: 'the base changed while it was read' };
  const touched = answer.changed;
  // Unreadable paths the watch knows of, but not under a path read again here (that read decides).
  const skipped = answer.skipped.filter((s) => !touched.some((t) => s === t || s.startsWith(`${t}/`)));
  // None: known equal to the base without making an entry, as a scan of an unchanged tree is.
  if (touched.length === 0) return { local: base.copy(), skipped, warnings: [], state: answer.state, read: 0 };
  // The base's entries at or under the named paths (one pass over its records, none kept
  // but these), read again as they are now: the difference is a delta over the base, which
  // reconcile compares path by path without making the other 100k entries.
  const region = regionOf(base.entriesNow()(), touched);
  const now = new Map(region);
  const scanned = await rescanPaths({ root: session.config.root, matcher: session.matcher, cache: session.cache }, now, touched, { inPlace: true });
  const delta = new Map<string, DeltaItem>();
  for (const p of [...new Set([...region.keys(), ...now.keys()])].sort(comparePaths)) {
    const local = now.get(p) ?? null;
    const was = region.get(p) ?? null;
    if (!entriesEqual(local ?? undefined, was ?? undefined)) delta.set(p, { local, base: was });
  }
  return { local: withDelta(base, delta), skipped: [...skipped, ...scanned.skipped], warnings: [...scanned.warnings], state: answer.state, read: touched.length };
}

/** The entries at or below any of `paths`: each entry's path and its folders looked up in a set, O(depth) apiece. */
function regionOf(entries: Iterable<Entry>, paths: readonly string[]): Map<string, Entry> {
  const named = new Set(paths);
  const out = new Map<string, Entry>();
  for (const e of entries) {
    for (let p = e.path; ; ) {
      if (named.has(p)) {
        out.set(e.path, e);
        break;
      }
      const slash = p.lastIndexOf('/');
      if (slash < 0) break;
      p = p.slice(0, slash);
    }
  }
  return out;
}
