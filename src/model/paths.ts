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

/**
 * Every path of the lists, once each, in comparePaths order. Each list is a tree's keys;
 * one already in path order (a scan, the state file, an index answer) is merged as it is,
 * so trees of 100k paths cost one pass instead of a Set and a sort. Any other list is
 * sorted first. Each list must hold a path at most once (Map keys do).
 */
export function sortedUnion(lists: readonly Iterable<string>[]): string[] {
  const runs = lists.map((keys) => {
    const run = [...keys];
    for (let i = 1; i < run.length; i++) {
      if (comparePaths(run[i - 1] as string, run[i] as string) >= 0) return run.sort(comparePaths);
    }
    return run;
  });
  const nonEmpty = runs.filter((r) => r.length > 0);
  if (nonEmpty.length <= 1) return nonEmpty[0] ?? [];
  const out: string[] = [];
  const at = nonEmpty.map(() => 0);
  for (;;) {
    let least: string | undefined;
    for (let k = 0; k < nonEmpty.length; k++) {
      const p = (nonEmpty[k] as string[])[at[k] as number];
      if (p !== undefined && (least === undefined || comparePaths(p, least) < 0)) least = p;
    }
    if (least === undefined) return out;
    out.push(least);
    for (let k = 0; k < nonEmpty.length; k++) if ((nonEmpty[k] as string[])[at[k] as number] === least) at[k] = (at[k] as number) + 1;
  }
}
