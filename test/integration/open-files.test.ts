/**
 * A long-lived process (`hostsync watch`, a library user) runs push, diff and status again and
 * again: a file one of them leaves open piles up until EMFILE. These run each path that reads
 * files in different ways (a binary file sent alone as a multipart part, a text file too large to
 * diff and past the streaming hash threshold, the archive of a first push, a watch's cycles)
 * several times in this process, and check after each that no file of the project is open.
 * Linux only: the open files are read from /proc/self/fd.
 */
import { randomBytes } from 'node:crypto';
import { existsSync, readdirSync, readlinkSync } from 'node:fs';
import { readdir, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startEmulator, type RunningEmulator } from '../../src/emulator/index.js';
import { HASH_STREAM_THRESHOLD_BYTES } from '../../src/local/tunables.js';
import { diff, push, status, watch } from '../../src/index.js';
import { envFor } from '../helpers/push.js';
import { tempDir, writeTree } from '../helpers/tree.js';

let emu: RunningEmulator;
let work: { dir: string; cleanup: () => Promise<void> };
const conn = () => ({ dir: work.dir, env: envFor(emu) });

/** Paths under the project this process has open now (resolved through /proc/self/fd). */
function openProjectFiles(): string[] {
  const open: string[] = [];
  for (const fd of readdirSync('/proc/self/fd')) {
    try {
      const to = readlinkSync(`/proc/self/fd/${fd}`);
      if (to.startsWith(work.dir)) open.push(to);
    } catch {
      // the fd readdir used, closed since
    }
  }
  return open;
}

/** Nothing but the pooled FileHandle read requests Node keeps for reuse is a FileHandleReadWrap; see cli-host-child.mjs. */
const fileHandleReads = () => process.getActiveResourcesInfo().filter((r) => r === 'FileHandleReadWrap').length;

/**
 * A watch writes its status file on its own schedule, so a cycle's event may come while that
 * write holds its temporary file: wait for the files to close, boundedly. A leaked one never does.
 */
const closedAll = () => expect.poll(openProjectFiles, { timeout: 10_000, interval: 20 }).toEqual([]);

const line = 'a line of plain text, repeated past the diff limit and the streaming hash threshold\n';
const big = (n: number) => `${line.repeat(Math.ceil((HASH_STREAM_THRESHOLD_BYTES + 1024 * 1024) / line.length))}edit ${n}\n`;

beforeAll(async () => {
  emu = await startEmulator({ rateLimit: 1_000_000, userRateLimit: 1_000_000 });
});
afterAll(async () => {
  await emu?.close();
});
beforeEach(async () => {
  // Each test a new folder and an empty deployment: a folder that never synced differing from
  // what another one pushed would be conflicts (issue 43), not this test's subject.
  for (const name of await readdir(emu.volume)) await rm(path.join(emu.volume, name), { recursive: true, force: true });
  work = await tempDir('hostsync-open-files-');
  await writeFile(path.join(work.dir, 'hostsync.json'), JSON.stringify({ restart: 'never' }));
});
afterEach(async () => {
  await work.cleanup();
});

describe.runIf(existsSync('/proc/self/fd'))('no file of the project stays open', () => {
  it('after pushes (a multipart upload and a large file), diffs and statuses of a file too large to diff, run again and again', async () => {
    await writeTree(work.dir, { 'big.log': big(0), 'img.bin': randomBytes(64), 'small.txt': 'one\n' });
    expect((await push({ ...conn(), apply: false })).error).toBeUndefined();
    expect(openProjectFiles()).toEqual([]);
    let pooled = -1;
    for (let n = 1; n <= 4; n++) {
      // One binary file alone goes as a multipart upload (upload.ts, DiskFile).
      await writeTree(work.dir, { 'img.bin': randomBytes(64) });
      const pushed = await push({ ...conn(), apply: false });
      expect(pushed.error).toBeUndefined();
      expect(pushed.changes.written).toBe(1);
      expect(openProjectFiles()).toEqual([]);

      await writeTree(work.dir, { 'big.log': big(n) });
      const d = await diff(conn());
      expect(d.files).toEqual([expect.objectContaining({ path: 'big.log', tooLarge: true })]);
      expect((await status(conn())).error).toBeUndefined();
      expect(openProjectFiles()).toEqual([]);
      const bigPushed = await push({ ...conn(), apply: false });
      expect(bigPushed.changes.written).toBe(1);
      expect(openProjectFiles()).toEqual([]);
      // Node's pool of finished reads is filled by the first round and reused after it.
      if (n === 1) pooled = fileHandleReads();
      else expect(fileHandleReads()).toBe(pooled);
    }
  });

  it("between a watch's cycles, each writing a large file and a binary one", async () => {
    await writeTree(work.dir, { 'big.log': big(0), 'img.bin': randomBytes(64) });
    const w = watch({ ...conn(), apply: false });
    try {
      let cycles = 0;
      let wake: () => void = () => undefined;
      w.on('cycle', (e) => {
        if (e.changes.written > 0) {
          cycles++;
          wake();
        }
      });
      const nextCycle = () => new Promise<void>((r) => (wake = r));
      const first = nextCycle();
      await new Promise<void>((r) => w.on('ready', () => r()));
      if (cycles === 0) await first;
      await closedAll();
      for (let n = 1; n <= 3; n++) {
        const sent = nextCycle();
        await writeTree(work.dir, { 'big.log': big(n), 'img.bin': randomBytes(64) });
        await sent;
        await closedAll();
      }
    } finally {
      await w.stop();
    }
    expect(openProjectFiles()).toEqual([]);
  });
});
