/**
 * lstat and fstat as FileStat, without building Node's Stats object. Node 20's Stats
 * constructor makes four Date objects per call (dateFromMs; Node 22 makes them lazily),
 * and BigIntStats some twenty BigInts as well: measured at 100k files, a warm `status`
 * spent ~0.2 s of its ~1.65 s CPU there and in the garbage they left. Node's fs binding
 * answers lstat/fstat with one shared Float64Array of the raw fields (the array public
 * fs.lstatSync reads its Stats from); the five FileStat needs are read from it, times
 * computed exactly as Stats computes mtimeMs (sec * 1e3 + nsec / 1e6).
 *
 * Invariants:
 * - The binding is used only on Node 20, and only when a check at load finds it answering exactly as the
 *   public fs.lstatSync and fs.fstatSync (every FileStat field, on a real path and fd;
 *   undefined or the same error code for a missing path and a path under a file), on
 *   POSIX, with the permission model off (the binding would bypass it) and no
 *   --pending-deprecation (process.binding would warn). Otherwise every call goes
 *   through the public functions: the same answers, only slower.
 * - Within one process every FileStat comes from the same source, so two stats of an
 *   unchanged file compare equal (StatCache, digestSmallFileSync's before/after).
 * - lstat never follows a symlink; errors are thrown as fs.lstatSync throws them
 *   (ENOENT alone answers undefined).
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { fileStatOf, sameFileStat, type FileStat } from './filestat.js';

/** The fields of Node's stat array this module reads (src/node_file.h FsStatsOffset). */
const MODE = 1;
const INO = 7;
const SIZE = 8;
const MTIME_SEC = 12;
const MTIME_NSEC = 13;
const CTIME_SEC = 14;
const CTIME_NSEC = 15;

interface FsBinding {
  lstat(path: string, useBigint: false, req: undefined, throwIfNoEntry: false): Float64Array | undefined;
  fstat(fd: number, useBigint: false, req: undefined, shouldNotThrow: false): Float64Array | undefined;
}

const fromArray = (a: Float64Array): FileStat => ({
  mtimeMs: a[MTIME_SEC]! * 1e3 + a[MTIME_NSEC]! / 1e6,
  ctimeMs: a[CTIME_SEC]! * 1e3 + a[CTIME_NSEC]! / 1e6,
  size: a[SIZE]!,
  ino: a[INO]!,
  mode: a[MODE]!,
});

function publicLstat(abs: string): FileStat | undefined {
  const st = fs.lstatSync(abs, { throwIfNoEntry: false });
  return st === undefined ? undefined : fileStatOf(st);
}

function publicFstat(fd: number): FileStat {
  return fileStatOf(fs.fstatSync(fd));
}

/** What a stat function answers for `p`: its FileStat, undefined, or the code of what it threw. */
function outcome(stat: (p: string) => FileStat | undefined, p: string): FileStat | undefined | string {
  try {
    return stat(p);
  } catch (err) {
    return `throws ${(err as NodeJS.ErrnoException).code ?? String(err)}`;
  }
}

const sameOutcome = (x: FileStat | undefined | string, y: FileStat | undefined | string): boolean =>
  typeof x === 'object' && typeof y === 'object' ? sameFileStat(x, y) : x === y;

/** The binding, when it passes every check of the invariants; else null. */
function checkedBinding(): FsBinding | null {
  try {
    // Node 20 alone: its binding's signature is the one checked here and run in CI, and
    // Node 22 builds Stats' dates lazily anyway. An internal binding given arguments it
    // does not expect may abort the process (a C++ CHECK), which no try/catch here catches.
    if (process.versions.node.split('.')[0] !== '20') return null;
    if (process.platform === 'win32' || (process as { permission?: unknown }).permission !== undefined) return null;
    const flags = `${process.execArgv.join(' ')} ${process.env['NODE_OPTIONS'] ?? ''}`;
    if (flags.includes('--pending-deprecation') || flags.includes('permission')) return null;
    const b = (process as unknown as { binding(name: string): Partial<FsBinding> }).binding('fs');
    if (typeof b.lstat !== 'function' || typeof b.fstat !== 'function') return null;
    const binding = b as FsBinding;
    const lstat = (p: string): FileStat | undefined => {
      const a = binding.lstat(p, false, undefined, false);
      return a === undefined ? undefined : fromArray(a);
    };
    // A file (this module), a folder, a symlink (not to be followed), a device, nothing, and
    // a path under a file: each answered exactly as the public function answers it.
    const file = fileURLToPath(import.meta.url);
    const probes = [file, path.dirname(file), '/proc/self/exe', '/dev/null', `${file}.absent-${process.pid}`, `${file}/below-a-file`];
    if (!probes.every((p) => sameOutcome(outcome(lstat, p), outcome(publicLstat, p)))) return null;
    const fd = fs.openSync(file, 'r');
    try {
      const a = binding.fstat(fd, false, undefined, false);
      if (a === undefined || !sameOutcome(fromArray(a), publicFstat(fd))) return null;
    } finally {
      fs.closeSync(fd);
    }
    return binding;
  } catch {
    return null;
  }
}

const binding = checkedBinding();

/** FileStat of `abs` itself (never a symlink's target); undefined when nothing is there (ENOENT). */
export const lstatOf: (abs: string) => FileStat | undefined =
  binding === null
    ? publicLstat
    : (abs) => {
        // A NUL would cut the path short in C; the public function rejects it.
        if (abs.includes('\0')) return publicLstat(abs);
        const a = binding.lstat(abs, false, undefined, false);
        return a === undefined ? undefined : fromArray(a);
      };

/** FileStat of an open file. */
export const fstatOf: (fd: number) => FileStat =
  binding === null
    ? publicFstat
    : (fd) => {
        const a = binding.fstat(fd, false, undefined, false);
        return a === undefined ? publicFstat(fd) : fromArray(a);
      };

/** Whether the fast path is in use (for tests and diagnostics). */
export const fastStatInUse = binding !== null;

const { S_IFMT, S_IFREG, S_IFDIR, S_IFLNK, S_IFIFO, S_IFSOCK } = fs.constants;

export type ModeKind = 'file' | 'dir' | 'symlink' | 'fifo' | 'socket' | 'device';

/** What a stat's mode says the path is, as Stats' isFile(), isDirectory()... would. */
export function kindOfMode(mode: number): ModeKind {
  const type = mode & S_IFMT;
  if (type === S_IFREG) return 'file';
  if (type === S_IFDIR) return 'dir';
  if (type === S_IFLNK) return 'symlink';
  // As Stats does: Windows reports no FIFO or socket (nor is the binding used there).
  if (type === S_IFIFO && process.platform !== 'win32') return 'fifo';
  if (type === S_IFSOCK && process.platform !== 'win32') return 'socket';
  return 'device';
}
