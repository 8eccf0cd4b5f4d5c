/**
 * Server-side copies of remote content a push is about to replace, taken before its first
 * change with files.compress and moved under `.hostsync/backups/` (which every index
 * ignores, so no push, pull or mirror ever touches them). `undo` restores from them.
 *   safety: before `--force` or `--mirror` overwrites or deletes content the last base
 *           does not hold (someone else's edit, a file the app wrote): exactly that content.
 *   undo:   existing files the plan overwrites by upload or archive, which files.history
 *           does not cover (it keeps writes, edits, renames and deletes only).
 * Each copy goes into its own folder named by 128 random bits: a static or PHP runtime
 * serves the volume as the web root, and a name with only a timestamp (files.compress's
 * `archive-<time>.tar.gz`) can be guessed to the second. The timestamp stays in the file
 * name for humans; the journal records the whole path, which undo and history read. The
 * undo copy's folder is chosen before the push writes the base record, whose batch header
 * names it (`copy`): a rollback on any machine restores from it (two-way/copy-restore.ts).
 */
import { randomBytes } from 'node:crypto';
import type { HostingClient } from '../../remote/client.js';
import { entriesEqual } from '../../model/snapshot.js';
import type { Change, Plan, Snapshot } from '../../model/types.js';
import { BACKUP_DIR } from '../../state/base-record.js';

/** Remote files the changes overwrite or delete whose content is not the base's (chmod and rename keep the bytes). */
export function safetyCopyPaths(changes: readonly Change[], remote: Snapshot, base: Snapshot | null): string[] {
  const out = new Set<string>();
  for (const c of changes) {
    if (c.kind === 'chmod' || c.kind === 'rename') continue;
    const r = remote.get(c.path);
    if (r && !entriesEqual(r, base?.get(c.path))) out.add(c.path);
  }
  return [...out].sort();
}

/** Remote files the plan overwrites by upload or archive: the service keeps no history version of them. */
export function unversionedPaths(plan: Plan, remote: Snapshot): string[] {
  const out = new Set<string>();
  for (const s of plan.steps) {
    if (s.op !== 'upload' && s.op !== 'archive') continue;
    for (const f of s.files) if (remote.has(f.path)) out.add(f.path);
  }
  return [...out].sort();
}

/** `.hostsync/backups/<32 hex>`: a folder no one can guess (files.move creates it). */
export const copyFolder = (): string => `${BACKUP_DIR}/${randomBytes(16).toString('hex')}`;

/** Archives `paths` (volume-relative) and moves the archive into `folder` (a copyFolder()); returns its path. Two requests. */
export async function takeCopy(client: HostingClient, paths: readonly string[], folder: string = copyFolder()): Promise<string> {
  const { archive } = await client.files.compress([...paths]);
  const name = archive.replace(/^\/+/, '');
  const moved = await client.files.move([name], folder);
  const to = moved.moved[0]?.to;
  if (!to) {
    await client.files.delete([name]).catch(() => undefined);
    throw new Error(`the copy of the files about to be replaced could not be kept in ${BACKUP_DIR} (${moved.failed[0]?.reason ?? 'no reason given'}); nothing was pushed: push again, or pass --no-backup to push without the copy`);
  }
  return to.replace(/^\/+/, '');
}
