/**
 * The directory walk: every regular file under a root that the ignore matcher keeps, with
 * its stat data. An ignored directory is never read (so `node_modules/` costs nothing).
 *
 * Synchronous calls on purpose: measured on a 100k-file tree with Node 20, readdirSync +
 * lstatSync took 0.75 s while unbounded parallel promises took 4.6 s and hit EMFILE
 * (DESIGN.md). A command's walk runs them in slices with the event loop in between
 * (visitTreeInSlices; why: WALK_SLICE_MS).
 *
 * Invariants:
 * - Symlinks are never followed (lstat, and the walk only descends into real
 *   directories): nothing outside the root is ever reached. Each symlink that is not
 *   ignored is reported in `warnings`, as is every socket, FIFO and device.
 * - Relative paths are POSIX, joined from names exactly as readdir returns them: no
 *   Unicode normalisation (Linux keeps bytes; macOS APFS also returns names as created,
 *   so two spellings of "é" are two paths, as they are to the remote).
 * - Files are met in path order (model/paths.ts comparePaths: code units of the whole
 *   relative path): a folder's contents come where its name plus "/" sorts among its
 *   siblings. The sync base and the stat cache are stored in that order, so a scan of an
 *   unchanged tree meets their records one after the other, with no lookups. (A file
 *   system that reports no type in readdir sorts a folder as a file: order then differs,
 *   which costs lookups, never correctness.)
 */
import fs, { type Dirent } from 'node:fs';
import path from 'node:path';
import { setImmediate as yieldToEventLoop } from 'node:timers/promises';
import type { FileStat } from './filestat.js';
import { kindOfMode, lstatOf } from './fast-stat.js';
import type { IgnoreMatcher } from './ignore.js';
import { isOwnTemp } from './temp-names.js';
import { WALK_STEPS_PER_CLOCK_LOOK } from './tunables.js';

export interface WalkedFile {
  rel: string;
  abs: string;
  stat: FileStat;
}

export interface WalkResult {
  /** Empty when WalkOptions.onFile took them. */
  files: WalkedFile[];
  warnings: string[];
  /**
   * Paths passed over without being read (links, special files, unreadable folders; a
   * folder ends in "/"). Not absent, only unknown: the engine must not take them as deleted.
   */
  skipped: string[];
  /** Directories read (ignored ones are never read). */
  dirs: number;
  /** hostsync's own temp files met (ignored, by their exact name: local/temp-names.ts), for a cleanup under the lock. */
  temps: string[];
}

export interface WalkOptions {
  /** Called with each directory's relative path ('' for the root) just before it is read. */
  onDirectory?: (relDir: string) => void;
  /**
   * True for a file path the matcher is known to keep (the stat cache remembers them, see
   * StatCache.keptBy): the matcher is not asked again. (Folders: see keptDir.)
   */
  kept?: (rel: string) => boolean;
  /** The same for a folder: true when the matcher is known to keep it (StatCache.holdsUnder). */
  keptDir?: (rel: string) => boolean;
  /** Takes each file as it is found, instead of collecting them in the result's `files`. */
  onFile?: (rel: string, abs: string, stat: FileStat | undefined) => void;
  /**
   * With onFile only: false for a file whose stat data the caller has no use for before
   * reading it (nothing cached to compare it with). Such a file is not lstat'ed: onFile gets
   * it as readdir typed it (a regular file), with no stat, and reading it takes the stat
   * from the open file (fstat, no path lookup; see digestSmallFileSync), which also decides
   * whether it is still a regular file. A cold scan makes one path lookup per file fewer.
   */
  statNow?: (rel: string) => boolean;
}

/** What a visitor tells the walk after seeing one directory entry. */
export type Visit = 'descend' | 'stop' | void;

export interface TreeVisitor {
  /** Called with each directory's relative path ('' for the root) just before it is read. */
  directory?(relDir: string): void;
  /** A directory that could not be read (ENOENT and ENOTDIR, a race with a deletion, are not reported). */
  unreadable?(relDir: string, code: string): void;
  /**
   * One entry of a directory, in path order (see the invariants). Return 'descend' (only for a
   * real directory) to read it next, 'stop' to end the whole walk.
   */
  entry(d: Dirent, rel: string, abs: string): Visit;
}

/**
 * THE directory walk every module uses (scan, watcher set-up, backend choice): depth
 * first in path order (see the invariants), never following a symlink (a Dirent of a link
 * is never a directory), never reading a directory its visitor did not ask for.
 */
export function visitTree(root: string, visitor: TreeVisitor, startRel = ''): { dirs: number } {
  const walk = treeWalk(root, visitor, startRel);
  walk.run(Infinity);
  return { dirs: walk.dirs };
}

/**
 * visitTree in slices of `sliceMs`, yielding to the event loop between them (setImmediate:
 * after the loop's I/O), so what else the process started goes on during the walk
 * (WALK_SLICE_MS). The visitor is called exactly as visitTree calls it; only other
 * callbacks may run between two of its calls.
 */
export async function visitTreeInSlices(root: string, visitor: TreeVisitor, startRel: string, sliceMs: number): Promise<{ dirs: number }> {
  const walk = treeWalk(root, visitor, startRel);
  while (!walk.run(performance.now() + sliceMs)) await yieldToEventLoop();
  return { dirs: walk.dirs };
}

/** The walk as state that `run` takes on from where it stopped: true once it has ended. */
function treeWalk(root: string, visitor: TreeVisitor, startRel: string): { run(until: number): boolean; readonly dirs: number } {
  let dirs = 0;
  /** The folders being read, innermost last: a descended folder is read to its end before its parent goes on. */
  const open: { rel: string; abs: string; dirents: Dirent[]; next: number }[] = [];
  /** `dirAbs`: the entry's own absolute path, as built for the visitor (path.join costs ~4 us a folder). */
  const enter = (dirRel: string, dirAbs: string): void => {
    visitor.directory?.(dirRel);
    let dirents: Dirent[];
    try {
      dirents = fs.readdirSync(dirAbs, { withFileTypes: true });
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      // Removed (or replaced by a file) since its parent was read: nothing to report.
      if (code !== 'ENOENT' && code !== 'ENOTDIR') visitor.unreadable?.(dirRel, code ?? String(err));
      return;
    }
    dirs++;
    dirents.sort(inPathOrder);
    open.push({ rel: dirRel, abs: dirAbs, dirents, next: 0 });
  };
  let started = false;
  /** Loop steps (entries, and folders finished) since the walk began. */
  let steps = 0;
  return {
    get dirs() {
      return dirs;
    },
    run(until: number): boolean {
      if (!started) {
        started = true;
        enter(startRel, startRel === '' ? root : path.join(root, startRel));
      }
      while (open.length > 0) {
        if (until !== Infinity && ++steps % WALK_STEPS_PER_CLOCK_LOOK === 0 && performance.now() >= until) return false;
        const dir = open[open.length - 1]!;
        if (dir.next === dir.dirents.length) {
          open.pop();
          continue;
        }
        const d = dir.dirents[dir.next++]!;
        const rel = dir.rel === '' ? d.name : `${dir.rel}/${d.name}`;
        const abs = dir.abs + path.sep + d.name;
        const next = visitor.entry(d, rel, abs);
        if (next === 'stop') {
          open.length = 0;
          return true;
        }
        if (next === 'descend') enter(rel, abs);
      }
      return true;
    },
  };
}

/**
 * Walks `root`, or only the subtree at `startRel` (a relative directory path, assumed not
 * ignored and reached without symlinks; the caller checks).
 */
export function walkTree(root: string, matcher: IgnoreMatcher, startRel = '', options: WalkOptions = {}): WalkResult {
  const walk = fileVisitor(matcher, options);
  return walk.result(visitTree(root, walk.visitor, startRel).dirs);
}

/** walkTree in slices of `sliceMs`, the event loop running between them (visitTreeInSlices). */
export async function walkTreeInSlices(root: string, matcher: IgnoreMatcher, startRel: string, options: WalkOptions, sliceMs: number): Promise<WalkResult> {
  const walk = fileVisitor(matcher, options);
  return walk.result((await visitTreeInSlices(root, walk.visitor, startRel, sliceMs)).dirs);
}

/** walkTree's visitor, and its result once the walk has read `dirs` folders. */
function fileVisitor(matcher: IgnoreMatcher, options: WalkOptions): { visitor: TreeVisitor; result(dirs: number): WalkResult } {
  const files: WalkedFile[] = [];
  const warnings: string[] = [];
  const skipped: string[] = [];
  const temps: string[] = [];
  const { kept, keptDir, statNow, onFile = (rel: string, abs: string, stat: FileStat | undefined) => void files.push({ rel, abs, stat: stat! }) } = options;
  const visitor: TreeVisitor = {
    ...(options.onDirectory ? { directory: options.onDirectory } : {}),
    unreadable: (relDir, code) => {
      warnings.push(`unreadable directory skipped: ${relDir || '.'} (${code})`);
      skipped.push(`${relDir}/`);
    },
    entry: (d, rel, abs) => {
      const { kind, code } = direntKind(d, abs);
      if (kind === 'gone') return;
      if (kind === 'dir') return keptDir?.(rel) || !matcher.ignores(rel, true) ? 'descend' : undefined;
      if (kind === 'file') {
        if (!kept?.(rel) && (matcher.ignoresFileIn ? matcher.ignoresFileIn(rel, d.name) : matcher.ignores(rel, false))) {
          if (isOwnTemp(d.name)) temps.push(rel);
          return;
        }
        if (statNow !== undefined && !statNow(rel)) return void onFile(rel, abs, undefined);
        const now = lstatKind(abs);
        if (now.kind === 'gone') {
          const why = notUtf8(rel);
          if (why !== null) warnings.push(why);
          return;
        }
        if (now.kind === 'file') onFile(rel, abs, now.stat!);
        else if (now.kind === 'unreadable') {
          warnings.push(describeSkipped(now.kind, rel, abs, now.code));
          skipped.push(rel);
        }
        // Otherwise it changed type since readdir; a rescan will see what it is now.
        return;
      }
      if (matcher.ignores(rel, false)) return;
      warnings.push(describeSkipped(kind, rel, abs, code));
      skipped.push(rel);
    },
  };
  return { visitor, result: (dirs) => ({ files, warnings, skipped, dirs, temps }) };
}

export type EntryKind = 'file' | 'dir' | 'symlink' | 'fifo' | 'socket' | 'device' | 'unreadable' | 'gone';

/**
 * What is at `abs` without following a symlink. Never throws: 'gone' when nothing is
 * (ENOENT, or ENOTDIR: a folder on the way was replaced by a file, as in a branch switch);
 * 'unreadable', with the error code, when lstat fails otherwise (EACCES on a parent
 * folder, EIO): the path may well exist, so callers must treat it as unknown, not absent.
 */
export function lstatKind(abs: string): { kind: EntryKind; stat?: FileStat; code?: string } {
  let st: FileStat | undefined;
  try {
    st = lstatOf(abs);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code ?? String(err);
    return code === 'ENOTDIR' || code === 'ENOENT' ? { kind: 'gone' } : { kind: 'unreadable', code };
  }
  if (st === undefined) return { kind: 'gone' };
  const kind = kindOfMode(st.mode);
  return kind === 'file' ? { kind, stat: st } : { kind };
}

/**
 * The warning for a file readdir listed but that is not there: a name that is not valid
 * UTF-8 comes back from readdir with U+FFFD in it, a name no file has. Null for any other
 * name (it was deleted since readdir: nothing to say).
 */
export function notUtf8(rel: string): string | null {
  return rel.includes('\uFFFD') ? `file name is not valid UTF-8, skipped: ${rel}` : null;
}

/** The warning for a path that is neither a regular file nor a directory (`code`: why an 'unreadable' one failed). */
export function describeSkipped(kind: EntryKind, rel: string, abs: string, code?: string): string {
  if (kind === 'unreadable') return `unreadable path skipped: ${rel} (${code ?? 'unknown error'})`;
  if (kind === 'symlink') {
    let target = '?';
    try {
      target = fs.readlinkSync(abs);
    } catch {
      // Gone already: the warning still names the link.
    }
    return `symlink skipped (links are not followed): ${rel} -> ${target}`;
  }
  return `special file skipped (${kind}): ${rel}`;
}

function direntKind(d: Dirent, abs: string): { kind: EntryKind; code?: string } {
  if (d.isFile()) return { kind: 'file' };
  if (d.isDirectory()) return { kind: 'dir' };
  if (d.isSymbolicLink()) return { kind: 'symlink' };
  if (d.isFIFO()) return { kind: 'fifo' };
  if (d.isSocket()) return { kind: 'socket' };
  if (d.isBlockDevice() || d.isCharacterDevice()) return { kind: 'device' };
  // DT_UNKNOWN: some file systems do not report the type in readdir.
  return lstatKind(abs);
}

/** Names in the order of the paths they start: a folder's name sorts as if it ended in "/". */
function inPathOrder(a: Dirent, b: Dirent): number {
  const x = a.name;
  const y = b.name;
  const n = Math.min(x.length, y.length);
  for (let i = 0; i < n; i++) {
    const d = x.charCodeAt(i) - y.charCodeAt(i);
    if (d !== 0) return d;
  }
  // One name starts the other: what follows it in its path decides ('/' after a folder's name, nothing after a file's).
  const nextX = x.length > n ? x.charCodeAt(n) : a.isDirectory() ? SLASH : -1;
  const nextY = y.length > n ? y.charCodeAt(n) : b.isDirectory() ? SLASH : -1;
  return nextX - nextY;
}

const SLASH = 0x2f;
