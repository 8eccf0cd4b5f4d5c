/**
 * A small file every hostsync process of the user shares (the budget ledger, the restart
 * count), changed only by locked read-modify-writes: the file's lock (proper-lockfile),
 * taken with a bounded wait, and this process's updates run one at a time. A failure (the
 * lock not had in time, the folder not writable) breaks it for the rest of the process:
 * every later update answers undefined at once and the caller goes without, as one warning
 * says (onFail); a shared count is worth less than a command that never ends.
 */
import { createRequire } from 'node:module';
import type * as Lockfile from 'proper-lockfile';
import * as fs from 'node:fs';
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { LOCK_FUTURE_SLACK_MS } from './tunables.js';

// CommonJS packages are required, not imported: see docs/decisions.md, "Start-up".
const require = createRequire(import.meta.url);
const { lock } = require('proper-lockfile') as typeof Lockfile;

/**
 * The file system proper-lockfile works through, but for one thing: a lock whose mtime
 * lies in the future reads as stale. proper-lockfile counts a lock stale once its mtime
 * is `staleMs` in the past, so one from the future (a clock set back, a cache folder
 * copied from another machine) would never be, and every command would wait out `waitMs`
 * for it. A live holder on this machine refreshes its lock with this machine's clock, so
 * its mtime is never ahead of it.
 */
const lockFs = {
  ...fs,
  stat(file: string, cb: (err: NodeJS.ErrnoException | null, st?: fs.Stats) => void): void {
    fs.stat(file, (err, st) => {
      if (!err && st.mtimeMs > Date.now() + LOCK_FUTURE_SLACK_MS) {
        cb(null, { mtime: new Date(0), mtimeMs: 0 } as fs.Stats);
        return;
      }
      cb(err, st);
    });
  },
};

export interface LockedFileOptions {
  /** A lock older than this was left by a killed process: taken over. */
  staleMs: number;
  /** How long an update waits for the lock before the file is given up. */
  waitMs: number;
  /** The retry backoff's first and longest delay. */
  minRetryMs: number;
  maxRetryMs: number;
}

export class LockedFile {
  private chain: Promise<unknown> = Promise.resolve();
  private failed = false;

  constructor(
    readonly file: string,
    private readonly opts: LockedFileOptions,
    private readonly onFail: (err: unknown) => void,
  ) {}

  /** An update failed: the file is given up for this process. */
  get broken(): boolean {
    return this.failed;
  }

  /** `body` (read, change, write) under the file's lock, after this process's earlier updates; undefined once broken. */
  update<R>(body: () => Promise<R>): Promise<R | undefined> {
    const run = async (): Promise<R | undefined> => {
      if (this.failed) return undefined;
      let release: (() => Promise<void>) | undefined;
      try {
        await mkdir(path.dirname(this.file), { recursive: true, mode: 0o700 });
        release = await lock(this.file, {
          realpath: false,
          stale: this.opts.staleMs,
          // The backoff reaches its cap within a dozen retries; `forever` repeats the last delay until maxRetryTime.
          retries: { retries: 12, forever: true, maxRetryTime: this.opts.waitMs, factor: 1.5, minTimeout: this.opts.minRetryMs, maxTimeout: this.opts.maxRetryMs },
          fs: lockFs,
          // A lock held so long it went stale is only a slower count, not a reason to crash.
          onCompromised: () => undefined,
        });
        return await body();
      } catch (err) {
        this.failed = true;
        this.onFail(err);
        return undefined;
      } finally {
        await release?.().catch(() => undefined);
      }
    };
    const p = this.chain.then(run, run);
    this.chain = p;
    return p;
  }
}
