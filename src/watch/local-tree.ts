/**
 * Watch mode's picture of the local tree: the snapshot, updated in place path by path, and
 * whether it still equals what the last clean push sent, tracked per changed path. A save
 * then costs O(its paths): at 100k files, copying the snapshot per batch and comparing it
 * whole with the last pushed one cost more CPU than the save's requests took to answer.
 *
 * Invariant: `differs` holds exactly the paths where the snapshot differs from the last
 * clean push, each with the entry that push saw (undefined: absent); null when there is
 * no clean push to compare with.
 */
import { rescanPaths, scanTree, type ScanOptions } from '../local/scan.js';
import { entriesEqual } from '../model/snapshot.js';
import { TreeSnapshot } from '../model/tree-snapshot.js';
import type { Entry } from '../model/types.js';

export class LocalTree {
  snapshot: TreeSnapshot | null = null;
  /** Unreadable files of the snapshot: a push must not take their absence for a deletion. */
  skipped = new Set<string>();
  private differs: Map<string, Entry | undefined> | null = null;

  /** A full scan (start-up, rescan); O(tree) like the scan itself. Returns its warnings. */
  async scanAll(opts: ScanOptions): Promise<string[]> {
    const scanned = await scanTree(opts);
    const next = new TreeSnapshot(scanned.snapshot);
    const prev = this.snapshot;
    if (this.differs !== null && prev !== null) {
      for (const [p, e] of next) if (!entriesEqual(prev.get(p), e)) this.note(p, prev.get(p), e);
      for (const [p, e] of prev) if (!next.has(p)) this.note(p, e, undefined);
    }
    this.snapshot = next;
    this.skipped = new Set(scanned.skipped);
    return scanned.warnings;
  }

  /** Re-reads `paths` (files or folders) into the snapshot. Returns the warnings. */
  async rescan(opts: ScanOptions, paths: readonly string[]): Promise<string[]> {
    if (this.snapshot === null) return this.scanAll(opts);
    const scanned = await rescanPaths(opts, this.snapshot, paths, { inPlace: true });
    for (const [p, was] of scanned.changed) this.note(p, was, this.snapshot.get(p));
    forgetUnder(this.skipped, paths);
    for (const p of scanned.skipped) this.skipped.add(p);
    return scanned.warnings;
  }

  /**
   * Re-walks `folders` ('' = the whole tree) for what a watcher may have missed: a build
   * that empties a folder and writes it again can lose a create event (issue 46). Returns
   * the paths whose entry changed, for the cycle's scope, and the warnings.
   */
  async rewalk(opts: ScanOptions, folders: readonly string[]): Promise<{ changed: string[]; warnings: string[] }> {
    if (this.snapshot === null || folders.includes('')) {
      const before = this.snapshot === null ? null : new Map(this.snapshot);
      const warnings = await this.scanAll(opts);
      if (before === null) return { changed: [], warnings };
      const changed: string[] = [];
      for (const [p, e] of this.snapshot!) if (!entriesEqual(before.get(p), e)) changed.push(p);
      for (const p of before.keys()) if (!this.snapshot!.has(p)) changed.push(p);
      return { changed, warnings };
    }
    const scanned = await rescanPaths(opts, this.snapshot, folders, { inPlace: true });
    for (const [p, was] of scanned.changed) this.note(p, was, this.snapshot.get(p));
    forgetUnder(this.skipped, folders);
    for (const p of scanned.skipped) this.skipped.add(p);
    return { changed: [...scanned.changed.keys()], warnings: scanned.warnings };
  }

  /**
   * The folders to re-walk after a batch: the parent of every batch path that is now absent
   * (a removal, or a replacement whose create event may be missing). '' (the root) only
   * when the tree is small (WATCH_REWALK_WHOLE_MAX_FILES): a big tree's root-level removal
   * is left to the events, as before.
   */
  gapFolders(paths: readonly string[], wholeMaxFiles: number): string[] {
    const snap = this.snapshot;
    if (snap === null) return [];
    const out = new Set<string>();
    for (const p of paths) {
      if (snap.has(p) || snap.below(p) > 0) continue;
      const slash = p.lastIndexOf('/');
      const parent = slash < 0 ? '' : p.slice(0, slash);
      if (parent === '' && snap.size > wholeMaxFiles) continue;
      out.add(parent);
    }
    if (out.has('')) return [''];
    // A folder below another one kept is walked with it.
    const sorted = [...out].sort();
    return sorted.filter((d) => !sorted.some((o) => o !== d && d.startsWith(`${o}/`)));
  }

  /** The snapshot as it is now was pushed, and nothing is left to retry. */
  pushed(): void {
    this.differs = new Map();
  }

  /** The last push did not settle everything: nothing is known to be pushed. */
  unsettle(): void {
    this.differs = null;
  }

  /** The snapshot equals what the last clean push sent. */
  get settled(): boolean {
    return this.differs !== null && this.differs.size === 0;
  }

  private note(p: string, was: Entry | undefined, now: Entry | undefined): void {
    const d = this.differs;
    if (d === null) return;
    const pushed = d.has(p) ? d.get(p) : was;
    if (entriesEqual(pushed, now)) d.delete(p);
    else d.set(p, pushed);
  }
}

/** Drops `touched` paths, and whatever lies beneath them, from `set`. */
function forgetUnder(set: Set<string>, touched: readonly string[]): void {
  if (set.size === 0) return;
  for (const t of touched) {
    set.delete(t);
    const prefix = `${t}/`;
    for (const p of set) if (p.startsWith(prefix)) set.delete(p);
  }
}
