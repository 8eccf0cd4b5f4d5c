import { removeWatchStatus, writeWatchStatus, type WatchStatusRecord } from '../state/watch-status.js';

/**
 * Keeps `.hostsync/<deployment>/watch.json` current for `hostsync status`. `update()`
 * is cheap to call on every event: at most one write is in flight, and calls made
 * meanwhile collapse into one more write of the newest picture (taken at write time).
 * Writing is best effort: a failed write never disturbs the daemon.
 */
export class WatchStatusWriter {
  private writing: Promise<void> | null = null;
  private dirty = false;
  private closed = false;

  constructor(
    private readonly stateDir: string,
    private readonly snapshot: () => WatchStatusRecord,
  ) {}

  update(): void {
    if (this.closed) return;
    if (this.writing) {
      this.dirty = true;
      return;
    }
    this.writing = this.drain();
  }

  /** Waits for the write in flight, then removes the file: the daemon is stopping. */
  async remove(): Promise<void> {
    this.closed = true;
    await this.writing;
    await removeWatchStatus(this.stateDir).catch(() => undefined);
  }

  private async drain(): Promise<void> {
    do {
      this.dirty = false;
      await writeWatchStatus(this.stateDir, this.snapshot()).catch(() => undefined);
    } while (this.dirty && !this.closed);
    this.writing = null;
  }
}
