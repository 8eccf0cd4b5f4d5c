/**
 * Path confinement: every path a request names is resolved here before anything
 * is touched (Wings: a path that escapes the volume answers 404; symlinks are never
 * followed out).
 *
 * Invariant: a returned host path has every EXISTING component resolved to its
 * real location, and that location is inside the volume's real root; components
 * that do not exist yet are plain names (mkdir/write create them, never follow them).
 * Resolution uses synchronous fs calls on purpose: one implementation serves both
 * request handlers and the synchronous tar-extraction filter, and a handful of
 * lstat calls per request cost microseconds.
 */
import { lstatSync, mkdirSync, readlinkSync, realpathSync } from 'node:fs';
import path from 'node:path';
import { badRequest, escapesVolume } from './errors.js';

/** Linux follows at most 40 symlinks in one lookup (ELOOP); so do we. */
const MAX_SYMLINK_HOPS = 40;

export interface Resolved {
  /** Volume-relative POSIX path of what was named (before symlinks), '' for the root. */
  rel: string;
  /** Host path to operate on (see the invariant above). */
  abs: string;
}

export class Volume {
  private constructor(readonly root: string) {}

  /** Creates the directory if needed; the root is kept as its real path so containment checks compare like with like. */
  static open(dir: string): Volume {
    mkdirSync(dir, { recursive: true });
    return new Volume(realpathSync(dir));
  }

  contains(abs: string): boolean {
    return abs === this.root || abs.startsWith(this.root + path.sep);
  }

  /** Volume-relative POSIX form of a host path inside the volume. */
  relOf(abs: string): string {
    return path.relative(this.root, abs).split(path.sep).join('/');
  }

  /** How responses show a server-generated path: POSIX with a leading "/", the volume root being "/". */
  static show(rel: string): string {
    return '/' + rel;
  }

  /**
   * Lexical part: `base` and `p` are both volume-relative (a leading "/" is the
   * volume root). A ".." that would climb above the root is an escape: 404, never
   * clamped, so a client bug is not silently redirected to another file.
   */
  normalize(p: string, base = ''): string {
    if (p.includes('\0') || base.includes('\0')) throw badRequest('path contains a NUL byte');
    const stack: string[] = [];
    for (const seg of [...base.split('/'), ...p.split('/')]) {
      if (seg === '' || seg === '.') continue;
      if (seg === '..') {
        if (stack.length === 0) throw escapesVolume(p);
        stack.pop();
      } else stack.push(seg);
    }
    return stack.join('/');
  }

  /**
   * Resolves `p` (relative to `base`) inside the volume. `follow` decides whether a
   * symlink in the LAST component is followed (read, write, chmod) or operated on
   * itself (delete, rename, move, index). Symlinks in earlier components are always
   * followed, and must stay inside.
   */
  resolve(p: string, opts: { base?: string; follow?: boolean } = {}): Resolved {
    const rel = this.normalize(p, opts.base ?? '');
    const parts = rel === '' ? [] : rel.split('/');
    return { rel, abs: this.walk(parts, opts.follow ?? true, 0, p) };
  }

  private walk(parts: string[], follow: boolean, hops: number, shown: string): string {
    let cur = this.root;
    for (let i = 0; i < parts.length; i++) {
      const next = path.join(cur, parts[i]!);
      const last = i === parts.length - 1;
      let isLink: boolean;
      try {
        isLink = lstatSync(next).isSymbolicLink();
      } catch (err) {
        const code = (err as NodeJS.ErrnoException).code;
        // The rest does not exist yet: plain names, created (not followed) by the operation.
        if (code === 'ENOENT' || code === 'ENOTDIR') return path.join(next, ...parts.slice(i + 1));
        throw err;
      }
      if (!isLink || (last && !follow)) {
        cur = next;
        continue;
      }
      if (hops >= MAX_SYMLINK_HOPS) throw escapesVolume(shown);
      // `cur` is real, so resolving the link text lexically against it is exact.
      const target = path.resolve(cur, readlinkSync(next));
      if (!this.contains(target)) throw escapesVolume(shown);
      const targetParts = this.relOf(target).split('/').filter(Boolean);
      // Re-walk from the root: the target's own components may be links too.
      return this.walk([...targetParts, ...parts.slice(i + 1)], follow, hops + 1, shown);
    }
    return cur;
  }
}
