/**
 * The file watcher, behind a small interface so the backend can be swapped (DESIGN.md,
 * Watch mode: chokidar needed 19 s and 1.1 GB to get ready on a 100k-file tree where
 * @parcel/watcher needed 1 s; only this file knows which one runs).
 *
 * It reports raw relative paths, nothing more: debouncing, coalescing bursts and deciding
 * what to rescan belong to the watch daemon. Paths seen in the same event-loop turn are
 * handed over together, deduplicated, in one call.
 *
 * Invariants:
 * - Ignored directories are never watched and ignored paths are never reported: the
 *   `ignored` callback asks the same matcher the scan uses.
 * - Symlinks are not followed. A watcher error (or the root itself going away) is passed
 *   to onError: the caller can no longer trust the event stream and must rescan fully.
 * - A file written again inside chokidar's change throttle is still reported: each
 *   reported file is looked at CHOKIDAR_LOOK_AGAIN_MS after its last report and reported
 *   again when its stat moved. (A consumer reads a file at least its debounce after the
 *   report, so a write it could miss is at least that much younger than the reported one:
 *   their mtimes differ even on a coarse kernel clock.)
 */
import fs, { type Stats } from 'node:fs';
import path from 'node:path';
import { watch, type FSWatcher } from 'chokidar';
import type { IgnoreMatcher } from './ignore.js';
import { CHOKIDAR_LOOK_AGAIN_MS } from './tunables.js';
import { wireRelative } from './platform-paths.js';
import { isWatchCookie } from './temp-names.js';

/** The unit a watch daemon works in after coalescing what onEvents reported. */
export interface WatchBatchEvent {
  /** Relative POSIX paths, deduplicated. */
  paths: string[];
  /** True after a watcher error or an event storm: the caller must rescan fully. */
  overflow: boolean;
}

export interface Watcher {
  close(): Promise<void>;
  /**
   * Paths this watcher may still report for changes already made (a look-again pending),
   * or null when it cannot say (it is repairing its watches): what a watch answering
   * `status` must count as changed, or not answer at all.
   */
  unsettled(): string[] | null;
}

export interface WatcherOptions {
  root: string;
  matcher: IgnoreMatcher;
  /** Relative POSIX paths that were added, changed or removed (files or directories). */
  onEvents: (paths: string[]) => void;
  onError: (err: Error) => void;
  onReady?: () => void;
  /**
   * The watch daemon's probe file (local/temp-names.ts isWatchCookie) was created: every
   * event before it has been passed to onEvents. It is never passed to onEvents itself.
   */
  onCookie?: (rel: string) => void;
}

/**
 * lstat for a path a watcher event named; undefined when it is gone or cannot be stat'ed.
 * Never throws: it runs inside watcher callbacks, where a throw ends the process, and late
 * events routinely name paths whose parent folder has since become a file (ENOTDIR, a
 * branch switch) or become unreadable (EACCES). Such a path is reported like a deleted one;
 * the rescan that follows decides what it is.
 */
export function lstatOrGone(abs: string): Stats | undefined {
  try {
    return fs.lstatSync(abs, { throwIfNoEntry: false });
  } catch {
    return undefined;
  }
}

/** POSIX path of `p` relative to `root` (absolute); null for anything outside it. */
function relativeTo(root: string, p: string): string | null {
  return wireRelative(root, p);
}

/** chokidar's `ignored` predicate for `root` (absolute): the scan's matcher; never throws on a vanished path. Exported for tests. */
export function ignoredPredicate(root: string, matcher: IgnoreMatcher): (p: string, stats?: Stats) => boolean {
  return (p, stats) => {
    const rel = relativeTo(root, p);
    if (rel === null || rel === '') return false;
    if (stats) return matcher.ignores(rel, stats.isDirectory());
    if (matcher.ignores(rel, false)) return true;
    if (!matcher.ignores(rel, true)) return false;
    // Only a directory pattern matches and chokidar did not say what this is: ask.
    // (A path that is gone is not watched either way; reporting it lets a rescan drop it.)
    return lstatOrGone(p)?.isDirectory() ?? false;
  };
}

/** Starts watching; resolves once the initial tree is being watched ('ready'). */
export async function startWatcher(opts: WatcherOptions): Promise<Watcher> {
  const root = path.resolve(opts.root);
  if (!fs.statSync(root).isDirectory()) throw new Error(`not a directory: ${root}`);
  const relOf = (p: string): string | null => relativeTo(root, p);
  const matched = ignoredPredicate(root, opts.matcher);
  // The probe file is an ignored temp name, yet its event is the point of writing it.
  const ignored = (p: string, stats?: Stats): boolean => (isWatchCookie(relOf(p) ?? '') ? false : matched(p, stats));

  const fsw: FSWatcher = watch(root, {
    ignored,
    ignoreInitial: true,
    followSymlinks: false,
    persistent: true,
    usePolling: false,
    ignorePermissionErrors: false,
    // Every event only means "look at this path again"; holding an unlink back 100 ms to
    // merge it with a re-add (chokidar's atomic) would just delay it past a status's probe.
    atomic: false,
  });

  let closed = false;
  let pending = new Set<string>();
  let flushScheduled = false;
  const flush = (): void => {
    flushScheduled = false;
    if (closed || pending.size === 0) return;
    const paths = [...pending];
    pending = new Set();
    // Thrown from a setImmediate callback it would end the process; the caller's onError
    // (a full rescan) is the recovery for anything that goes wrong on the event path.
    try {
      opts.onEvents(paths);
    } catch (err) {
      opts.onError(err instanceof Error ? err : new Error(String(err)));
    }
  };
  const report = (p: string): void => {
    if (closed) return;
    const rel = relOf(p);
    if (rel === null) return;
    if (rel === '') {
      opts.onError(new Error(`watched root changed or was removed: ${root}`));
      return;
    }
    pending.add(rel);
    if (!flushScheduled) {
      flushScheduled = true;
      setImmediate(flush);
    }
  };

  /** Reported files, with their stat at the report, until their look-again. */
  const looks = new Map<string, { timer: NodeJS.Timeout; stat: string | null }>();
  const statKey = (p: string): string | null => {
    const st = lstatOrGone(p);
    return st?.isFile() ? `${st.ino}:${st.size}:${st.mtimeMs}:${st.ctimeMs}` : null;
  };
  const lookAgainLater = (p: string): void => {
    clearTimeout(looks.get(p)?.timer);
    const timer = setTimeout(() => {
      const seen = looks.get(p);
      looks.delete(p);
      if (!closed && seen !== undefined && statKey(p) !== seen.stat) fileEvent(p);
    }, CHOKIDAR_LOOK_AGAIN_MS);
    timer.unref();
    looks.set(p, { timer, stat: statKey(p) });
  };
  const fileEvent = (p: string): void => {
    const rel = relOf(p);
    if (rel !== null && isWatchCookie(rel)) {
      // Events reach the daemon in order: whatever came before the probe goes first.
      flush();
      if (!closed) opts.onCookie?.(rel);
      return;
    }
    report(p);
    lookAgainLater(p);
  };

  for (const ev of ['add', 'change'] as const) fsw.on(ev, fileEvent);
  // chokidar reports a change only when the mtime moved: a chmod alone (+x on a script)
  // never. The raw fs.watch event it is built on does (inotify's IN_ATTRIB), so a file
  // named by one is looked at like a changed file (the daemon's rescan decides).
  fsw.on('raw', (event: string, filename: unknown, details: unknown) => {
    const watched = (details as { watchedPath?: unknown } | undefined)?.watchedPath;
    if (closed || event !== 'change' || typeof filename !== 'string' || typeof watched !== 'string') return;
    const abs = lstatOrGone(watched)?.isDirectory() ? path.join(watched, filename) : watched;
    if (ignored(abs) || !lstatOrGone(abs)?.isFile()) return;
    fileEvent(abs);
  });
  for (const ev of ['unlink', 'addDir', 'unlinkDir'] as const) fsw.on(ev, (p: string) => {
    if (!isWatchCookie(relOf(p) ?? '')) report(p);
  });
  fsw.on('error', (err: unknown) => {
    if (!closed) opts.onError(err instanceof Error ? err : new Error(String(err)));
  });

  await new Promise<void>((resolve) => fsw.once('ready', () => resolve()));
  opts.onReady?.();

  return {
    async close(): Promise<void> {
      if (closed) return;
      closed = true;
      for (const { timer } of looks.values()) clearTimeout(timer);
      looks.clear();
      await fsw.close();
    },
    // A file written again inside chokidar's change throttle is reported by its look-again alone.
    unsettled: () => [...pending, ...[...looks.keys()].flatMap((p) => relOf(p) ?? [])],
  };
}
