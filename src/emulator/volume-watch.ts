/**
 * Lets files.index answer "unchanged" without walking the volume: a change counter fed by
 * inotify (fs.watch on every directory a walk entered), and the digest each request last
 * produced, tagged with the counter's value when its walk began. The service can keep the
 * same index; at 100k files the walk costs seconds, the remembered answer microseconds.
 *
 * Invariants (never answer `unchanged` for a tree that changed):
 * - A directory is watched BEFORE the walk reads it, so any change after the read raises
 *   an event. Anything inotify reports (create, delete, move, write, chmod) under a watched
 *   directory bumps the counter; which file it was does not matter.
 * - Every change counts, whoever made it: the emulator's own writes, a test writing straight
 *   into the volume, the app process. The emulator's writes need no separate hook.
 * - A remembered digest is used only when every directory of its walk was watched and the
 *   counter has not moved since that walk began. A directory that cannot be watched
 *   (inotify limits) leaves the request unremembered: it is walked every time, as before.
 * - A watcher is tied to the directory's inode: a directory deleted and re-created under
 *   the same name is watched anew at the next walk (the old watch saw the delete).
 * - Before comparing, the request yields to the event loop once (`settled()`): a change
 *   made before the request was sent is already queued on the inotify descriptor, and is
 *   delivered in the same poll phase as the request's bytes at the latest.
 */
import { watch, type FSWatcher } from 'node:fs';
import path from 'node:path';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { EMULATOR_INDEX_REMEMBERED_REQUESTS, EMULATOR_INDEX_WATCHED_DIRS_MAX } from './tunables.js';

export class VolumeWatch {
  private readonly watchers = new Map<string, { ino: bigint; watcher: FSWatcher }>();
  private readonly remembered = new Map<string, { generation: number; digest: string }>();
  private generation = 0;
  private closed = false;

  /** The change counter once every event queued before this call has been delivered. */
  async settled(): Promise<number> {
    await nextTurn();
    return this.generation;
  }

  /**
   * Watches the directory `abs` (inode `ino`) from now on, before it is read; false when it
   * cannot be watched, and then nothing walked with it may be remembered.
   */
  watchDir(abs: string, ino: bigint): boolean {
    if (this.closed) return false;
    const known = this.watchers.get(abs);
    if (known?.ino === ino) return true;
    if (known) this.drop(abs);
    if (this.watchers.size >= EMULATOR_INDEX_WATCHED_DIRS_MAX) this.reset();
    const base = path.basename(abs);
    let watcher: FSWatcher;
    try {
      watcher = watch(abs, { persistent: false }, (event, name) => {
        this.generation++;
        // The directory itself deleted or moved away (or a child of the same name: dropping
        // too often is harmless, the next walk watches it again).
        if (event === 'rename' && name === base && this.watchers.get(abs)?.watcher === watcher) this.drop(abs);
      });
    } catch {
      return false;
    }
    watcher.on('error', () => {
      this.generation++;
      if (this.watchers.get(abs)?.watcher === watcher) this.drop(abs);
    });
    this.watchers.set(abs, { ino, watcher });
    return true;
  }

  /** The digest remembered for `key`, if nothing changed since the walk that produced it. */
  unchangedDigest(key: string, generation: number): string | undefined {
    const r = this.remembered.get(key);
    return r !== undefined && r.generation === generation ? r.digest : undefined;
  }

  /** `generation`: the counter's value when the walk behind `digest` began. */
  remember(key: string, generation: number, digest: string): void {
    if (this.closed) return;
    if (!this.remembered.has(key) && this.remembered.size >= EMULATOR_INDEX_REMEMBERED_REQUESTS) this.remembered.clear();
    this.remembered.set(key, { generation, digest });
  }

  close(): void {
    this.closed = true;
    this.reset();
  }

  private drop(abs: string): void {
    this.watchers.get(abs)?.watcher.close();
    this.watchers.delete(abs);
  }

  /** Forgets every watch; the counter moves so nothing remembered survives. */
  private reset(): void {
    for (const { watcher } of this.watchers.values()) watcher.close();
    this.watchers.clear();
    this.remembered.clear();
    this.generation++;
  }
}
