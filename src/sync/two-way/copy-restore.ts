/**
 * A rollback's files that come back from a push's undo copy (the archive a push took, before
 * sending anything, of the files it overwrote by upload or archive: files.history keeps no
 * version of those). The record's batch header names the copy's folder; rollback-plan.ts
 * decides which files come from which copy.
 *
 * Per copy: the archive is unpacked into its own folder (files.decompress extracts into
 * `root`; the archive is kept: the copy is still there afterwards, for undo and the next
 * rollback), one files.index of that folder checks each file's bytes against the target's
 * BEFORE anything is replaced, then the current files are deleted (the API keeps a copy of
 * each) and the unpacked ones moved into place (files.move never overwrites), and what was
 * unpacked is deleted. Invariants: only a folder copyFolderIn accepts is opened, listed or
 * cleaned; the archive itself is never deleted; a file whose unpacked bytes are not the
 * target's is a failure and its current file is left as it was.
 */
import { ApiError } from '../../remote/errors.js';
import type { FileIndexEntry } from '../../api/types.js';
import type { HostingClient } from '../../remote/client.js';
import { copyFolderIn } from '../../state/base-record.js';
import { moveTargets, type CopyRestore, type RollbackRestore } from '../core/rollback-plan.js';
import { anchoredPath } from '../remote-read/index-groups.js';
import { stripSlash } from '../remote-read/remote-read.js';
import { DELETE_BATCH_PATHS, INDEX_HASH_MAX_BYTES } from '../tunables.js';

/** What files.compress names an archive (`archive-<time>.tar.gz`, `-<n>` when taken): nothing else in a copy folder is taken for one. */
const ARCHIVE_NAME = /^archive-[0-9A-Za-z-]+\.tar\.gz$/;

/**
 * Each copy folder's archive name, by one files.list each; null when the folder is gone, is not
 * one a push makes, or does not hold exactly one archive.
 */
export async function findArchives(client: HostingClient, folders: Iterable<string>): Promise<Map<string, string | null>> {
  const out = new Map<string, string | null>();
  for (const folder of folders) {
    if (out.has(folder)) continue;
    if (copyFolderIn({ copy: folder }) === null) {
      out.set(folder, null);
      continue;
    }
    try {
      const { entries } = await client.files.list(folder);
      const archives = entries.filter((e) => e.type === 'file' && ARCHIVE_NAME.test(e.name));
      out.set(folder, archives.length === 1 ? archives[0]!.name : null);
    } catch (err) {
      if (err instanceof ApiError && err.status === 404) out.set(folder, null);
      else throw err;
    }
  }
  return out;
}

/** The unpacked file holds the target's bytes: by hash, or by size when the index gave none (too big to hash). */
function holdsTarget(e: FileIndexEntry | undefined, r: RollbackRestore): boolean {
  if (!e || e.type !== 'file' || e.sizeBytes !== r.want.size) return false;
  return e.hash == null || r.want.hash === null || e.hash === r.want.hash;
}

export interface CopyRestoreOutcome {
  restored: number;
  failures: { path: string; error: string }[];
}

/** Brings `group`'s files back from its archive; never throws for one file (failures name it). */
export async function restoreFromCopy(client: HostingClient, group: CopyRestore): Promise<CopyRestoreOutcome> {
  const { folder, archive } = group;
  const out: CopyRestoreOutcome = { restored: 0, failures: [] };
  const fail = (paths: readonly string[], error: string): void => {
    for (const p of paths) out.failures.push({ path: p, error });
  };
  const message = (err: unknown): string => (err instanceof Error ? err.message : String(err));
  if (copyFolderIn({ copy: folder }) === null || !ARCHIVE_NAME.test(archive)) {
    fail(group.restores.map((r) => r.path), `the copy ${folder} is not one a push makes: not opened`);
    return out;
  }
  const all = group.restores.map((r) => r.path);
  let unpacked: FileIndexEntry[];
  try {
    await client.files.decompress(archive, { root: folder, removeArchive: false });
    const res = await client.files.index({ path: folder, ignore: [anchoredPath(`${folder}/${archive}`)], hashMaxBytes: INDEX_HASH_MAX_BYTES });
    unpacked = res.entries;
    // A truncated listing: the files it left out are asked for one by one.
    const listed = new Set(unpacked.map((e) => stripSlash(e.path)));
    if (res.truncated) {
      for (const p of all) {
        if (!listed.has(`${folder}/${p}`)) unpacked.push(...(await client.files.index({ path: `${folder}/${p}`, hashMaxBytes: INDEX_HASH_MAX_BYTES })).entries);
      }
    }
  } catch (err) {
    fail(all, `could not open the copy ${folder}/${archive} (${message(err)}); the file was left as it is`);
    return out;
  }
  const at = new Map(unpacked.map((e) => [stripSlash(e.path), e]));
  const good: RollbackRestore[] = [];
  for (const r of group.restores) {
    if (holdsTarget(at.get(`${folder}/${r.path}`), r)) good.push(r);
    else fail([r.path], `its copy in ${folder} holds other bytes than the push rolled back to left (or none); the file was left as it is`);
  }
  // The files in the way go first (files.move never overwrites); the API keeps each.
  const cleared = new Set<string>();
  for (let i = 0; i < good.length; i += DELETE_BATCH_PATHS) {
    const batch = good.slice(i, i + DELETE_BATCH_PATHS).map((r) => r.path);
    try {
      await client.files.delete(batch);
      for (const p of batch) cleared.add(p);
    } catch (err) {
      fail(batch, `could not delete the current file to put its copy in place (${message(err)})`);
    }
  }
  for (const [dir, paths] of moveTargets(good.filter((r) => cleared.has(r.path)))) {
    try {
      const moved = await client.files.move(paths.map((p) => `${folder}/${p}`), dir);
      const landed = new Set(moved.moved.map((m) => stripSlash(m.from)));
      for (const p of paths) {
        if (landed.has(`${folder}/${p}`)) out.restored++;
        else fail([p], `its copy could not be moved into place (${moved.failed.find((f) => stripSlash(f.from) === `${folder}/${p}`)?.reason ?? 'no reason given'}); the file the rollback replaced is kept by the API (hostsync undo brings it back)`);
      }
    } catch (err) {
      fail(paths, `its copy could not be moved into place (${message(err)}); the file the rollback replaced is kept by the API (hostsync undo brings it back)`);
    }
  }
  await cleanUp(client, folder, archive, unpacked);
  return out;
}

/**
 * Deletes what the archive unpacked into its folder: every top-level entry the index listed
 * but the archive. Best effort (and nothing after a failed index: no names): what is left is
 * under `.hostsync/`, which no sync touches, and the next unpack writes over it.
 */
async function cleanUp(client: HostingClient, folder: string, archive: string, unpacked: readonly FileIndexEntry[]): Promise<void> {
  const top = new Set<string>();
  for (const e of unpacked) {
    const rel = stripSlash(e.path);
    if (!rel.startsWith(`${folder}/`)) continue;
    const name = rel.slice(folder.length + 1).split('/')[0]!;
    if (name !== '' && name !== '.' && name !== '..' && name !== archive) top.add(`${folder}/${name}`);
  }
  if (top.size === 0) return;
  await client.files.delete([...top]).catch(() => undefined);
}
