/**
 * How many times each deployment was restarted over the last 24 hours, by every hostsync of
 * this OS user on this machine (a watch, a push, a `restart` from another terminal): a bot's
 * restart is a login, and Discord allows 1,000 a day per token (docs/guide-bot.md).
 *
 * The file: `<cache>/hostsync/restarts/<hash of service origin and deployment>.json`,
 * `{"version":1,"restarts":[epoch ms, ...]}`, beside the budget ledgers (remote/ledger.ts).
 *
 * Invariants:
 * - Every read-modify-write runs under the file's lock (proper-lockfile) and the write is
 *   atomic (temp file, rename): two processes never lose each other's restarts, and a kill
 *   at any instant leaves the old or the new file. A torn or unknown file reads as empty.
 * - Restarts older than the window are dropped on every write: the file stays small.
 * - A ledger that cannot be used (unwritable cache, a lock never released) never blocks a
 *   restart or a command: it counts nothing and says so once (`onUnavailable`).
 * - Wall-clock time (Date.now): the window is a day on the calendar, across processes.
 */
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { writeFileAtomic } from '../local/atomic-write.js';
import { LockedFile } from '../local/locked-file.js';
import { cacheDir } from '../remote/ledger.js';
import { RESTART_LEDGER_LOCK_STALE_MS, RESTART_LEDGER_LOCK_WAIT_MS, RESTART_WINDOW_MS } from './tunables.js';


export const RESTART_LEDGER_VERSION = 1;

/** The ledger file of one deployment of one service. */
export function restartLedgerFile(origin: string, deploymentId: string, env: NodeJS.ProcessEnv = process.env): string {
  const id = createHash('sha256').update(origin).update('\0').update(deploymentId).digest('hex').slice(0, 16);
  return path.join(cacheDir(env), 'restarts', `${id}.json`);
}

/** The restarts of `times` that still count at `now`. */
export function restartsWithin(times: readonly number[], now: number, windowMs = RESTART_WINDOW_MS): number[] {
  return times.filter((t) => t > now - windowMs && t <= now + windowMs);
}

/** What a `take` decided: `taken` is false when the day's limit is reached (and nothing was recorded). */
export interface RestartTake {
  taken: boolean;
  /** Restarts in the window, this one included when taken. */
  count: number;
}

export interface RestartLedgerOptions {
  file: string;
  now?: () => number;
  onUnavailable?: (message: string) => void;
}

export class RestartLedger {
  /** The file, its lock, and this process's updates one at a time; given up after a failure. */
  private readonly locked: LockedFile;

  constructor(private readonly opts: RestartLedgerOptions) {
    this.locked = new LockedFile(
      opts.file,
      { staleMs: RESTART_LEDGER_LOCK_STALE_MS, waitMs: RESTART_LEDGER_LOCK_WAIT_MS, minRetryMs: 5, maxRetryMs: 50 },
      (err) => opts.onUnavailable?.(`the restart count (${opts.file}) cannot be kept: ${(err as Error).message}; restarts are not counted in this run`),
    );
  }

  get file(): string {
    return this.opts.file;
  }

  /** Restarts in the last 24 hours (no lock: the file is replaced atomically). 0 when unreadable. */
  async count(): Promise<number> {
    return restartsWithin(await this.load(), this.now()).length;
  }

  /**
   * Records one restart unless `limit` (null: none) is reached; `force` records it past the
   * limit. The check and the record are one locked step, so two processes at the limit do
   * not both take the last one. Unusable ledger: taken, count 0.
   */
  take(limit: number | null, force = false): Promise<RestartTake> {
    return this.update((times, now) => {
      const live = restartsWithin(times, now);
      if (limit !== null && live.length >= limit && !force) return { times: live, result: { taken: false, count: live.length } };
      live.push(now);
      return { times: live, result: { taken: true, count: live.length } };
    }).then((r) => r ?? { taken: true, count: 0 });
  }

  private now(): number {
    return (this.opts.now ?? Date.now)();
  }

  private async load(): Promise<number[]> {
    try {
      const v = JSON.parse(await readFile(this.opts.file, 'utf8')) as { version?: unknown; restarts?: unknown };
      if (v.version !== RESTART_LEDGER_VERSION || !Array.isArray(v.restarts)) return [];
      return v.restarts.filter((t): t is number => typeof t === 'number' && Number.isFinite(t));
    } catch {
      return [];
    }
  }

  private update<R>(mutate: (times: number[], now: number) => { times: number[]; result: R }): Promise<R | undefined> {
    return this.locked.update(async () => {
      const { times, result } = mutate(await this.load(), this.now());
      await writeFileAtomic(this.opts.file, JSON.stringify({ version: RESTART_LEDGER_VERSION, restarts: times }));
      return result;
    });
  }
}
