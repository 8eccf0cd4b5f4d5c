/**
 * The project a command works on, found as git finds `.git`: from the current directory
 * upward, the first folder holding hostsync.json, or hostsync's own state for a project
 * run on the environment alone (a `.hostsync/` holding a deployment's `state.bin`).
 * Without either anywhere above, the current directory. An explicit --dir is taken as
 * given: the user named the project.
 *
 * A bare `.hostsync/` (an empty folder, one made by hand, someone else's) marks nothing: a
 * stray one in a parent folder would make that whole folder the project, and a push would
 * upload it (issue 44, item 7).
 */
import { readdir, stat } from 'node:fs/promises';
import path from 'node:path';
import { usageError } from '../errors.js';
import { CONFIG_FILE } from './config-file.js';

/** hostsync's own state folder and the file a synced deployment keeps in its folder there; spelled here too, since config/ may not import state/. */
const STATE_MARKER = '.hostsync';
const STATE_FILE = 'state.bin';

const isFile = (p: string): Promise<boolean> => stat(p).then((s) => s.isFile(), () => false);

/** Whether `dir/.hostsync/` holds a deployment's state (`.hostsync/<deployment>/state.bin`). */
async function holdsState(dir: string): Promise<boolean> {
  const entries = await readdir(path.join(dir, STATE_MARKER), { withFileTypes: true }).catch(() => []);
  for (const e of entries) {
    if (e.isDirectory() && (await isFile(path.join(dir, STATE_MARKER, e.name, STATE_FILE)))) return true;
  }
  return false;
}

/** The nearest folder at or above `start` that is a hostsync project; null when none is. */
export async function findProjectUp(start: string): Promise<string | null> {
  let dir = path.resolve(start);
  for (;;) {
    if (await isFile(path.join(dir, CONFIG_FILE))) return dir;
    if (await holdsState(dir)) return dir;
    const parent = path.dirname(dir);
    if (parent === dir) return null;
    dir = parent;
  }
}

/** The project root: --dir when given (checked to be a directory), else the nearest project upward, else the current directory. */
export async function findProjectRoot(dir: string | undefined, cwd = process.cwd()): Promise<string> {
  if (dir !== undefined) return resolveRoot(dir, cwd);
  const here = await resolveRoot(undefined, cwd);
  return (await findProjectUp(here)) ?? here;
}

/** Resolve and check the root directory (exit 2 when it is not a directory). */
export async function resolveRoot(dir: string | undefined, cwd = process.cwd()): Promise<string> {
  const root = path.resolve(cwd, dir ?? '.');
  let st;
  try {
    st = await stat(root);
  } catch {
    throw usageError(`${root} does not exist: pass --dir with the project directory to sync`);
  }
  if (!st.isDirectory()) throw usageError(`${root} is not a directory: pass --dir with the project directory to sync`);
  return root;
}
