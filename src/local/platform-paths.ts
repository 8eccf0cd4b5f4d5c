/**
 * Local paths <-> wire paths. Wire (and snapshot) paths are always relative, `/`-separated,
 * without a leading "./" or "/"; a local `\` (Windows' separator) never reaches the wire.
 * Each function takes the path flavour as a parameter so tests check both path.win32 and
 * path.posix on any machine; callers use the running system's (`path`).
 */
import path from 'node:path';

type PathFlavour = Pick<typeof path, 'relative' | 'resolve' | 'isAbsolute' | 'sep' | 'join'>;

/**
 * The wire path of `p` (absolute, or relative to `root`) inside `root`: '' for the root
 * itself, null for anything outside it (`..`, another drive). A name that merely starts
 * with two dots (`..data`) is inside.
 */
export function wireRelative(root: string, p: string, flavour: PathFlavour = path): string | null {
  const rel = flavour.relative(root, flavour.resolve(root, p));
  if (rel === '') return '';
  if (rel === '..' || rel.startsWith(`..${flavour.sep}`) || flavour.isAbsolute(rel)) return null;
  return flavour.sep === '/' ? rel : rel.split(flavour.sep).join('/');
}

/** The local path of a wire path under `root`, each `/` becoming the system's separator. */
export const localPathOf = (root: string, wire: string, flavour: PathFlavour = path): string =>
  wire === '' ? root : flavour.join(root, ...wire.split('/'));
