import { mkdir, open, readFile, stat, unlink } from 'node:fs/promises';
import { hostname } from 'node:os';
import path from 'node:path';
import { refusal } from '../errors.js';
import { TORN_LOCK_GRACE_MS } from './tunables.js';

/**
 * One hostsync process per root and deployment: a watch and a push at once would
 * race on the base and on the remote. The lock file holds the owner's pid and host;
 * a lock whose process is gone (same host, pid not alive) is stale and taken over.
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
    let holder: LockInfo | null = null;
    try {
      holder = JSON.parse(await readFile(file, 'utf8')) as LockInfo;
    } catch {
      // Torn or empty: its writer is between open and write, or died there. Only an old
      // one is stale; a fresh one belongs to a process that is starting right now.
      const age = await stat(file).then((s) => Date.now() - s.mtimeMs, () => Infinity);
      if (age < TORN_LOCK_GRACE_MS) {
        throw refusal(`another hostsync is starting on this directory and deployment (${file} is being written): try again in a moment`);
      }
    }
    const stale = holder === null || (holder.host === info.host && !processAlive(holder.pid));
    if (!stale && holder) {
      throw refusal(
        `another hostsync ${holder.command} (pid ${holder.pid} on ${holder.host}) is syncing this directory to this deployment: stop it first, or delete ${file} if that process is gone`,
      );
    }
    await unlink(file).catch(() => undefined);
  }
  throw refusal(`could not take the lock ${file}: another hostsync keeps taking it; stop the other process`);
}
