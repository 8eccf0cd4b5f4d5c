/**
 * Putting remote content into the local tree (pull, resolve --theirs): a temp file beside
 * the target, given its final mode, then renamed over it, so an editor, a build or a crash
 * sees the old file or the new one, never half of one.
 *
 * Every function takes the root and a root-relative path, never a joined path: the
 * folders between them are checked right before each write (local/confine.ts), so a write
 * never leaves the root nor passes through a symlink. Given an Expectation, the target is
 * checked right before the rename (or removal) to still be what the scan saw
 * (local/recheck.ts): an edit made meanwhile is kept and reported, never overwritten.
 *
 * Mode bits: an existing file keeps its own (owner/group/other read-write bits), with only
 * the executable bits set to what the remote says; a new file gets 0644 or 0755.
 */
import { chmod, lstat, rename, rm, writeFile } from 'node:fs/promises';
import { confinedPath, lstatTarget } from './confine.js';
import { assertAsScanned, type Expectation } from './recheck.js';
import { tempBeside } from './temp-names.js';

export { tempBeside };

/** The mode `abs` should end with: its own bits with the executable ones as asked. */
export async function targetMode(abs: string, executable: boolean): Promise<number> {
  let mode = 0o644;
  try {
    const st = await lstat(abs);
    if (st.isFile()) mode = st.mode & 0o7777;
  } catch {
    // new file
  }
  // Execute where read is allowed, as `chmod +x` under a usual umask does.
  return executable ? mode | ((mode & 0o444) >> 2) : mode & ~0o111;
}

/** Makes the (checked) folders above `rel`, refuses a folder where the file must go, and answers its absolute path. */
export function prepareTarget(root: string, rel: string): string {
  const abs = confinedPath(root, rel, { create: true });
  const st = lstatTarget(abs);
  if (st && st.isDirectory()) throw new Error(`${rel} is a folder locally; move it away to take the remote file`);
  return abs;
}

/** Renames a finished temp file over `rel` with the mode it should have (the temp file is gone either way). */
export async function placeTemp(tmp: string, root: string, rel: string, executable: boolean, expected?: Expectation): Promise<void> {
  try {
    const abs = prepareTarget(root, rel);
    await chmod(tmp, await targetMode(abs, executable));
    await assertAsScanned(abs, expected);
    await rename(tmp, abs);
  } catch (err) {
    await rm(tmp, { force: true });
    throw err;
  }
}

/** Writes `data` at `rel` atomically with the mode rules above. */
export async function placeBytes(root: string, rel: string, data: Uint8Array, executable: boolean, expected?: Expectation): Promise<void> {
  const tmp = tempBeside(prepareTarget(root, rel));
  try {
    // 'wx': a fresh file, never one (or a link) already there under that name.
    await writeFile(tmp, data, { mode: 0o600, flag: 'wx' });
  } catch (err) {
    await rm(tmp, { force: true });
    throw err;
  }
  await placeTemp(tmp, root, rel, executable, expected);
}

/** Only the executable bits change (of a regular file: chmod would follow a link). */
export async function setExecutable(root: string, rel: string, executable: boolean): Promise<void> {
  const abs = confinedPath(root, rel, { create: false });
  const st = lstatTarget(abs);
  if (st !== null && !st.isFile()) throw new Error(`${rel} is not a regular file here: its mode was left alone`);
  await chmod(abs, await targetMode(abs, executable));
}

/** Removes the file at `rel` (nothing there: nothing to do), unless it changed since the scan. */
export async function removeFile(root: string, rel: string, expected?: Expectation): Promise<void> {
  const abs = confinedPath(root, rel, { create: false });
  // Gone already (deleted here meanwhile too): what the pull wanted.
  if (lstatTarget(abs) === null) return;
  await assertAsScanned(abs, expected);
  const st = lstatTarget(abs);
  if (st === null) return;
  if (st.isDirectory()) throw new Error(`${rel} is a folder locally: left alone`);
  await rm(abs, { force: true });
}
