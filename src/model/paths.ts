/**
 * Pure helpers over the relative POSIX paths of types.ts ("a/b/c.txt": no leading "./" or
 * "/", no trailing "/"). The root directory is ''.
 */

/** Orders by UTF-16 code units: locale-independent, so every machine produces the same plan. */
export function comparePaths(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** The directory holding `path`; '' for a file at the root. */
export function parentDir(path: string): string {
  const slash = path.lastIndexOf('/');
  return slash < 0 ? '' : path.slice(0, slash);
}

export function baseName(path: string): string {
  return path.slice(path.lastIndexOf('/') + 1);
}

/** Every directory above `path`, nearest first, without the root: "a/b/c" -> ["a/b", "a"]. */
export function ancestors(path: string): string[] {
  const out: string[] = [];
  for (let dir = parentDir(path); dir !== ''; dir = parentDir(dir)) out.push(dir);
  return out;
}
