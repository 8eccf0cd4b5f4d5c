/**
 * What `rollback <id>` does, planned from the base record and the remote alone. Pure.
 *
 * The target is the outcome of batch `<id>`: per path, the after of the newest batch up to
 * and including it (the compaction snapshot included). Only paths a later batch named can
 * differ from it; each whose recorded state now (the newest after) is not the target's is
 * put back: deleted when the target had no file there (added since), restored otherwise
 * (from the files.history version that holds the target's bytes: the content was saved when
 * the first later batch naming the path replaced it, so its savedAt is at or after that
 * batch's time and its size is the target's), or only chmod-ed when the bytes are already
 * the target's. A file that batch overwrote by upload or archive has no such version: the
 * batch's header names the push's undo copy (`copy`), an archive of exactly those files taken
 * before they were replaced, and the file comes back from it (restoreSources).
 *
 * Never touched: paths the app owns (remoteOwned), secrets sent on purpose (sendSecrets),
 * ignored paths. A path whose remote is not what the record says hostsync left there (an
 * edit by hand, by the app, or a push still in flight) is a conflict: the rollback is refused
 * unless forced (files.restore and files.delete keep what they replace, so a forced one
 * loses nothing either).
 */
import { copyFolderIn, recEntriesEqual, type BaseRecord, type BatchHeader, type BatchPath, type RecEntry } from '../../state/base-record.js';
import { sameContent } from '../../model/snapshot.js';
import type { Entry, Snapshot } from '../../model/types.js';
import { entryOf, holdsRecorded } from './record-merge.js';
import { comparePaths, parentDir } from '../../model/paths.js';

export type LeftAloneWhy = 'remoteOwned' | 'sendSecrets' | 'ignored';

export interface RollbackRestore {
  path: string;
  /** The target's entry. */
  want: Entry;
  /** When the target's content was replaced: the first later batch naming the path (ISO, its writer's clock). */
  replacedAt: string;
  /** The copy folder that batch's header names, as written (copyFolderIn judges it); null: none. */
  copy: string | null;
}

export interface RollbackPlan {
  target: BatchHeader;
  restores: RollbackRestore[];
  /** Files added since the target: deleted (the API keeps a copy of each). */
  deletes: string[];
  /** Same bytes as the target, other executable bit. */
  chmods: { path: string; executable: boolean }[];
  /** Paths the deployment changed since hostsync left them (or a push still in flight). */
  conflicts: { path: string; why: string }[];
  leftAlone: { path: string; why: LeftAloneWhy }[];
  /** The rollback's batch: before = what the record says hostsync left, after = the target's. */
  batch: BatchPath[];
  /** Every path the rollback settles, with the target's entry (null: absent): what verification expects. */
  expected: Map<string, Entry | null>;
}

export interface PlanInput {
  record: BaseRecord;
  /** Index of the target batch in record.batches. */
  index: number;
  remote: Snapshot;
  /** Why a path is never touched, or null. */
  leftAlone: (path: string) => LeftAloneWhy | null;
  force: boolean;
}

export function planRollback(input: PlanInput): RollbackPlan {
  const { record, index, remote } = input;
  const target = new Map<string, RecEntry>();
  for (const b of record.batches.slice(0, index + 1)) for (const p of b.paths) target.set(p.path, p.after);
  // Per path named since: the newest after (what hostsync left) and the first later batch's time.
  const current = new Map<string, RecEntry>();
  const replacedBy = new Map<string, BatchHeader>();
  for (const b of record.batches.slice(index + 1)) {
    for (const p of b.paths) {
      current.set(p.path, p.after);
      if (!replacedBy.has(p.path)) replacedBy.set(p.path, b.header);
    }
  }
  const plan: RollbackPlan = { target: record.batches[index]!.header, restores: [], deletes: [], chmods: [], conflicts: [], leftAlone: [], batch: [], expected: new Map() };
  for (const [path, now] of [...current].sort(([a], [b]) => comparePaths(a, b))) {
    const want = target.get(path) ?? null;
    if (recEntriesEqual(want, now)) continue;
    const why = input.leftAlone(path);
    if (why !== null) {
      plan.leftAlone.push({ path, why });
      continue;
    }
    const r = remote.get(path);
    const wantEntry = entryOf(path, want);
    const nowEntry = entryOf(path, now);
    if (!holdsRecorded(r, nowEntry) && !holdsRecorded(r, wantEntry)) {
      plan.conflicts.push({ path, why: r ? 'changed on the deployment since hostsync left it' : 'deleted on the deployment since hostsync left it' });
      if (!input.force) continue;
    }
    plan.batch.push({ path, before: now, after: want });
    plan.expected.set(path, wantEntry);
    if (holdsRecorded(r, wantEntry)) continue;
    if (wantEntry === null) plan.deletes.push(path);
    else if (r && r.hash !== null && sameContent(r, wantEntry)) plan.chmods.push({ path, executable: wantEntry.executable });
    else {
      const by = replacedBy.get(path)!;
      plan.restores.push({ path, want: wantEntry, replacedAt: by.t, copy: by.copy ?? null });
    }
  }
  return plan;
}

/** Restores from one copy archive: opened once, its files moved into place. */
export interface CopyRestore {
  /** `.hostsync/backups/<32 hex>`, checked (copyFolderIn). */
  folder: string;
  /** The archive's name in the folder. */
  archive: string;
  restores: RollbackRestore[];
}

export interface RestoreSources {
  /** Path -> the files.history version id that holds the target's bytes. */
  versions: Map<string, string>;
  copies: CopyRestore[];
  /** Neither: the rollback is refused before anything changes. */
  missing: { path: string; why: string }[];
}

/**
 * Where each restore's bytes come from: its files.history version (`versions`, found by
 * size and time), else the undo copy named by the batch that replaced it, when that folder is
 * one a push makes and holds its archive (`archives`: folder -> the archive's name, null:
 * gone), else nowhere: missing, which refuses the whole rollback.
 */
export function restoreSources(restores: readonly RollbackRestore[], versions: ReadonlyMap<string, string>, archives: ReadonlyMap<string, string | null>): RestoreSources {
  const out: RestoreSources = { versions: new Map(), copies: [], missing: [] };
  const byFolder = new Map<string, CopyRestore>();
  for (const r of restores) {
    const v = versions.get(r.path);
    if (v !== undefined) {
      out.versions.set(r.path, v);
      continue;
    }
    if (r.copy === null) {
      out.missing.push({ path: r.path, why: 'the deployment\'s file history no longer holds that version, and the push that replaced it took no copy' });
      continue;
    }
    const folder = copyFolderIn({ copy: r.copy });
    const archive = folder === null ? null : (archives.get(folder) ?? null);
    if (folder === null || archive === null) {
      out.missing.push({
        path: r.path,
        why: folder === null ? 'the base record names its copy outside .hostsync/backups/, which is never followed' : `the copy the push that replaced it took (${folder}) is gone`,
      });
      continue;
    }
    const group = byFolder.get(folder) ?? { folder, archive, restores: [] };
    if (!byFolder.has(folder)) {
      byFolder.set(folder, group);
      out.copies.push(group);
    }
    group.restores.push(r);
  }
  return out;
}

/** Folders a restore from `restores` takes files out of, each once: one files.move per folder. */
export function moveTargets(restores: readonly RollbackRestore[]): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const r of restores) {
    const dir = parentDir(r.path);
    out.set(dir, [...(out.get(dir) ?? []), r.path]);
  }
  return out;
}

/**
 * Requests the rollback's changes cost past the reads already made: one files.history per
 * restored file, then one files.restore for each one a version holds; per copy archive one
 * files.list (found it), one files.decompress (into its own folder), one files.index (checks
 * the bytes before anything is replaced), one files.move per target folder and one
 * files.delete of what was unpacked; the files it replaces are deleted a DELETE_BATCH_PATHS
 * per files.delete, as the files added since are; a chmod each; the record's one
 * compare-and-swap and the verifying index. The apply and its health wait come after.
 * Without `sources` (the versions not looked up yet) every restore counts as a version's.
 */
export function rollbackRequests(plan: RollbackPlan, deleteBatch: number, sources?: RestoreSources): number {
  const fromCopies = sources?.copies.flatMap((c) => c.restores) ?? [];
  const copies = (sources?.copies ?? []).reduce((n, c) => n + 4 + moveTargets(c.restores).size, 0);
  const changes =
    plan.restores.length * 2 -
    fromCopies.length +
    copies +
    Math.ceil(fromCopies.length / deleteBatch) +
    Math.ceil(plan.deletes.length / deleteBatch) +
    plan.chmods.length;
  return changes === 0 ? 0 : changes + 2;
}
