/**
 * The local write edge's own check (defence in depth behind the answer schemas): a file
 * hostsync writes, renames, removes or chmods lies inside the root, reached through real
 * folders only. Right before each write every folder between the root and the file is
 * lstat-ed: a symlink (to a folder outside the project, say) or a file there refuses the
 * write, so nothing is ever written through a link, whatever the scan or the service said.
 *
 * Synchronous lstat on purpose: a few microseconds per folder, against a write that
 * follows at once (the narrower the gap between check and write, the better; Node has no
 * openat/O_NOFOLLOW walk to close it entirely).
 */
import fs from 'node:fs';
import path from 'node:path';
import { quotePath, relPathProblem } from '../model/safe-path.js';

/** A write refused because it would leave the root or pass through a link. */
export class OutsideRootError extends Error {
  override name = 'OutsideRootError';
}

/** On Windows a backslash separates too (model/safe-path.ts refuses its escapes). */
const SEPARATORS = process.platform === 'win32' ? /[/\\]/ : /\//;

function lstatOrNull(abs: string): fs.Stats | null {
  try {
    return fs.lstatSync(abs);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return null;
    throw err;
  }
}

function linkTarget(abs: string): string {
  try {
    return fs.readlinkSync(abs);
  } catch {
    return '?';
  }
}

/**
 * The absolute path of root-relative `rel`, once every folder above it is checked to be
 * a real folder. `create`: missing folders are made one at a time, each checked again
 * after mkdir (a link put there meanwhile is refused, never entered). Without it a
 * missing folder ends the walk: the file is not there either.
 */
export function confinedPath(root: string, rel: string, opts: { create: boolean }): string {
  const why = relPathProblem(rel);
  if (why !== null) throw new OutsideRootError(`refused to write ${quotePath(rel)} (${why}): hostsync writes only inside the project folder`);
  const top = path.resolve(root);
  const parts = rel.split(SEPARATORS);
  let dir = top;
  for (let i = 0; i < parts.length - 1; i++) {
    dir = path.join(dir, parts[i]!);
    let st = lstatOrNull(dir);
    if (st === null) {
      if (!opts.create) break;
      try {
        fs.mkdirSync(dir);
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      }
      st = lstatOrNull(dir);
    }
    const shown = parts.slice(0, i + 1).join('/');
    if (st !== null && st.isSymbolicLink()) {
      throw new OutsideRootError(`${shown} is a symlink here (-> ${linkTarget(dir)}): hostsync never writes through links, so ${rel} was left alone`);
    }
    if (st !== null && !st.isDirectory()) throw new Error(`${shown} is a file here, where the deployment has a folder: ${rel} was left alone`);
  }
  const abs = path.join(top, ...parts);
  if (!strictlyInside(top, abs)) throw new OutsideRootError(`refused to write ${quotePath(rel)}: it resolves outside the project folder`);
  return abs;
}

/**
 * Whether absolute `abs` lies below folder `top` (not `top` itself), judged on the paths
 * alone. A name that merely starts with ".." ("..env") is inside; "../x" is not.
 */
export function strictlyInside(top: string, abs: string): boolean {
  const back = path.relative(top, abs);
  return !(back === '' || back === '..' || back.startsWith(`..${path.sep}`) || path.isAbsolute(back));
}

/** What is at `abs` itself, not following a link (null: nothing). */
export function lstatTarget(abs: string): fs.Stats | null {
  return lstatOrNull(abs);
}
