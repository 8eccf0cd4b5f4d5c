/**
 * Issue 10: watch spends requests per unit of work, whatever the tree size. A one-file
 * edit reads only its own scope (on a tree larger than the emulator's index cap), its
 * writes are verified by a later read, a remote edit is never overwritten unannounced,
 * and a daemon killed before verifying is repaired by the next start. The drift poll after
 * a write of ours, and a restart after edits, cost a bounded number of requests too.
 */
import { existsSync } from 'node:fs';
import { readFile, readdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator, type RunningEmulator } from '../../src/emulator/index.js';
import { HostingClient } from '../../src/remote/client.js';
import { xxh64Bytes } from '../../src/local/hash.js';
import { deploymentStateDir } from '../../src/state/paths.js';
import { DriftStore } from '../../src/state/drift.js';
import { StateStore } from '../../src/state/store.js';
import { changeCycleCost, startWatch, type CycleEvent, type WatchDaemon } from '../../src/watch/daemon.js';
import { tempDir, writeTree } from '../helpers/tree.js';
import { converged, Recorder, WatchProcess, watchSession } from './harness.js';

/** The index cap is lowered so a small tree is already "larger than the emulator answers in one index". */
const INDEX_CAP = 25;
let emu: RunningEmulator;
beforeAll(async () => {
  emu = await startEmulator({ runtime: 'static', rateLimit: 1_000_000, userRateLimit: 1_000_000, indexMaxEntries: INDEX_CAP });
});
afterAll(async () => {
  await emu?.close();
});

async function bigProject(on: RunningEmulator = emu) {
  const files: Record<string, string> = { 'index.html': '<title>t</title>\n' };
  for (const d of ['a', 'b', 'c', 'd']) for (let i = 0; i < 15; i++) files[`src/${d}/f${i}.js`] = `export const v = "${d}${i}";\n`;
  const { dir, cleanup } = await tempDir('hostsync-watch-scoped-');
  await writeTree(dir, files);
  const dep = await on.createDeployment({ runtime: 'static' });
  return { root: dir, cleanup, dep, files: Object.keys(files).length };
}

/** The base record's path in a volume (`.hostsync/base-*.rec`). */
async function recordPath(volume: string): Promise<string> {
  const name = (await readdir(path.join(volume, '.hostsync'))).find((n) => n.startsWith('base-') && n.endsWith('.rec'));
  if (!name) throw new Error('no base record on the deployment');
  return `.hostsync/${name}`;
}

const isCycle = (trigger: CycleEvent['trigger']) => (e: { type: string; trigger?: string }) => e.type === 'cycle' && e.trigger === trigger;

/**
 * Edits `rel` in a watch process once its watcher is ready and waits for the change cycle
 * that writes it; returns the text written. An edit the look-again rescan took (a whole
 * push, verified at once) is made again, so a change cycle writes it.
 */
async function editInChangeCycle(w: WatchProcess, root: string, rel: string, text: string): Promise<string> {
  await w.waitFor((e) => e.type === 'cycle' && e.trigger === 'start');
  await w.waitFor((e) => e.type === 'ready');
  await writeFile(path.join(root, rel), text);
  const cycle = await w.waitFor((e) => e.type === 'cycle' && (e.trigger === 'change' || e.trigger === 'rescan') && (e.paths as string[]).includes(rel));
  if (cycle.trigger === 'change') return text;
  const again = `${text.trimEnd()}, after the rescan\n`;
  await writeFile(path.join(root, rel), again);
  await w.waitFor((e) => e.type === 'cycle' && e.trigger === 'change' && (e.paths as string[]).includes(rel));
  return again;
}

/** A daemon started on `p` after a kill: runs until converged, then `check` sees its cycles before everything is closed. */
async function restartConverged(own: RunningEmulator, p: Awaited<ReturnType<typeof bigProject>>, check: (cycles: CycleEvent[], daemon: WatchDaemon, rec: Recorder) => Promise<void>): Promise<void> {
  const session = await watchSession(own, p.root, p.dep.id);
  const rec = new Recorder();
  const daemon = await startWatch(session, { noApply: true, onEvent: rec.onEvent });
  try {
    await converged(daemon, p.root, p.dep.volume);
    const all = rec.cycles();
    expect(all.flatMap((c) => c.conflicts)).toEqual([]);
    await check(all, daemon, rec);
  } finally {
    await daemon.stop();
    await session.close();
    await p.cleanup();
    await own.close();
  }
}

describe('scoped cycles', () => {
  it('a one-file edit on a tree past the index cap costs a read and a write; at the quiet moment one read verifies it and one edit records it', async () => {
    const p = await bigProject();
    expect(p.files).toBeGreaterThan(2 * INDEX_CAP);
    const session = await watchSession(emu, p.root, p.dep.id);
    const rec = new Recorder();
    const daemon = await startWatch(session, { noApply: true, onEvent: rec.onEvent, tunables: { verifyIdleMs: 200 } });
    const stateDir = deploymentStateDir(p.root, emu.baseUrl, p.dep.id);
    try {
      await converged(daemon, p.root, p.dep.volume);
      const start = rec.cycles()[0]!;
      // The whole tree did not fit one index: the verifying read was completed (grouped reads), beyond the first read and the verifying one.
      expect(start.byOperation['files.index']).toBeGreaterThan(2);

      for (const [k, rel] of ['src/c/f7.js', 'src/a/f1.js'].entries()) {
        const mark = rec.events.length;
        await writeFile(path.join(p.root, rel), `export const v = "edited ${k}";\n`);
        const change = (await rec.waitFor(isCycle('change'), mark)) as CycleEvent;
        expect(change.changes.map((c) => c.path)).toEqual([rel]);
        // The read and the write (issue 45): the base record's batch waits for the quiet moment.
        expect(change.byOperation).toEqual({ 'files.index': 1, 'files.writeMany': 1 });
        expect(change.requests).toBe(2);
        // What the pacer budgets a change cycle at (a short estimate overdraws its bucket).
        expect(changeCycleCost(true)).toBe(change.requests);
        // Sent, not yet verified nor recorded: what a restart, or the next whole push, takes up.
        expect(existsSync(path.join(stateDir, 'unverified.json'))).toBe(true);
        expect(existsSync(path.join(stateDir, 'record-pending.json'))).toBe(true);
        const verify = (await rec.waitFor(isCycle('verify'), mark)) as CycleEvent;
        expect(verify.byOperation).toEqual({ 'files.index': 1, 'files.edit': 1 });
        expect(verify.quiet).toBe(true);
        expect(existsSync(path.join(stateDir, 'unverified.json'))).toBe(false);
        expect(existsSync(path.join(stateDir, 'record-pending.json'))).toBe(false);
      }
      await converged(daemon, p.root, p.dep.volume);
    } finally {
      await daemon.stop();
      await session.close();
    }
    // The base was saved with the verified writes: a restart finds nothing to send.
    const again = await watchSession(emu, p.root, p.dep.id);
    const rec2 = new Recorder();
    const d2 = await startWatch(again, { noApply: true, onEvent: rec2.onEvent });
    try {
      await converged(d2, p.root, p.dep.volume);
      expect(rec2.cycles()[0]!.counts.written).toBe(0);
      expect(rec2.cycles()[0]!.conflicts).toEqual([]);
    } finally {
      await d2.stop();
      await again.close();
      await p.cleanup();
    }
  });

  it('a restart on a synced tree past the index cap costs one request: the look-again scan once the watcher is ready sends nothing', async () => {
    // An emulator of its own: the shared budget ledger counts this file's requests per
    // emulator, and with this test the others here would pass the key's 120 a minute.
    const own = await startEmulator({ runtime: 'static', rateLimit: 1_000_000, userRateLimit: 1_000_000, indexMaxEntries: INDEX_CAP });
    const p = await bigProject(own);
    const first = await watchSession(own, p.root, p.dep.id);
    const d1 = await startWatch(first, { noApply: true });
    try {
      await converged(d1, p.root, p.dep.volume);
    } finally {
      await d1.stop();
      await first.close();
    }
    const again = await watchSession(own, p.root, p.dep.id);
    const rec = new Recorder();
    // No debounce: the start-up scan begins before the watcher is ready, so the daemon looks again after it.
    const d2 = await startWatch(again, { noApply: true, onEvent: rec.onEvent, tunables: { debounceMs: 0 } });
    try {
      await rec.waitFor((e) => e.type === 'ready');
      await converged(d2, p.root, p.dep.volume);
      await sleep(100);
      await d2.whenIdle();
      expect(rec.cycles().map((c) => c.trigger)).toEqual(['start']);
      expect(again.client.stats().byOperation).toEqual({ 'files.index': 1 });
    } finally {
      await d2.stop();
      await again.close();
      await p.cleanup();
      await own.close();
    }
  });

  it('with apply, a one-file edit costs three requests (read, write, apply); saving on, each cycle verifies the one before', async () => {
    const p = await bigProject();
    const session = await watchSession(emu, p.root, p.dep.id);
    const rec = new Recorder();
    const daemon = await startWatch(session, { onEvent: rec.onEvent, tunables: { verifyIdleMs: 60_000 } });
    try {
      await converged(daemon, p.root, p.dep.volume);
      const mark = rec.events.length;
      for (let k = 0; k < 3; k++) {
        const before = rec.cycles().length;
        await writeFile(path.join(p.root, 'src/b/f3.js'), `export const v = "save ${k}";\n`);
        while (!rec.cycles().slice(before).some((c) => c.trigger === 'change' && c.apply !== null)) await sleep(20);
      }
      const changes = rec.cyclesSince(mark).filter((c) => c.trigger === 'change');
      for (const c of changes) expect(c.byOperation).toEqual({ 'files.index': 1, 'files.writeMany': 1, 'deployments.apply': 1 });
      // What the pacer budgets a change cycle at (docs/decisions.md, "The pacer budgets a change
      // cycle"): the base record's batch is the quiet moment's now, not the cycle's.
      for (const c of changes) expect(c.requests).toBe(changeCycleCost(false));
      expect(rec.cyclesSince(mark).some((c) => c.trigger === 'verify')).toBe(false);
      await converged(daemon, p.root, p.dep.volume);
    } finally {
      await daemon.stop();
      await session.close();
      await p.cleanup();
    }
  });

  it('the batch the quiet moment records carries the burst\'s health: history says whether the app was up after it', async () => {
    const p = await bigProject();
    const session = await watchSession(emu, p.root, p.dep.id);
    const rec = new Recorder();
    const daemon = await startWatch(session, { onEvent: rec.onEvent, tunables: { verifyIdleMs: 200 } });
    const stateDir = deploymentStateDir(p.root, emu.baseUrl, p.dep.id);
    try {
      await converged(daemon, p.root, p.dep.volume);
      const mark = rec.events.length;
      await writeFile(path.join(p.root, 'src/d/f2.js'), 'export const v = "healthy burst";\n');
      const change = (await rec.waitFor(isCycle('change'), mark)) as CycleEvent;
      expect(change.apply).not.toBeNull();
      expect(change.healthy).toBe(true);
      await rec.waitFor(isCycle('verify'), mark);
      const store = new StateStore(stateDir, p.dep.id);
      const recorded = (await store.readLog()).filter((l) => l.command === 'watch-recorded');
      expect(recorded).toHaveLength(1);
      expect(recorded[0]).toMatchObject({ healthy: true, paths: 1 });
      const header = (await readFile(path.join(p.dep.volume, (await recordPath(p.dep.volume))), 'utf8')).includes(recorded[0]!.batch as string);
      expect(header).toBe(true);
    } finally {
      await daemon.stop();
      await session.close();
      await p.cleanup();
    }
  });

  it('a remote edit before the pre-read is a conflict, never overwritten', async () => {
    const p = await bigProject();
    const session = await watchSession(emu, p.root, p.dep.id);
    const rec = new Recorder();
    const daemon = await startWatch(session, { noApply: true, onEvent: rec.onEvent, tunables: { verifyIdleMs: 200 } });
    try {
      await converged(daemon, p.root, p.dep.volume);
      await writeFile(path.join(p.dep.volume, 'src/d/f2.js'), 'hotfix on the server\n');
      const mark = rec.events.length;
      await writeFile(path.join(p.root, 'src/d/f2.js'), 'local edit\n');
      const c = (await rec.waitFor((e) => e.type === 'cycle' && e.conflicts.length > 0, mark)) as CycleEvent;
      expect(c.conflicts.map((x) => [x.path, x.reason])).toEqual([['src/d/f2.js', 'both-modified']]);
      expect(c.counts.written).toBe(0);
      expect(await readFile(path.join(p.dep.volume, 'src/d/f2.js'), 'utf8')).toBe('hotfix on the server\n');
    } finally {
      await daemon.stop();
      await session.close();
      await p.cleanup();
    }
  });

  it('the accepted window: a remote edit landing between the pre-read and our write is overwritten, and files.history keeps it', async () => {
    const p = await bigProject();
    const session = await watchSession(emu, p.root, p.dep.id);
    const rec = new Recorder();
    const daemon = await startWatch(session, { noApply: true, onEvent: rec.onEvent, tunables: { verifyIdleMs: 200 } });
    const client = new HostingClient({ baseUrl: emu.baseUrl, apiKey: emu.apiKey, deploymentId: p.dep.id });
    try {
      await converged(daemon, p.root, p.dep.volume);
      emu.setLatency(300);
      const before = emu.stats().requests.byOperation['files.writeMany'] ?? 0;
      await writeFile(path.join(p.root, 'src/a/f9.js'), 'ours\n');
      // Our writeMany has arrived and is held by the latency: someone edits the file now.
      while ((emu.stats().requests.byOperation['files.writeMany'] ?? 0) === before) await sleep(5);
      await writeFile(path.join(p.dep.volume, 'src/a/f9.js'), 'theirs, in the window\n');
      await rec.waitFor(isCycle('verify'));
      emu.setLatency(0);
      expect(await readFile(path.join(p.dep.volume, 'src/a/f9.js'), 'utf8')).toBe('ours\n');
      const history = await client.files.history('src/a/f9.js');
      // The version saved by our write is the one it replaced: theirs.
      const newest = history.versions[0]!;
      expect(newest.bytes).toBe(Buffer.byteLength('theirs, in the window\n'));
    } finally {
      emu.setLatency(0);
      await client.close();
      await daemon.stop();
      await session.close();
      await p.cleanup();
    }
  });

  it('SIGKILL before the deferred verification, then a local edit and a restart: verified from the record, pushed as a plain edit', async () => {
    // An emulator (so a key) of its own: the client's shared budget ledger holds every
    // process to 120 requests a minute per key, and this file's other tests spend most of
    // that on the shared one; waiting out the window would outlast the test timeout.
    const own = await startEmulator({ runtime: 'static', rateLimit: 1_000_000, userRateLimit: 1_000_000, indexMaxEntries: INDEX_CAP });
    const p = await bigProject(own);
    const stateDir = deploymentStateDir(p.root, own.baseUrl, p.dep.id);
    const w = new WatchProcess(own, p.root, p.dep.id, ['--no-apply']);
    let first = '';
    try {
      first = await editInChangeCycle(w, p.root, 'src/b/f5.js', 'first edit\n');
      // Written, and the idle verification (1 s by default) has not run: kill now.
      w.child.kill('SIGKILL');
      await w.exited;
    } finally {
      if (w.child.exitCode === null) w.child.kill('SIGKILL');
    }
    expect(w.events.some((e) => e.type === 'cycle' && e.trigger === 'verify')).toBe(false);
    expect(existsSync(path.join(stateDir, 'unverified.json'))).toBe(true);
    expect(await readFile(path.join(p.dep.volume, 'src/b/f5.js'), 'utf8')).toBe(first);
    // Edited again while no daemon runs: base (old) != local != remote (our first edit).
    await writeFile(path.join(p.root, 'src/b/f5.js'), 'second edit, while stopped\n');

    await restartConverged(own, p, async (all, _daemon, rec) => {
      // The restart syncs the edit made while stopped with a scoped cycle (its read also
      // verifies the record), not a read of the whole tree; the idle check verifies the write.
      expect(all[0]!.trigger).toBe('start');
      expect(all[0]!.byOperation).toEqual({ 'files.index': 1, 'files.writeMany': 1 });
      await rec.waitFor((e) => e.type === 'cycle' && (e.trigger === 'verify' || e.trigger === 'poll'));
      expect(rec.cycles().reduce((n, c) => n + c.counts.written, 0)).toBe(1);
      expect(existsSync(path.join(stateDir, 'unverified.json'))).toBe(false);
    });
  });

  it('SIGKILL right after a verified cycle: the base on disk is state.bin plus the journal, and the restart converges with no write', async () => {
    const own = await startEmulator({ runtime: 'static', rateLimit: 1_000_000, userRateLimit: 1_000_000, indexMaxEntries: INDEX_CAP });
    const p = await bigProject(own);
    const stateDir = deploymentStateDir(p.root, own.baseUrl, p.dep.id);
    const rel = 'src/d/f3.js';
    const w = new WatchProcess(own, p.root, p.dep.id, ['--no-apply']);
    let text = '';
    let binAtChange: Buffer;
    try {
      text = await editInChangeCycle(w, p.root, rel, 'journaled edit\n');
      binAtChange = await readFile(path.join(stateDir, 'state.bin'));
      // A later read (the idle verification, or the next cycle's) verifies the write and puts
      // it into the base on disk: kill as soon as it is there.
      const hash = await xxh64Bytes(text);
      // Bounded below the test's timeout, so that `finally` kills the child if it never comes.
      const until = Date.now() + 40_000;
      while ((await new StateStore(stateDir, p.dep.id).load()).base?.get(rel)?.hash !== hash) {
        if (Date.now() > until) throw new Error(`the watch never verified ${rel} into the base on disk`);
        await sleep(20);
      }
      w.child.kill('SIGKILL');
      await w.exited;
    } finally {
      if (w.child.exitCode === null) w.child.kill('SIGKILL');
    }
    // Persisted by an append, not by rewriting state.bin whole.
    expect(await readFile(path.join(stateDir, 'state.bin'))).toEqual(binAtChange);
    expect(existsSync(path.join(stateDir, 'state.journal'))).toBe(true);
    expect((await new StateStore(stateDir, p.dep.id).load()).base!.get(rel)).toMatchObject({ hash: await xxh64Bytes(text), size: Buffer.byteLength(text) });

    await restartConverged(own, p, async (all, daemon) => {
      expect(all.reduce((n, c) => n + c.counts.written + c.counts.deleted, 0)).toBe(0);
      expect(all.flatMap((c) => Object.keys(c.byOperation)).filter((op) => op !== 'files.index')).toEqual([]);
      await daemon.stop();
      // A clean stop folds the journal into state.bin.
      expect(existsSync(path.join(stateDir, 'state.journal'))).toBe(false);
      expect((await new StateStore(stateDir, p.dep.id).load()).base!.get(rel)?.hash).toBe(await xxh64Bytes(text));
    });
  });
});

const isPoll = (e: { type: string; trigger?: string }): boolean => e.type === 'cycle' && e.trigger === 'poll';

describe('drift polls on a tree past the index cap', () => {
  it('after a local edit each poll is one request and finds remote edits in the touched and in an untouched region; a restart after an edit is a read and a write', async () => {
    // An emulator (so a key) of its own: the budget ledger holds a key to 120 a minute.
    const emu = await startEmulator({ runtime: 'static', rateLimit: 1_000_000, userRateLimit: 1_000_000, indexMaxEntries: INDEX_CAP });
    // 61 files at a cap of 25: four regions (three folders of src/, and the rest), so a round is five polls.
    const { root, cleanup, dep } = await bigProject(emu);
    const stateDir = deploymentStateDir(root, emu.baseUrl, dep.id);
    const tunables = { pollMs: 60, verifyIdleMs: 30 };
    // Polls every 60 ms: on a slow run they would fill the client's 120 a minute and wait out
    // the window; this test counts requests, it does not measure the budget.
    const client = { rateLimit: { requests: 1_000_000, windowMs: 60_000, userRequests: 1_000_000 } };

    const session = await watchSession(emu, root, dep.id, client);
    const rec = new Recorder();
    const daemon = await startWatch(session, { noApply: true, onEvent: rec.onEvent, tunables });
    try {
      await converged(daemon, root, dep.volume);
      let mark = rec.events.length;
      // Synced by a whole read: its root digest is trusted, one read checks the tree.
      const quiet = (await rec.waitFor(isPoll, mark)) as CycleEvent;
      expect(quiet.byOperation).toEqual({ 'files.index': 1 });

      // A local edit in src/a: the root digest no longer holds (our own write).
      await writeFile(path.join(root, 'src/a/f1.js'), 'export const v = "ours";\n');
      // Verified by the idle check or by a poll reading that region, whichever comes first
      // (waiting for the idle check alone hung when a poll verified the write first).
      const wrote = await rec.waitFor((e) => e.type === 'cycle' && (e as CycleEvent).counts.written > 0, mark);
      await rec.waitFor((e) => e.type === 'cycle' && (e.trigger === 'verify' || isPoll(e)), rec.events.indexOf(wrote) + 1);
      mark = rec.events.length;
      // Someone edits the deployment: one file in the region we wrote to, one in a region we did not.
      await writeFile(path.join(dep.volume, 'src/a/f2.js'), 'theirs, beside ours\n');
      await writeFile(path.join(dep.volume, 'src/c/f3.js'), 'theirs, elsewhere\n');
      const found = new Set<string>();
      while (found.size < 2) {
        const poll = (await rec.waitFor((e) => isPoll(e) && rec.events.indexOf(e) >= mark, mark)) as CycleEvent;
        mark = rec.events.indexOf(poll) + 1;
        for (const d of poll.drift) found.add(`${d.path}:${d.kind}`);
      }
      expect([...found].sort()).toEqual(['src/a/f2.js:modified', 'src/c/f3.js:modified']);
      const polls = rec.events.filter((e): e is CycleEvent => isPoll(e) && rec.events.indexOf(e) < mark);
      const afterEdit = polls.slice(polls.indexOf(quiet) + 1);
      // Every poll after our write: one request, never a read of the whole tree.
      for (const p of afterEdit) expect(p.byOperation).toEqual({ 'files.index': 1 });
      const regions = (await new DriftStore(stateDir, dep.id).load())!.regions.length;
      expect(regions).toBeGreaterThanOrEqual(3);
      // Found within two rounds (a round: the root and every region), counted from our write.
      expect(afterEdit.length).toBeLessThanOrEqual(2 * (regions + 1));
      // Reported, never overwritten.
      expect(await readFile(path.join(dep.volume, 'src/a/f2.js'), 'utf8')).toBe('theirs, beside ours\n');
      expect(await readFile(path.join(dep.volume, 'src/c/f3.js'), 'utf8')).toBe('theirs, elsewhere\n');
      expect(rec.cycles().slice(1).reduce((n, c) => n + c.counts.written, 0)).toBe(1);
    } finally {
      await daemon.stop();
      await session.close();
    }

    // Stopped: a local edit, and a remote one elsewhere. The restart sends the edit after a
    // read of its own path (2 requests), and the polls find the remote edit.
    await writeFile(path.join(root, 'src/d/f4.js'), 'export const v = "edited while stopped";\n');
    await writeFile(path.join(dep.volume, 'src/b/f0.js'), 'theirs, while stopped\n');
    const again = await watchSession(emu, root, dep.id, client);
    const rec2 = new Recorder();
    const d2 = await startWatch(again, { noApply: true, onEvent: rec2.onEvent, tunables });
    try {
      const start = (await rec2.waitFor((e) => e.type === 'cycle' && e.trigger === 'start')) as CycleEvent;
      expect(start.byOperation).toEqual({ 'files.index': 1, 'files.writeMany': 1 });
      expect(start.changes.map((c) => c.path)).toEqual(['src/d/f4.js']);
      const drift = (await rec2.waitFor((e) => isPoll(e) && (e as CycleEvent).drift.some((d) => d.path === 'src/b/f0.js'))) as CycleEvent;
      expect(drift.byOperation).toEqual({ 'files.index': 1 });
      for (const p of rec2.cycles().filter((c) => c.trigger === 'poll')) expect(p.requests).toBe(1);
      expect(await readFile(path.join(dep.volume, 'src/d/f4.js'), 'utf8')).toBe('export const v = "edited while stopped";\n');
      expect(await readFile(path.join(dep.volume, 'src/b/f0.js'), 'utf8')).toBe('theirs, while stopped\n');
      expect(rec2.cycles().flatMap((c) => c.conflicts)).toEqual([]);
    } finally {
      await d2.stop();
      await again.close();
      await cleanup();
      await emu.close();
    }
  });
});
