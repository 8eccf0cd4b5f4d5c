/**
 * Completing a truncated files.index in few reads: pure planning.
 *
 * The server answers a truncated index with a prefix of its pre-order walk (names in
 * code-unit order, a folder before its contents). Every folder in that prefix is complete,
 * except the chain of folders holding its last entry. What comes after is estimated from
 * the tree the caller expects (the local snapshot, the last remote snapshot): whole
 * subtrees are packed into groups of at most `cap` entries (files and folders), and each
 * group is ONE read of the root whose ignore list keeps only that group's subtrees. A last
 * read, the rest, excludes every subtree already read or grouped and so returns everything
 * else: folders on the chain, files directly in split folders, and whatever the estimate
 * did not know about; when the last group fits beside that under the cap, the rest takes
 * it in (its subtrees are simply not excluded). Together the reads cover every path at
 * least once (a path is either inside a grouped or prefix subtree, or it is not excluded
 * from the rest).
 *
 * Patterns are anchored gitignore lines appended after the caller's own, so they only narrow
 * a read: `/a/*` drops a folder's children, a later `!/a/b/` lets one child folder back.
 */
import { comparePaths } from '../../model/paths.js';
import { INDEX_GROUP_MAX_PATTERNS } from '../tunables.js';

export interface IndexGroupsPlan {
  /** Extra ignore patterns, one list per read of the root. */
  groups: string[][];
  /** Extra ignore patterns of the last read (everything no group or prefix subtree covers). */
  rest: string[];
  /** The subtrees (folders, relative) each group's read keeps, in the order of `groups`. */
  units: string[][];
  /** The subtrees the rest read leaves out (grouped, or complete in the prefix). */
  excluded: string[];
}

interface Dir {
  rel: string;
  dirs: Map<string, Dir>;
  files: number;
  /** Listed in the truncated prefix. */
  seen: boolean;
  /** Entries in the subtree, the folder itself included. */
  size: number;
}

const newDir = (rel: string): Dir => ({ rel, dirs: new Map(), files: 0, seen: false, size: 0 });

/** Escapes a relative path as an anchored gitignore path (without the trailing slash). */
export function anchoredPath(rel: string): string {
  return `/${rel.replace(/([\\*?[\]!#])/g, '\\$1').replace(/ $/, '\\ ')}`;
}

function dirAt(root: Dir, rel: string): Dir {
  let node = root;
  let start = 0;
  while (start < rel.length) {
    const slash = rel.indexOf('/', start);
    const end = slash === -1 ? rel.length : slash;
    const childRel = rel.slice(0, end);
    let next = node.dirs.get(childRel);
    if (next === undefined) node.dirs.set(childRel, (next = newDir(childRel)));
    node = next;
    start = end + 1;
  }
  return node;
}

function sizeOf(d: Dir): number {
  let size = 1 + d.files;
  for (const c of d.dirs.values()) size += sizeOf(c);
  d.size = size;
  return size;
}

const sortedDirs = (d: Dir): Dir[] => [...d.dirs.values()].sort((a, b) => comparePaths(a.rel, b.rel));

/**
 * `prefix`: the truncated answer's entries in order (relative paths); `expectedFiles`: the
 * files the caller expects on the remote; `cap`: the server's entry cap (the prefix's
 * length). Null when no plan fits the pattern budget (the caller reads folder by folder).
 */
export function planIndexGroups(
  prefix: readonly { path: string; type: string }[],
  expectedFiles: Iterable<string>,
  cap: number,
): IndexGroupsPlan | null {
  const root = newDir('');
  root.seen = true;
  const files = new Set<string>();
  for (const e of prefix) {
    if (e.type === 'directory') dirAt(root, e.path).seen = true;
    else files.add(e.path);
  }
  for (const f of expectedFiles) files.add(f);
  // Files come mostly in path order: a run of them in one folder finds it once.
  let folder: string | null = null;
  let node = root;
  for (const f of files) {
    const slash = f.lastIndexOf('/');
    if (folder === null || slash !== folder.length || !f.startsWith(folder)) {
      folder = slash === -1 ? '' : f.slice(0, slash);
      node = dirAt(root, folder);
    }
    node.files++;
  }
  sizeOf(root);

  // The folders that may be incomplete in the prefix: those holding its last entry (and
  // that entry itself when it is a folder, whose contents come next).
  const chain = new Set<string>(['']);
  const last = prefix[prefix.length - 1];
  if (last !== undefined) {
    for (let i = last.path.indexOf('/'); i !== -1; i = last.path.indexOf('/', i + 1)) chain.add(last.path.slice(0, i));
    if (last.type === 'directory') chain.add(last.path);
  }

  const done: string[] = [];
  const groups: string[][] = [];
  let current: string[] = [];
  // A group's read also lists the folders above its subtrees (without their files).
  let above = new Set<string>();
  let room = cap;
  /** Entries each group's read returns (estimate), and the entries of every subtree left out of the rest read. */
  const sizes: number[] = [];
  let covered = 0;
  const close = (): void => {
    if (current.length > 0) {
      groups.push(current);
      sizes.push(cap - room);
    }
    current = [];
    above = new Set();
    room = cap;
  };
  const newAbove = (rel: string): string[] => {
    const out: string[] = [];
    for (let i = rel.indexOf('/'); i !== -1; i = rel.indexOf('/', i + 1)) {
      const a = rel.slice(0, i);
      if (!above.has(a)) out.push(a);
    }
    return out;
  };
  const add = (d: Dir, extra: string[]): void => {
    current.push(d.rel);
    covered += d.size;
    for (const a of extra) above.add(a);
    room -= d.size + extra.length;
  };
  // `visit` walks a folder whose own entry and direct files are left to the rest read.
  const visit = (d: Dir): void => {
    for (const c of sortedDirs(d)) {
      if (chain.has(c.rel)) visit(c);
      else if (c.seen) {
        done.push(c.rel); // listed in the prefix and not on the chain: complete
        covered += c.size;
      }
      else place(c);
    }
  };
  const place = (d: Dir): void => {
    const extra = newAbove(d.rel);
    if (d.size + extra.length <= room) {
      add(d, extra);
    } else if (d.dirs.size > 0 && (d.size > cap || room >= cap / 8)) {
      visit(d); // split: its subtrees fill this group and the next
    } else {
      close();
      add(d, newAbove(d.rel));
    }
  };
  visit(root);
  close();
  // The rest read returns everything not excluded from it. When the last group (often a
  // partly filled one) fits beside that under the cap, the rest simply does not exclude the
  // group's subtrees: one read fewer, and coverage is unchanged.
  if (groups.length > 0 && sizes[sizes.length - 1]! + (root.size - covered) <= cap) groups.pop();

  const excluded = [...done, ...groups.flat()];
  const rest = excluded.map((rel) => `${anchoredPath(rel)}/`);
  const plans = groups.map(onlySubtrees);
  if (rest.length > INDEX_GROUP_MAX_PATTERNS || plans.some((p) => p.length > INDEX_GROUP_MAX_PATTERNS)) return null;
  return { groups: plans, rest, units: groups, excluded };
}

/** Patterns that keep only the subtrees `units` (and the folders above them, without their files). */
function onlySubtrees(units: readonly string[]): string[] {
  const keep = new Map<string, Set<string>>(); // folder -> children to let back
  for (const u of units) {
    let child = u;
    for (let slash = u.lastIndexOf('/'); ; slash = u.lastIndexOf('/', slash - 1)) {
      const parent = slash === -1 ? '' : u.slice(0, slash);
      let set = keep.get(parent);
      const fresh = set === undefined;
      if (set === undefined) keep.set(parent, (set = new Set()));
      set.add(child);
      if (!fresh || parent === '') break;
      child = parent;
    }
  }
  const out: string[] = [];
  for (const parent of [...keep.keys()].sort(comparePaths)) {
    out.push(parent === '' ? '/*' : `${anchoredPath(parent)}/*`);
    for (const c of [...keep.get(parent)!].sort(comparePaths)) out.push(`!${anchoredPath(c)}/`);
  }
  return out;
}
