/**
 * Which file watcher the daemon runs, behind the one Watcher interface.
 *
 * - chokidar: watches each folder, then reads it, so nothing created in a new folder is
 *   ever missed; but on a 100k-file tree it needed 19 s and 1.1 GB to get ready
 *   (DESIGN.md, Watch mode; bench/watch re-measures).
 * - native (@parcel/watcher, optional dependency): one C++ crawl, ready in about 1 s and
 *   100 MB at 100k files; its blind spot (folders that arrive with subfolders) is repaired
 *   by re-subscribing and a full rescan (native-watcher.ts).
 * - auto: chokidar below WATCH_NATIVE_MIN_FILES files, native from there on (or chokidar
 *   when the native package cannot load).
 */
import path from 'node:path';
import { WATCH_NATIVE_MIN_FILES } from './tunables.js';
import type { IgnoreMatcher } from '../local/ignore.js';
import { startWatcher as startChokidarWatcher, type Watcher } from '../local/watcher.js';
import { visitTree } from '../local/walk.js';
import { loadNativeWatcher, startNativeWatcher, type NativeWatcherOptions } from './native-watcher.js';

export type WatcherBackend = 'auto' | 'native' | 'chokidar';
export const WATCHER_BACKENDS: readonly WatcherBackend[] = ['auto', 'native', 'chokidar'];

export interface StartedWatcher {
  watcher: Watcher;
  backend: 'native' | 'chokidar';
}

export async function startWatcherBackend(opts: NativeWatcherOptions, backend: WatcherBackend = 'auto'): Promise<StartedWatcher> {
  const wantNative = backend === 'native' || (backend === 'auto' && atLeastFiles(opts.root, opts.matcher, WATCH_NATIVE_MIN_FILES));
  if (wantNative) {
    const api = await loadNativeWatcher();
    if (api) return { watcher: await startNativeWatcher(api, opts), backend: 'native' };
    if (backend === 'native') throw new Error('the native watcher (@parcel/watcher) is not installed or has no build for this platform: use --watcher chokidar');
  }
  return { watcher: await startChokidarWatcher(opts), backend: 'chokidar' };
}

/**
 * Whether the tree holds at least `limit` files that are not ignored. Counts directory
 * entries only (no stat), and stops at the limit: a few ms on small trees.
 */
export function atLeastFiles(root: string, matcher: IgnoreMatcher, limit: number): boolean {
  let files = 0;
  visitTree(path.resolve(root), {
    entry: (d, rel) => {
      if (d.isDirectory()) return matcher.ignores(rel, true) ? undefined : 'descend';
      if (d.isFile() && !matcher.ignores(rel, false) && ++files >= limit) return 'stop';
    },
  });
  return files >= limit;
}
