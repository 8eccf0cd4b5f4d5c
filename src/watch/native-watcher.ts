/**
 * The @parcel/watcher backend of the Watcher interface (src/local/watcher.ts): native
 * inotify/FSEvents/ReadDirectoryChangesW, one C++ crawl at start-up. DESIGN.md measured
 * it ready in 1.0 s / 97 MB on a 100k-file tree where chokidar took 19 s / 1.1 GB.
 * It is an optional dependency: when it cannot load, watcher-backend.ts falls back to
 * chokidar.
 *
 * Ignore rules. @parcel/watcher takes absolute paths and globs, not gitignore rules, so
 * it gets what can be said exactly: every directory the matcher ignores in the tree as
 * it is now (found by a directory-only walk), plus `** /name` for the default
 * `node_modules/` and `.git/` rules when nothing re-includes them, so an `npm install`
 * that creates a new node_modules never costs an inotify watch per package folder.
 * Every reported path still passes through the matcher itself, so a directory the
 * watcher does watch (an ignored `dist/` created later) never leaks an event.
 *
 * Invariant, as for chokidar: ignored paths are never reported; an error is passed to
 * onError, after which the caller must rescan fully. (inotify queue overflows are
 * dropped silently by @parcel/watcher 2.6; the daemon's storm rule, a full rescan after
 * a very large batch, is what covers them.) A directory that appears is reported as a
 * path, and the daemon walks it: files created in it before its watch existed are found;
 * one that arrives already holding subfolders triggers a re-subscription (NativeWatcher).
 */
import fs from 'node:fs';
import path from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { FS_TIMESTAMP_SLACK_MS, WATCH_NATIVE_MAX_ROUNDS, WATCH_NATIVE_RESUBSCRIBE_MAX_MS, WATCH_NATIVE_RESUBSCRIBE_MIN_MS } from './tunables.js';
import type { IgnoreMatcher } from '../local/ignore.js';
import { lstatOrGone, type Watcher, type WatcherOptions } from '../local/watcher.js';
import { wireRelative } from '../local/platform-paths.js';
import { visitTree } from '../local/walk.js';
import { isWatchCookie } from '../local/temp-names.js';

interface ParcelEvent {
  path: string;
  type: 'create' | 'update' | 'delete';
}
interface ParcelSubscription {
  unsubscribe(): Promise<void>;
}
interface ParcelWatcherModule {
  subscribe(dir: string, fn: (err: Error | null, events: ParcelEvent[]) => unknown, opts?: { ignore?: string[] }): Promise<ParcelSubscription>;
}

/** Loads @parcel/watcher; null when it is not installed or has no build for this platform. */
export async function loadNativeWatcher(): Promise<ParcelWatcherModule | null> {
  try {
    // A variable specifier keeps TypeScript from requiring the optional package's types.
    const specifier = '@parcel/watcher';
    const mod = (await import(specifier)) as { default?: ParcelWatcherModule } & Partial<ParcelWatcherModule>;
    const api = (mod.default ?? mod) as ParcelWatcherModule;
    return typeof api.subscribe === 'function' ? api : null;
  } catch {
    return null;
  }
}

/** Default directory rules safe to hand over as "any depth" globs when the matcher agrees. */
const ANY_DEPTH_DIRS = ['node_modules', '.git'];

/**
 * What @parcel/watcher should not enter: absolute paths of ignored directories present now,
 * and any-depth globs for the default heavy directories. Exported for tests.
 */
export function nativeIgnoreList(root: string, matcher: IgnoreMatcher): string[] {
  const out: string[] = [];
  for (const name of ANY_DEPTH_DIRS) {
    const reincluded = matcher.patterns.some((p) => p.startsWith('!') && p.includes(name));
    if (!reincluded && matcher.ignores(name, true) && matcher.ignores(`a/b/${name}`, true)) out.push(`**/${name}`);
  }
  // Symlinks are not followed: a link's Dirent is never a directory.
  visitTree(root, {
    entry: (d, rel, abs) => {
      if (!d.isDirectory()) return;
      if (!matcher.ignores(rel, true)) return 'descend';
      out.push(abs);
    },
  });
  return out;
}

export interface NativeWatcherOptions extends WatcherOptions {
  /** The watcher re-subscribed and may have missed events meanwhile: rescan fully (falls back to onError). */
  onRescan?: (reason: string) => void;
  /**
   * How a failed re-subscription waits `ms` before the next attempt; must reject once
   * `signal` aborts (close()). Default: a timer. Tests pass one that does not sleep.
   */
  resubscribeWait?: (ms: number, signal: AbortSignal) => Promise<unknown>;
}

export async function startNativeWatcher(api: ParcelWatcherModule, opts: NativeWatcherOptions): Promise<Watcher> {
  const root = path.resolve(opts.root);
  if (!fs.statSync(root).isDirectory()) throw new Error(`not a directory: ${root}`);
  const watcher = new NativeWatcher(api, root, opts);
  await watcher.start();
  opts.onReady?.();
  return watcher;
}

/**
 * One live @parcel/watcher subscription, replaced by a fresh one when it may be blind.
 *
 * The blind spot: on Linux, @parcel/watcher 2.6 adds an inotify watch to a directory it
 * sees created or moved in, but never to the subdirectories that directory already holds
 * by then (`mkdir -p a/b`, `mv dir/ here`, a checkout adding nested folders; upstream
 * issue parcel-bundler/watcher#97): nothing in them would ever be reported.
 *
 * Repair: only a new crawl watches such folders, and @parcel/watcher re-crawls only once
 * the old subscription is gone (it caches the tree per root while a subscription holds
 * it). So a round ends the old subscription, subscribes anew, and asks the daemon for a
 * full rescan (onRescan), which catches whatever changed while nothing watched. A folder
 * born during the crawl, after it read the parent and before the parent's watch existed,
 * would be missed again: any folder whose birth time is not older than the crawl's start
 * triggers one more round (at most WATCH_NATIVE_MAX_ROUNDS in a row; then onError says
 * so). Known residue: a folder MOVED in during that instant keeps its old birth time.
 */
class NativeWatcher implements Watcher {
  private current: ParcelSubscription | null = null;
  private closed = false;
  /** Folders (relative) that arrived holding subfolders, awaiting a round. */
  private suspects = new Set<string>();
  private repairing = false;
  /** Aborted by close(): ends a re-subscription backoff wait at once. */
  private readonly closing = new AbortController();

  constructor(
    private readonly api: ParcelWatcherModule,
    private readonly root: string,
    private readonly opts: NativeWatcherOptions,
  ) {}

  async start(): Promise<void> {
    this.current = await this.subscribe();
  }

  /** While a repair round is owed or running, folders may hold files no event named yet. */
  unsettled(): string[] | null {
    return this.repairing || this.suspects.size > 0 ? null : [];
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.closing.abort();
    const current = this.current;
    this.current = null;
    await current?.unsubscribe();
  }

  private subscribe(): Promise<ParcelSubscription> {
    return this.api.subscribe(this.root, (err, events) => this.onBatch(err, events), {
      ignore: nativeIgnoreList(this.root, this.opts.matcher),
    });
  }

  private relOf(abs: string): string | null {
    return wireRelative(this.root, abs);
  }

  /**
   * @parcel/watcher's callback: anything thrown here would be an uncaught exception that
   * ends the process, so whatever goes wrong is handed to onError (a full rescan) instead.
   */
  private onBatch(err: Error | null, events: ParcelEvent[]): void {
    if (this.closed) return;
    try {
      if (err) this.opts.onError(err);
      else this.handle(events);
    } catch (caught) {
      this.fail(caught);
    }
  }

  private fail(err: unknown): void {
    if (!this.closed) this.opts.onError(err instanceof Error ? err : new Error(String(err)));
  }

  private handle(events: ParcelEvent[]): void {
    const { matcher } = this.opts;
    const paths = new Set<string>();
    const cookies: string[] = [];
    for (const ev of events) {
      const rel = this.relOf(ev.path);
      if (rel === null) continue;
      if (isWatchCookie(rel)) {
        if (ev.type === 'create') cookies.push(rel);
        continue;
      }
      if (rel === '') {
        this.opts.onError(new Error(`watched root changed or was removed: ${this.root}`));
        continue;
      }
      if (matcher.ignores(rel, false)) continue;
      // Late events often name paths under a folder that is now a file (ENOTDIR): gone.
      const isDir = lstatOrGone(ev.path)?.isDirectory() ?? false;
      // Only a directory rule may still match: ignored if it is a directory now. A path that
      // is gone is reported, so a rescan drops whatever the snapshot held there.
      if (isDir && matcher.ignores(rel, true)) continue;
      paths.add(rel);
      if (isDir && ev.type === 'create' && hasWatchableSubdir(ev.path, rel, matcher)) this.suspects.add(rel);
    }
    if (paths.size > 0) this.opts.onEvents([...paths]);
    // After the batch's other events: the probe says everything before it was handed over.
    for (const c of cookies) this.opts.onCookie?.(c);
    if (this.suspects.size > 0) void this.repair();
  }

  private async repair(): Promise<void> {
    if (this.repairing) return;
    this.repairing = true;
    try {
      for (let round = 0; this.suspects.size > 0 && !this.closed; round++) {
        const suspects = [...this.suspects];
        this.suspects.clear();
        if (round === WATCH_NATIVE_MAX_ROUNDS) {
          this.opts.onError(new Error(`the native watcher keeps meeting new folders (${suspects.slice(0, 3).join(', ')}); changes inside them may go unseen until the next restart`));
          break;
        }
        const old = this.current;
        this.current = null;
        try {
          await old?.unsubscribe();
        } catch (err) {
          this.fail(err); // the old one is no use either way: go on to a fresh one
        }
        const fresh = await this.resubscribe();
        if (fresh === null) return; // closed meanwhile
        this.current = fresh.subscription;
        const reason = `new folders with subfolders (${suspects.slice(0, 3).join(', ')}${suspects.length > 3 ? ', ...' : ''}): the native watcher re-read the tree`;
        if (this.opts.onRescan) this.opts.onRescan(reason);
        else this.opts.onError(new Error(reason));
        for (const d of foldersBornSince(this.root, this.opts.matcher, fresh.crawlStart - FS_TIMESTAMP_SLACK_MS)) this.suspects.add(d);
      }
    } catch (err) {
      this.fail(err);
    } finally {
      this.repairing = false;
    }
  }

  /**
   * Subscribes anew, retrying until it works or the watcher is closed (null then). Each
   * failure (ENOSPC: inotify watches exhausted) goes to onError and the next attempt waits
   * WATCH_NATIVE_RESUBSCRIBE_MIN_MS, doubling up to _MAX_MS: the watcher is never left
   * unsubscribed without saying so, nor for good. `crawlStart` is taken just before the
   * attempt that succeeded.
   */
  private async resubscribe(): Promise<{ subscription: ParcelSubscription; crawlStart: number } | null> {
    const wait = this.opts.resubscribeWait ?? ((ms: number, signal: AbortSignal) => delay(ms, undefined, { signal }));
    for (let waitMs = WATCH_NATIVE_RESUBSCRIBE_MIN_MS; !this.closed; waitMs = Math.min(waitMs * 2, WATCH_NATIVE_RESUBSCRIBE_MAX_MS)) {
      const crawlStart = Date.now();
      try {
        const subscription = await this.subscribe();
        if (this.closed) {
          await subscription.unsubscribe();
          return null;
        }
        return { subscription, crawlStart };
      } catch (err) {
        if (this.closed) return null;
        const reason = err instanceof Error ? err.message : String(err);
        this.fail(new Error(`the native watcher could not re-subscribe (${reason}); local changes go unseen until it can, retrying in ${waitMs} ms`));
      }
      try {
        await wait(waitMs, this.closing.signal);
      } catch {
        if (this.closed) return null; // close() aborted the wait
      }
    }
    return null;
  }
}

/**
 * Non-ignored folders born at or after `sinceMs` (wall clock). Where the file system keeps
 * no birth time (birthtimeMs 0), the change time stands in: it also moves when entries
 * are added, so it errs towards one more round.
 */
function foldersBornSince(root: string, matcher: IgnoreMatcher, sinceMs: number): string[] {
  const out: string[] = [];
  visitTree(root, {
    entry: (d, rel, abs) => {
      if (!d.isDirectory() || matcher.ignores(rel, true)) return;
      const st = lstatOrGone(abs);
      if (st && (st.birthtimeMs > 0 ? st.birthtimeMs : st.ctimeMs) >= sinceMs) out.push(rel);
      return 'descend';
    },
  });
  return out;
}

/** Whether a directory holds a subdirectory the watcher should watch. */
function hasWatchableSubdir(abs: string, rel: string, matcher: IgnoreMatcher): boolean {
  let dirents: fs.Dirent[];
  try {
    dirents = fs.readdirSync(abs, { withFileTypes: true });
  } catch {
    return false;
  }
  return dirents.some((d) => d.isDirectory() && !matcher.ignores(`${rel}/${d.name}`, true));
}
