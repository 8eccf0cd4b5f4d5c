/**
 * The target a command means by where it runs (issue 46, item 9): run inside `web/`, the
 * folder of target "web", `hostsync status` works on "web" rather than asking for
 * --target. Only a target's own folder counts (its "dir", or the top level's, when that is
 * not the project root: the root holds every target), and only when exactly one target's
 * folder holds the current directory: two targets sharing a folder say nothing about which.
 */
import path from 'node:path';
import type { ConfigFile } from './config-file.js';

const inside = (dir: string, folder: string): boolean => {
  const rel = path.relative(folder, dir);
  return rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel));
};

/** The one target whose folder holds `cwd`; null when no target's folder, or several, do. */
export function targetOfFolder(file: ConfigFile, projectRoot: string, cwd: string): string | null {
  const here = path.resolve(cwd);
  const holding = Object.entries(file.targets ?? {}).filter(([, t]) => {
    const dir = t.dir ?? file.dir;
    if (!dir || path.resolve(projectRoot, dir) === projectRoot) return false;
    return inside(here, path.resolve(projectRoot, dir));
  });
  return holding.length === 1 ? holding[0]![0] : null;
}
