import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { readFile, utimes, writeFile, mkdir } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { EXIT, HostsyncError } from '../../src/errors.js';
import { acquireLock } from '../../src/state/lock.js';
import { loadConfig } from '../../src/config/config.js';
import { openSession } from '../../src/sync/session.js';
import { tempDir } from '../helpers/tree.js';

const LOCK_CHILD = fileURLToPath(new URL('../helpers/lock-child.mjs', import.meta.url));

let work: { dir: string; cleanup: () => Promise<void> };
beforeEach(async () => {
  work = await tempDir('hostsync-lock-');
});
afterEach(async () => {
  await work.cleanup();
});

const lockFile = () => path.join(work.dir, 'lock');
const refusedWith = async (p: Promise<unknown>, pattern: RegExp) => {
  const err = await p.then(() => null, (e: unknown) => e);
  expect(err).toBeInstanceOf(HostsyncError);
  expect((err as HostsyncError).exitCode).toBe(EXIT.refused);
  expect((err as Error).message).toMatch(pattern);
};

/** The pid of a process that has exited (`true`: any process will do, and Node costs 0.1 s of CPU to start). */
async function deadPid(): Promise<number> {
  const child = spawn('true', [], { stdio: 'ignore' });
  await new Promise((r) => child.on('exit', r));
  return child.pid!;
}

describe('acquireLock', () => {
  it('writes the owner, refuses a second holder naming it, and frees the file on release', async () => {
    const lock = await acquireLock(work.dir, 'watch');
    const info = JSON.parse(await readFile(lockFile(), 'utf8'));
    expect(info).toMatchObject({ pid: process.pid, command: 'watch' });
    await refusedWith(acquireLock(work.dir, 'push'), new RegExp(`another hostsync watch \\(pid ${process.pid}`));
    await lock.release();
    await lock.release(); // idempotent
    expect(existsSync(lockFile())).toBe(false);
    await (await acquireLock(work.dir, 'push')).release();
  });

  it('takes over a lock whose process is gone', async () => {
    await writeFile(lockFile(), JSON.stringify({ pid: await deadPid(), host: (await import('node:os')).hostname(), command: 'push', startedAt: '' }));
    const lock = await acquireLock(work.dir, 'push');
    expect(JSON.parse(await readFile(lockFile(), 'utf8')).pid).toBe(process.pid);
    await lock.release();
  });

  it('many takeovers of one stale lock at once: exactly one wins, the others are refused naming it', async () => {
    const { hostname } = await import('node:os');
    for (let round = 0; round < 3; round++) {
      await writeFile(lockFile(), JSON.stringify({ pid: await deadPid(), host: hostname(), command: 'push', startedAt: '' }));
      const tries = await Promise.allSettled(Array.from({ length: 12 }, () => acquireLock(work.dir, 'push')));
      const won = tries.filter((t): t is PromiseFulfilledResult<Awaited<ReturnType<typeof acquireLock>>> => t.status === 'fulfilled');
      expect(won).toHaveLength(1);
      for (const t of tries) {
        if (t.status === 'rejected') expect((t.reason as Error).message).toMatch(new RegExp(`pid ${process.pid}|is starting`));
      }
      expect(JSON.parse(await readFile(lockFile(), 'utf8')).pid).toBe(process.pid);
      await won[0]!.value.release();
      expect(existsSync(lockFile())).toBe(false);
    }
  });

  it('many processes taking over one stale lock at once: exactly one wins', async () => {
    const { hostname } = await import('node:os');
    const racers = 8;
    for (let round = 0; round < 4; round++) {
      await writeFile(lockFile(), JSON.stringify({ pid: await deadPid(), host: hostname(), command: 'push', startedAt: '' }));
      const startAt = Date.now() + 1_500;
      const children = Array.from({ length: racers }, () => spawn(process.execPath, [LOCK_CHILD, work.dir, String(startAt)], { stdio: ['pipe', 'pipe', 'inherit'] }));
      const verdicts = await Promise.all(
        children.map(
          (c) =>
            new Promise<string>((resolve) => {
              let out = '';
              c.stdout!.on('data', (d: Buffer) => {
                out += d.toString();
                if (out.includes('\n')) resolve(out.trim());
              });
              c.on('exit', () => resolve(out.trim()));
            }),
        ),
      );
      for (const c of children) c.stdin!.end();
      await Promise.all(children.map((c) => new Promise((r) => (c.exitCode !== null ? r(null) : c.on('exit', r)))));
      expect(verdicts.filter((v) => v === 'won')).toHaveLength(1);
      for (const v of verdicts.filter((x) => x !== 'won')) expect(v).toMatch(/^refused another hostsync (push \(pid \d+|is starting)/);
      expect(existsSync(lockFile())).toBe(false);
    }
  });

  it('leaves a fresh torn lock to its writer, and takes over an old one', async () => {
    await writeFile(lockFile(), '');
    await refusedWith(acquireLock(work.dir, 'push'), /is starting/);
    const old = new Date(Date.now() - 3_600_000);
    await utimes(lockFile(), old, old);
    await (await acquireLock(work.dir, 'push')).release();
  });

  it('creates the folder it needs', async () => {
    const dir = path.join(work.dir, 'a', 'b');
    await (await acquireLock(dir, 'push')).release();
    expect(existsSync(dir)).toBe(true);
  });
});

describe('Session.hold: the one owner of the lock for push and watch', () => {
  const session = async () => {
    await mkdir(path.join(work.dir, 'root'), { recursive: true });
    const config = await loadConfig({ flags: { dir: path.join(work.dir, 'root') }, env: { HOSTSYNC_API_KEY: 'k-test', HOSTSYNC_BASE_URL: 'http://127.0.0.1:9', HOSTSYNC_DEPLOYMENT: 'd1' } });
    return openSession(config);
  };

  it('is re-entrant within a session: the file goes with the last release', async () => {
    const s = await session();
    try {
      const outer = await s.hold('watch');
      const inner = await s.hold('push');
      const file = path.join(s.stateDir, 'lock');
      expect(JSON.parse(await readFile(file, 'utf8')).command).toBe('watch');
      await inner.release();
      expect(existsSync(file)).toBe(true);
      await outer.release();
      expect(existsSync(file)).toBe(false);
    } finally {
      await s.close();
    }
  });

  it('refuses another session on the same root and deployment (exit 3)', async () => {
    const a = await session();
    const b = await session();
    try {
      const held = await a.hold('watch');
      await refusedWith(b.hold('push'), /another hostsync watch/);
      await held.release();
      await (await b.hold('push')).release();
    } finally {
      await a.close();
      await b.close();
    }
  });
});
