import { createRequire } from 'node:module';
import type * as Lockfile from 'proper-lockfile';
import { mkdir, open, readdir, unlink } from 'node:fs/promises';
import { hostname } from 'node:os';
import path from 'node:path';
import { refusal } from '../errors.js';
import { TAKEOVER_LOCK_STALE_MS, TAKEOVER_WAIT_RETRIES, TORN_LOCK_GRACE_MS } from './tunables.js';

// CommonJS packages are required, not imported: see docs/decisions.md, "Start-up".
const require = createRequire(import.meta.url);
const { lock: lockPath } = require('proper-lockfile') as typeof Lockfile;

/**
 * One hostsync process per root and deployment: a watch and a push at once would
 * race on the base and on the remote. The lock file holds the owner's pid and host,
 * and is created with O_EXCL, so of two processes starting at once one gets it.
 * A lock whose process is gone (same host, pid not alive) is stale and taken over:
 * the check and the unlink of the stale file run under a second, short-lived lock
 * (proper-lockfile: `lock.lock`), and the file is unlinked only if it is still the
 * one judged stale. Without that, two processes that both saw the stale lock could
 * each unlink the other's new one, and both would run.
 */
export interface Lock {
  release(): Promise<void>;
}

interface LockInfo {
  pid: number;
  host: string;
  command: string;
  startedAt: string;
}

/** Whether `pid` runs on this host (EPERM: it exists but belongs to someone else). */
export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

export async function acquireLock(dir: string, command: string): Promise<Lock> {
  await mkdir(dir, { recursive: true });
  const file = path.join(dir, 'lock');
  const info: LockInfo = { pid: process.pid, host: hostname(), command, startedAt: new Date().toISOString() };
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      const handle = await open(file, 'wx', 0o600);
      await handle.writeFile(JSON.stringify(info));
      await handle.close();
      let released = false;
      return {
        release: async () => {
          if (released) return;
          released = true;
          await unlink(file).catch(() => undefined);
        },
      };
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
    const seen = await readHolder(file);
    if (seen === null) continue; // released meanwhile
    assertStale(seen, info.host, file);
    await removeIfStill(file, seen);
  }
  throw refusal(`could not take the lock ${file}: another hostsync keeps taking it; stop the other process`);
}

/** What a lock file held when read: its inode (to tell a re-created file) and its owner, or null when torn. */
interface Seen {
  ino: number;
  text: string;
  holder: LockInfo | null;
  ageMs: number;
}

async function readHolder(file: string): Promise<Seen | null> {
  try {
    const handle = await open(file, 'r');
    try {
      const st = await handle.stat();
      const text = await handle.readFile('utf8');
      let holder: LockInfo | null = null;
      try {
        holder = JSON.parse(text) as LockInfo;
      } catch {
        // torn: see assertStale
      }
      return { ino: st.ino, text, holder, ageMs: Date.now() - st.mtimeMs };
    } finally {
      await handle.close();
    }
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw err;
  }
}

/** Refuses unless the lock is stale: its process gone, or torn (empty, unparsable) for longer than a writer needs. */
function assertStale(seen: Seen, host: string, file: string): void {
  const { holder } = seen;
  if (holder === null) {
    // Torn or empty: its writer is between open and write, or died there. Only an old
    // one is stale; a fresh one belongs to a process that is starting right now.
    if (seen.ageMs < TORN_LOCK_GRACE_MS) {
      throw refusal(`another hostsync is starting on this directory and deployment (${file} is being written): try again in a moment`);
    }
    return;
  }
  if (holder.host !== host || processAlive(holder.pid)) {
    // `hostsync dev` syncs and applies by itself: another command's push is not needed there.
    if (holder.command === 'dev') {
      throw refusal(
        `\`hostsync dev\` (pid ${holder.pid} on ${holder.host}) is running on this directory and already sends every save to its emulator and applies hostsync.json's startup as you edit it: no push is needed; stop dev (Ctrl-C) to push yourself, or delete ${file} if that process is gone`,
      );
    }
    throw refusal(
      `another hostsync ${holder.command} (pid ${holder.pid} on ${holder.host}) is syncing this directory to this deployment: stop it first, or delete ${file} if that process is gone`,
    );
  }
}

/**
 * Unlinks the stale lock file, under the takeover lock, only if it is still the file we
 * judged (same inode, same content): a process that took it over meanwhile created a new
 * one, which stays. The new lock is then created with O_EXCL by the caller's next pass,
 * where every racer meets on equal terms.
 */
async function removeIfStill(file: string, judged: Seen): Promise<void> {
  let release: (() => Promise<void>) | undefined;
  try {
    release = await lockPath(file, {
      realpath: false,
      stale: TAKEOVER_LOCK_STALE_MS,
      retries: { retries: TAKEOVER_WAIT_RETRIES, factor: 1.5, minTimeout: 5, maxTimeout: 100 },
      // The section below takes a few milliseconds; a stale mark is harmless once it ends.
      onCompromised: () => undefined,
    });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ELOCKED') {
      throw refusal(`another hostsync is starting on this directory and deployment (taking over ${file}): try again in a moment`);
    }
    throw err;
  }
  try {
    const now = await readHolder(file);
    if (now !== null && now.ino === judged.ino && now.text === judged.text) await unlink(file);
  } finally {
    await release().catch(() => undefined);
  }
}

/**
 * When the oldest live hostsync of this root took its lock (ms since the epoch), over
 * every deployment's lock under `stateRoot` (the root's `.hostsync/`); Infinity when none.
 * A file only a hostsync writes, last modified before that, belongs to none of them: a
 * process holding a lock of this root now was not yet running then (sync/temp-cleanup.ts).
 * A lock of another host, or one being written, counts as live.
 */
export async function oldestLiveLockMs(stateRoot: string): Promise<number> {
  let oldest = Infinity;
  let names: string[];
  try {
    names = await readdir(stateRoot);
  } catch {
    return oldest;
  }
  const here = hostname();
  for (const name of names) {
    const seen = await readHolder(path.join(stateRoot, name, 'lock')).catch(() => null);
    if (seen === null) continue;
    const h = seen.holder;
    if (h !== null && h.host === here && !processAlive(h.pid)) continue;
    const started = h === null ? Date.now() - seen.ageMs : Date.parse(h.startedAt);
    // A start time we cannot read: as old as the file itself, or older (nothing is then cleaned before it).
    const at = Number.isFinite(started) ? Math.min(started, Date.now() - seen.ageMs) : -Infinity;
    oldest = Math.min(oldest, at);
  }
  return oldest;
}
