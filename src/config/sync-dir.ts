/**
 * "dir" (the synced folder) must be a folder of the project where it really is, not only by
 * name: `linkdir -> ../outside` with `"dir": "linkdir"` passes every check on the string,
 * and a push then sent ../outside while a pull wrote into it (issue 44, item 2). A cloned
 * repository can ship both the link and the setting. So the folder is judged by its real
 * path (every symlink on the way resolved): it must be the project root or inside it, and
 * not inside hostsync's own `.hostsync/`. A link to a folder inside the project is fine:
 * nothing leaves the project through it.
 */
import { realpath } from 'node:fs/promises';
import path from 'node:path';
import { usageError } from '../errors.js';
import { CONFIG_FILE } from './config-file.js';

/** The real path of `p`: resolved through its nearest existing ancestor when `p` itself does not exist yet (a build makes it). */
async function realPathOf(p: string): Promise<string> {
  const rest: string[] = [];
  let at = p;
  for (;;) {
    try {
      return path.join(await realpath(at), ...rest.reverse());
    } catch (err) {
      const parent = path.dirname(at);
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT' || parent === at) throw err;
      rest.push(path.basename(at));
      at = parent;
    }
  }
}

/** Refuses (exit 2) a synced folder `root` ("dir" of the project at `projectRoot`) that really lies outside the project or in `.hostsync/`. */
export async function assertSyncDirInside(projectRoot: string, dir: string, root: string): Promise<void> {
  if (root === projectRoot) return;
  const realRoot = await realPathOf(projectRoot);
  const real = await realPathOf(root);
  const rel = path.relative(realRoot, real);
  const outside = rel === '..' || rel.startsWith(`..${path.sep}`) || path.isAbsolute(rel);
  if (outside) {
    throw usageError(`"dir" of ${CONFIG_FILE} names ${JSON.stringify(dir)}, which leads outside the project (to ${JSON.stringify(real)}), through a symbolic link: point "dir" at a folder inside the project, or replace the link with the folder itself`);
  }
  if (rel.split(path.sep)[0] === '.hostsync') {
    throw usageError(`"dir" of ${CONFIG_FILE} names ${JSON.stringify(dir)}, which leads into hostsync's own state folder (.hostsync): point "dir" at the folder your build writes`);
  }
}
