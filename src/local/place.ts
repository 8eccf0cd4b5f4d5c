/**
 * Putting remote content into the local tree (pull, resolve --theirs): a temp file beside
 * the target, given its final mode, then renamed over it, so an editor, a build or a crash
 * sees the old file or the new one, never half of one.
 *
 * Mode bits: an existing file keeps its own (owner/group/other read-write bits), with only
 * the executable bits set to what the remote says; a new file gets 0644 or 0755.
 */
import { chmod, lstat, mkdir, rename, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { randomBytes } from 'node:crypto';

/** A temp path beside `abs`: same directory, so the final rename never crosses file systems. */
export function tempBeside(abs: string): string {
  return path.join(path.dirname(abs), `.${path.basename(abs)}.hostsync-${randomBytes(4).toString('hex')}.tmp`);
}

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

/** Makes the folders above `abs` and refuses a folder where the file must go. */
export async function prepareTarget(abs: string): Promise<void> {
  await mkdir(path.dirname(abs), { recursive: true });
  const st = await lstat(abs).catch(() => null);
  if (st && st.isDirectory()) throw new Error(`${abs} is a folder locally; move it away to take the remote file`);
}

/** Renames a finished temp file over `abs` with the mode it should have. */
export async function placeTemp(tmp: string, abs: string, executable: boolean): Promise<void> {
  try {
    await chmod(tmp, await targetMode(abs, executable));
    await rename(tmp, abs);
  } catch (err) {
    await rm(tmp, { force: true });
    throw err;
  }
}

/** Writes `data` at `abs` atomically with the mode rules above. */
export async function placeBytes(abs: string, data: Uint8Array, executable: boolean): Promise<void> {
  await prepareTarget(abs);
  const tmp = tempBeside(abs);
  try {
    await writeFile(tmp, data, { mode: 0o600 });
  } catch (err) {
    await rm(tmp, { force: true });
    throw err;
  }
  await placeTemp(tmp, abs, executable);
}

/** Only the executable bits change. */
export async function setExecutable(abs: string, executable: boolean): Promise<void> {
  await chmod(abs, await targetMode(abs, executable));
}
