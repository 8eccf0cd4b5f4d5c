/**
 * Issue 28, items 9 and 10: an undo killed mid-way is recognised by every command and
 * finished (or abandoned), never taken for remote drift; and a remote edit made while an
 * undo runs is held back, not overwritten (exit 3). Item 12: the writes a killed watch left
 * unverified are taken in by every command.
 */
import { readFile, readdir, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startEmulator, type RunningEmulator } from '../../src/emulator/index.js';
import { tempDir, writeTree } from '../helpers/tree.js';
import { envFor } from '../helpers/push.js';
import { loadConfig } from '../../src/config/config.js';
import { openSession, type Session } from '../../src/sync/session.js';
import { undo as undoCore } from '../../src/sync/two-way/undo.js';
import { ScopedSync } from '../../src/sync/watch-cycle/scoped-sync.js';
import { UnverifiedStore } from '../../src/state/unverified.js';
import { xxh64Bytes } from '../../src/local/hash.js';
import { scanTree } from '../../src/local/scan.js';
import { push } from '../../src/app/push.js';
import { status } from '../../src/app/status.js';
import { pull } from '../../src/app/pull.js';
import { diff } from '../../src/app/diff.js';
import { undo, undoResultOf } from '../../src/app/undo.js';
import { history } from '../../src/app/history.js';
import { deploymentRef } from '../../src/app/options.js';
import { requestsOf } from '../../src/app/result.js';
import { EXIT } from '../../src/errors.js';
import { runCli } from '../helpers/cli.js';

let emu: RunningEmulator;
let work: { dir: string; cleanup: () => Promise<void> };
const env = () => envFor(emu);
const conn = () => ({ dir: work.dir, env: env() });
const remote = (rel: string) => readFile(path.join(emu.volume, rel), 'utf8');
const local = (rel: string) => readFile(path.join(work.dir, rel), 'utf8');
const FILES = ['w1.txt', 'w2.txt', 'w3.txt'];

beforeAll(async () => {
  emu = await startEmulator({ rateLimit: 1_000_000, userRateLimit: 1_000_000 });
});
afterAll(async () => {
  await emu?.close();
});
beforeEach(async () => {
  work = await tempDir('hostsync-undo-recovery-');
  for (const name of await readdir(emu.volume)) await rm(path.join(emu.volume, name), { recursive: true, force: true });
});
afterEach(async () => {
  await work.cleanup();
});

async function openOwn(): Promise<Session> {
  return openSession(await loadConfig({ flags: { dir: work.dir }, env: env() }));
}

/** v1 pushed, then every file edited to v2 and pushed: the undo has three files to restore. */
async function twoPushes(): Promise<void> {
  await writeTree(work.dir, Object.fromEntries(FILES.map((f) => [f, `${f} v1\n`])));
  expect((await push({ ...conn(), apply: false })).error).toBeUndefined();
  await writeTree(work.dir, Object.fromEntries(FILES.map((f) => [f, `${f} v2, my edit\n`])));
  expect((await push({ ...conn(), apply: false })).error).toBeUndefined();
}

/**
 * An undo "killed" after its first restore landed: the second restore never answers, and
 * the lock file is removed as the kernel would when the process dies. What is on disk
 * (journals, marker, base) and on the remote is exactly what a kill -9 at that instant leaves.
 */
async function killedUndo(): Promise<string> {
  const session = await openOwn();
  const restore = session.client.files.restore.bind(session.client.files);
  let calls = 0;
  let first = '';
  let reached!: () => void;
  const stuck = new Promise<void>((r) => (reached = r));
  session.client.files.restore = async (p, versionId) => {
    if (++calls === 1) {
      first = p;
      return restore(p, versionId);
    }
    reached();
    return new Promise(() => {});
  };
  void undoCore(session, { noApply: true }).catch(() => undefined);
  await stuck;
  await rm(path.join(session.stateDir, 'lock'), { force: true });
  return first;
}

describe('an interrupted undo (issue 28, item 9)', () => {
  it('is named by status, pull and diff (exit 3), pull leaves local work alone, and undo --continue finishes it', async () => {
    await twoPushes();
    const restored = await killedUndo();
    expect(await remote(restored)).toBe(`${restored} v1\n`);

    const s = await status(conn());
    expect(s.exitCode).toBe(EXIT.refused);
    expect(s.error).toMatch(/an undo was interrupted.*hostsync undo --continue/);
    expect(s.drift).toEqual([]);

    const p = await pull(conn());
    expect(p.exitCode).toBe(EXIT.refused);
    expect(p.error).toMatch(/an undo was interrupted/);
    for (const f of FILES) expect(await local(f)).toBe(`${f} v2, my edit\n`);

    const d = await diff(conn());
    expect(d.exitCode).toBe(EXIT.refused);

    const h = await history(conn());
    expect(h.interruptedUndo).toMatch(/an undo was interrupted/);

    const human = await runCli(['status', '--dir', work.dir], env());
    expect(human.code).toBe(3);
    expect(human.stderr).toMatch(/undo --continue/);

    const u = await undo({ ...conn(), continue: true, apply: false });
    expect(u.error).toBeUndefined();
    expect(u.continued).toBe(true);
    for (const f of FILES) expect(await remote(f)).toBe(`${f} v1\n`);
    for (const f of FILES) expect(await local(f)).toBe(`${f} v2, my edit\n`);

    // As after an undo that was never interrupted: the local edits are changes to push.
    const after = await status(conn());
    expect(after.error).toBeUndefined();
    expect(after.drift).toEqual([]);
    expect(after.changes.map((c) => c.path).sort()).toEqual(FILES);
    await expect(undo({ ...conn(), continue: true, apply: false })).resolves.toMatchObject({ exitCode: EXIT.refused, error: expect.stringMatching(/no interrupted undo/) });
  });

  it('a plain undo finishes the interrupted one rather than stepping further back', async () => {
    await twoPushes();
    await killedUndo();
    const u = await undo({ ...conn(), apply: false });
    expect(u.error).toBeUndefined();
    expect(u.continued).toBe(true);
    for (const f of FILES) expect(await remote(f)).toBe(`${f} v1\n`);
    expect((await status(conn())).changes).toHaveLength(3);
  });

  it('--abandon keeps the deployment as it is: the restored file is a change to push, the rest in sync, no drift', async () => {
    await twoPushes();
    const restored = await killedUndo();
    const u = await undo({ ...conn(), abandon: true, apply: false });
    expect(u.error).toBeUndefined();
    expect(u.abandoned).toBe(true);
    expect(await remote(restored)).toBe(`${restored} v1\n`);
    const s = await status(conn());
    expect(s.error).toBeUndefined();
    expect(s.drift).toEqual([]);
    expect(s.changes.map((c) => c.path)).toEqual([restored]);
  });
});

describe('a remote edit while undo runs (issue 28, item 10)', () => {
  it('is held back, not overwritten; the undo exits 3 naming it and the push stays in history', async () => {
    await twoPushes();
    const session = await openOwn();
    const history = session.client.files.history.bind(session.client.files);
    let edited = false;
    // After the plan's read, while the undo looks for the versions to restore: the app writes w2.txt.
    session.client.files.history = async (p) => {
      if (!edited) {
        edited = true;
        await writeFile(path.join(emu.volume, 'w2.txt'), 'written by the app during the undo\n');
      }
      return history(p);
    };
    try {
      const report = await undoCore(session, { noApply: true });
      const result = undoResultOf(report, requestsOf(session.client.stats()), deploymentRef(session.config));
      expect(result.exitCode).toBe(EXIT.refused);
      expect(result.held).toEqual(['w2.txt']);
      expect(result.error).toMatch(/w2\.txt was changed on the deployment while the undo ran/);
    } finally {
      await session.close();
    }
    expect(await remote('w2.txt')).toBe('written by the app during the undo\n');
    expect(await remote('w1.txt')).toBe('w1.txt v1\n');
    expect(await remote('w3.txt')).toBe('w3.txt v1\n');
    // The base of the held path stays the pushed one: status calls the app's write drift, not a change of ours.
    const s = await status(conn());
    expect(s.drift.map((d) => d.path)).toEqual(['w2.txt']);
  });
});

describe('writes a killed watch left unverified (issue 28, item 12)', () => {
  it('status, push and pull take them as ours: a later local edit is a change, not a conflict against our own bytes', async () => {
    await writeTree(work.dir, Object.fromEntries(FILES.map((f) => [f, `${f} v1\n`])));
    expect((await push({ ...conn(), apply: false })).error).toBeUndefined();

    // One watch cycle writes w3.txt, then the daemon is killed before any read verified it:
    // the write landed, the base on disk is still v1, and unverified.json names the bytes sent.
    await writeTree(work.dir, { 'w3.txt': 'w3.txt v2, from watch\n' });
    const session = await openOwn();
    try {
      const scoped = new ScopedSync(session);
      await scoped.reload();
      const scan = await scanTree({ root: work.dir, matcher: session.matcher, cache: session.cache });
      const cycle = await scoped.cycle({ local: scan.snapshot, skipped: [], paths: ['w3.txt'], noApply: true });
      expect(cycle.counts.written).toBe(1);
    } finally {
      await session.close();
    }
    const record = path.join(session.stateDir, 'unverified.json');
    await expect(readFile(record, 'utf8')).resolves.toContain('w3.txt');
    expect(await remote('w3.txt')).toBe('w3.txt v2, from watch\n');

    await writeTree(work.dir, { 'w3.txt': 'w3.txt v3, edited after the kill\n' });
    const s = await status(conn());
    expect(s.error).toBeUndefined();
    expect(s.conflicts).toEqual([]);
    expect(s.changes.map((c) => c.path)).toEqual(['w3.txt']);

    const p = await pull({ ...conn(), dryRun: true });
    expect(p.conflicts).toEqual([]);
    expect(p.fetched).toEqual([]);

    const pushed = await push({ ...conn(), apply: false });
    expect(pushed.error).toBeUndefined();
    expect(await remote('w3.txt')).toBe('w3.txt v3, edited after the kill\n');
    // The record is settled once a base was saved from the read that covered it.
    await expect(readFile(record, 'utf8')).rejects.toThrow();
  });

  it('a no-op push settles a write that never landed: the same bytes arriving later from elsewhere are a conflict, not ours', async () => {
    await writeTree(work.dir, Object.fromEntries(FILES.map((f) => [f, `${f} v1\n`])));
    expect((await push({ ...conn(), apply: false })).error).toBeUndefined();

    // A watch recorded w3.txt's bytes and was killed before the write went out; the file was then reverted here.
    const sent = 'w3.txt v2, never landed\n';
    const session = await openOwn();
    const record = new UnverifiedStore(session.stateDir, session.config.deploymentId);
    await record.save(new Map([['w3.txt', { hash: await xxh64Bytes(sent), size: Buffer.byteLength(sent), executable: false }]]));
    await session.close();

    // Nothing to push against an unchanged remote: the state is not rewritten, but the read covered w3.txt.
    const noop = await push({ ...conn(), apply: false });
    expect(noop.error).toBeUndefined();
    expect(noop.planned).toEqual([]);
    await expect(readFile(record.file, 'utf8')).rejects.toThrow();

    // Someone else puts exactly those bytes on the deployment; the file is edited here.
    await writeFile(path.join(emu.volume, 'w3.txt'), sent);
    await writeTree(work.dir, { 'w3.txt': 'w3.txt v3, mine\n' });
    const s = await status(conn());
    expect(s.conflicts.map((c) => c.path)).toEqual(['w3.txt']);
  });
});
