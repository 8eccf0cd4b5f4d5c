/**
 * The project a command works on, found as git finds `.git`: from the current directory
 * upward, the first folder holding hostsync.json (or hostsync's state, `.hostsync/`, for a
 * project run on the environment alone). Without either anywhere above, the current
 * directory. An explicit --dir is taken as given: the user named the project.
 */
import { stat } from 'node:fs/promises';
import path from 'node:path';
import { CONFIG_FILE, resolveRoot } from './config.js';

/** hostsync's own state folder; spelled here too, since config/ may not import state/. */
const STATE_MARKER = '.hostsync';

const isFile = (p: string): Promise<boolean> => stat(p).then((s) => s.isFile(), () => false);
const isDir = (p: string): Promise<boolean> => stat(p).then((s) => s.isDirectory(), () => false);

/** The nearest folder at or above `start` that is a hostsync project; null when none is. */
export async function findProjectUp(start: string): Promise<string | null> {
  let dir = path.resolve(start);
  for (;;) {
    if (await isFile(path.join(dir, CONFIG_FILE))) return dir;
    if (await isDir(path.join(dir, STATE_MARKER))) return dir;
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
