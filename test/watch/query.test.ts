/**
 * Issue 32: with a watch running, `status` asks it what changed instead of scanning, and
 * gives the same answer as a scan. The watch's scheduler is held (a gated clock), so the
 * edits stay pending in the daemon while status runs as its own process: what it reads
 * comes from the watch's answer and the probe file, not from a synced tree.
 */
import { chmod, mkdir, readdir, rename, rm, stat, writeFile } from 'node:fs/promises';
import net from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startEmulator, type RunningEmulator } from '../../src/emulator/index.js';
import { StatCache } from '../../src/local/statcache.js';
import { loadNativeWatcher } from '../../src/watch/native-watcher.js';
import { statusAnswerer } from '../../src/app/status-for-watch.js';
import { statusFromWatch } from '../../src/cli/status-from-watch.js';
import { startWatch } from '../../src/watch/daemon.js';
import type { Clock } from '../../src/watch/scheduler.js';
import type { WatcherBackend } from '../../src/watch/watcher-backend.js';
import { runCli } from '../helpers/cli.js';
import { tempDir, writeTree } from '../helpers/tree.js';
import { cliEnv, converged, Recorder, watchSession } from './harness.js';

/**
 * Real time, except while `held`: time stands still (an event coming in after the
 * debounce would otherwise start a cycle at once) and timers coming due wait for
 * release(). The daemon's cycles stop, its watcher does not.
 */
class GatedClock implements Clock {
  private heldAt: number | null = null;
  private due: (() => void)[] = [];
  get held(): boolean {
    return this.heldAt !== null;
  }
  set held(on: boolean) {
    this.heldAt = on ? (this.heldAt ?? performance.now()) : null;
  }
  now = (): number => this.heldAt ?? performance.now();
  setTimeout = (fn: () => void, ms: number): unknown => {
    const h = { fn, live: true, t: undefined as NodeJS.Timeout | undefined };
    h.t = setTimeout(() => (this.held ? this.due.push(() => h.live && fn()) : fn()), ms);
    return h;
  };
  clearTimeout = (h: unknown): void => {
    const t = h as { live: boolean; t: NodeJS.Timeout };
    t.live = false;
    clearTimeout(t.t);
  };
  release(): void {
    this.held = false;
    for (const fn of this.due.splice(0)) fn();
  }
}

/** A seeded generator (mulberry32): the same edits on every run. */
function prng(seed: number): () => number {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

interface StatusJson {
  changes: { path: string; kind: string; from?: string }[];
  conflicts: { path: string }[];
  drift: { path: string }[];
  elsewhere: { path: string }[];
  remoteOnly: number;
  local: { source: string; read: number | null; why: string | null; by: string };
}

/** What a status answers, without how it found the local side. */
const answerOf = (s: StatusJson) => ({
  changes: [...s.changes].map((c) => JSON.stringify(c)).sort(),
  conflicts: s.conflicts.map((c) => c.path).sort(),
  drift: s.drift.map((d) => d.path).sort(),
  elsewhere: s.elsewhere.map((e) => e.path).sort(),
  remoteOnly: s.remoteOnly,
});

async function filesUnder(root: string, rel = ''): Promise<string[]> {
  const out: string[] = [];
  for (const d of await readdir(path.join(root, rel), { withFileTypes: true })) {
    const p = rel ? `${rel}/${d.name}` : d.name;
    if (d.name === '.hostsync' || d.name === 'hostsync.json') continue;
    if (d.isDirectory()) out.push(...(await filesUnder(root, p)));
    else out.push(p);
  }
  return out;
}

/** One random edit of the tree: modify, create, delete, rename a file or a folder, chmod, a new folder of files. */
async function randomEdit(root: string, rnd: () => number, n: number): Promise<string> {
  const files = await filesUnder(root);
  const pick = <T>(xs: T[]): T => xs[Math.floor(rnd() * xs.length)]!;
  const f = pick(files);
  switch (Math.floor(rnd() * 7)) {
    case 0:
      await writeFile(path.join(root, f), `edited ${n}\n`, { flag: 'a' });
      return `modify ${f}`;
    case 1:
      await writeFile(path.join(root, `src/new-${n}.js`), `export const n = ${n};\n`);
      return `create src/new-${n}.js`;
    case 2:
      await rm(path.join(root, f));
      return `delete ${f}`;
    case 3:
      await rename(path.join(root, f), path.join(root, path.dirname(f), `moved-${n}-${path.basename(f)}`));
      return `rename ${f}`;
    case 4: {
      const dirs = [...new Set(files.map((x) => path.dirname(x)).filter((d) => d !== '.' && d.includes('/')))];
      if (dirs.length === 0) return 'none';
      const d = pick(dirs);
      await rename(path.join(root, d), path.join(root, `${d}-r${n}`));
      return `rename folder ${d}`;
    }
    case 5:
      await chmod(path.join(root, f), 0o755);
      return `chmod ${f}`;
    default:
      // (Files only: a folder that arrives holding folders makes the native watcher owe a full rescan.)
      await mkdir(path.join(root, `lib/made-${n}`), { recursive: true });
      await writeTree(path.join(root, `lib/made-${n}`), { 'a.txt': `a ${n}\n`, 'c.txt': `c ${n}\n` });
      return `folder lib/made-${n}`;
  }
}

let emu: RunningEmulator;
beforeAll(async () => {
  emu = await startEmulator({ runtime: 'static', rateLimit: 1_000_000, userRateLimit: 1_000_000 });
});
afterAll(async () => {
  await emu?.close();
});

const backends: WatcherBackend[] = (await loadNativeWatcher()) ? ['chokidar', 'native'] : ['chokidar'];

describe.each(backends)('status with a running watch (%s watcher)', (backend) => {
  it('asks the watch, reads only what changed, and answers as a scan does, over three rounds of random edits with remote edits beside them', async () => {
    const files: Record<string, string> = { 'index.html': '<title>t</title>\n', 'start.sh': '#!/bin/sh\n', 'lib/README.txt': 'lib\n' };
    for (const d of ['a', 'b', 'c']) for (let i = 0; i < 12; i++) files[`src/${d}/sub/f${i}.js`] = `export const v = "${d}${i}";\n`;
    const { dir: root, cleanup } = await tempDir('hostsync-watch-query-');
    await writeTree(root, files);
    const dep = await emu.createDeployment({ runtime: 'static' });
    const session = await watchSession(emu, root, dep.id);
    const rec = new Recorder();
    const clock = new GatedClock();
    const env = cliEnv(emu, dep.id);
    // As `hostsync watch` runs it: able to work out a whole status for a command that asks.
    const daemon = await startWatch(session, { noApply: true, backend, onEvent: rec.onEvent, clock, answerStatus: statusAnswerer({ dir: root, env }) });
    const status = async (...flags: string[]): Promise<StatusJson> => {
      const r = await runCli(['status', '--json', ...flags], env, { cwd: root });
      expect([0, 3], r.stderr).toContain(r.code);
      return JSON.parse(r.stdout) as StatusJson;
    };
    try {
      await rec.waitFor((e) => e.type === 'ready');
      await converged(daemon, root, dep.volume);
      const rnd = prng(32);
      let n = 0;
      for (let round = 0; round < 3; round++) {
        clock.held = true;
        const done: string[] = [];
        for (let i = 0; i < 6; i++) done.push(await randomEdit(root, rnd, n++));
        // Beside them, the deployment changes too: a file the tree changed (a conflict when
        // it was modified here) and one it did not (drift).
        const remote = (await filesUnder(dep.volume)).filter((p) => !p.startsWith('.hostsync'));
        await writeFile(path.join(dep.volume, remote[round]!), `remote edit ${round}\n`);
        const asked = await status();
        const scanned = await status('--scan');
        expect(scanned.local).toEqual({ source: 'scan', read: null, why: '--scan', by: 'command' });
        expect(answerOf(asked), done.join('; ')).toEqual(answerOf(scanned));
        expect(asked.changes.length).toBeGreaterThan(0);
        if (backend === 'native') {
          expect(asked.local.source, `${asked.local.why} ${JSON.stringify(rec.events.filter((e) => e.type === 'rescan'))} ${done.join('; ')}`).toBe('watch');
          // The watch worked out the whole status; the command only printed it.
          expect(asked.local.by).toBe('watch');
          // Only what changed was read, not the tree.
          expect(asked.local.read).toBeLessThan(Object.keys(files).length);
        } else {
          // chokidar's events are not in order across folders: it never answers.
          expect(asked.local.source).toBe('scan');
          expect(asked.local.why).toContain('chokidar');
          expect(asked.local.by).toBe('command');
        }
        if (round === 0) {
          // A whole-tree diff asks the same way, and shows the same files.
          const diffOf = async (...flags: string[]) => {
            const r = await runCli(['diff', '--json', ...flags], env, { cwd: root });
            expect(r.code, r.stderr).toBe(0);
            const d = JSON.parse(r.stdout) as { files: { path: string; side: string; change: string }[]; local: StatusJson['local'] };
            return { files: d.files.map((f) => `${f.side} ${f.change} ${f.path}`).sort(), source: d.local.source };
          };
          const [dAsked, dScanned] = [await diffOf(), await diffOf('--scan')];
          expect(dAsked.files).toEqual(dScanned.files);
          expect(dAsked.source).toBe(backend === 'native' ? 'watch' : 'scan');
          expect(dScanned.source).toBe('scan');
        }
        // Let the watch sync this round: conflicts and drift stay different from the base, as the daemon knows.
        clock.release();
        await daemon.whenIdle();
        // Held again: the idle check of the writes just sent (a second later) would save the
        // base during the comparison, and status would rightly scan instead.
        clock.held = true;
        const settled = await status();
        expect(settled.local.source, settled.local.why ?? '').toBe(backend === 'native' ? 'watch' : 'scan');
        expect(settled.local.by).toBe(backend === 'native' ? 'watch' : 'command');
        expect(answerOf(settled)).toEqual(answerOf(await status('--scan')));
      }
    } finally {
      clock.release();
      await daemon.stop();
      await session.close();
      await cleanup();
    }
  });
});

/**
 * A native-watcher watch on a two-file tree, able to work out a status for a command (as
 * `hostsync watch` runs it), started and synced. stop() ends the watch; cleanup() removes the tree.
 */
async function answeringWatch(on: RunningEmulator, name: string, clock?: Clock) {
  const { dir: root, cleanup } = await tempDir(`hostsync-watch-query-${name}-`);
  await writeTree(root, { 'index.html': '<title>t</title>\n', 'a.txt': 'a\n' });
  const dep = await on.createDeployment({ runtime: 'static' });
  const session = await watchSession(on, root, dep.id);
  const rec = new Recorder();
  const env = cliEnv(on, dep.id);
  const daemon = await startWatch(session, { noApply: true, backend: 'native', onEvent: rec.onEvent, ...(clock ? { clock } : {}), answerStatus: statusAnswerer({ dir: root, env }) });
  const stop = async (): Promise<void> => {
    await daemon.stop();
    await session.close();
  };
  try {
    await rec.waitFor((e) => e.type === 'ready');
    await converged(daemon, root, dep.volume);
  } catch (err) {
    await stop();
    await cleanup();
    throw err;
  }
  return { root, env, stop, cleanup };
}

/** What this process writes to stdout while `fn` runs, a write each: how the status short path prints. */
async function printedBy(fn: (printed: string[]) => Promise<void>): Promise<string[]> {
  const printed: string[] = [];
  const write = process.stdout.write;
  process.stdout.write = ((chunk: string) => printed.push(String(chunk)) > 0) as typeof process.stdout.write;
  try {
    await fn(printed);
  } finally {
    process.stdout.write = write;
  }
  return printed;
}

/** `hostsync status --dir root ...flags` through the short path, in this process. */
const askedInProcess = (root: string, env: Record<string, string>, ...flags: string[]) => statusFromWatch(['node', 'hostsync', 'status', '--dir', root, ...flags], env);

type StatusWithRequests = StatusJson & { requests: { total: number } };

describe('status falls back to a scan, and says why', () => {
  it.runIf(backends.includes('native'))('when the status process sees the tree through another HOSTSYNC_FS than the watch; with no watch, it scans without a reason', async () => {
    const { root, env, stop, cleanup } = await answeringWatch(emu, 'view');
    try {
      const other = await runCli(['status', '--json'], { ...env, HOSTSYNC_FS: 'no-exec' }, { cwd: root });
      const s = JSON.parse(other.stdout) as StatusJson;
      expect(s.local.source).toBe('scan');
      expect(s.local.why).toContain('HOSTSYNC_FS');
      // Another configuration: the watch does not work the status out for it.
      expect(s.local.by).toBe('command');
      const text = await runCli(['status'], env, { cwd: root });
      expect(text.stdout).toContain('answered by the watch: 0 paths read, no scan');
      // What the command would have asked for itself: the watch's answer would not do.
      const changesOnly = await runCli(['status', '--log-level', 'info'], env, { cwd: root });
      expect(changesOnly.stdout).toContain('asked the watch what changed: 0 paths read, no scan');
      // In this process too (the library's main() and the fast path it starts with): only a
      // plain status is answered; a flag it does not know, or diagnostics, leave it to the command.
      const printed = await printedBy(async (out) => {
        expect(await askedInProcess(root, env, '--json')).toBe(0);
        expect(JSON.parse(out.join('')).local).toEqual({ source: 'watch', read: 0, why: null, by: 'watch' });
        expect(await askedInProcess(root, env, '--scan')).toBeNull();
        expect(await askedInProcess(root, env, '--log-level', 'debug')).toBeNull();
        expect(await askedInProcess(root, { ...env, HOSTSYNC_LOG_LEVEL: 'debug' })).toBeNull();
        expect(await askedInProcess(root, env, 'extra')).toBeNull();
        expect(await askedInProcess(root, env, '--deployment', 'dep_other')).toBeNull();
      });
      expect(printed).toHaveLength(1);
    } finally {
      await stop();
    }
    // The watch has stopped: its socket is gone and status scans, with nothing to explain.
    const alone = JSON.parse((await runCli(['status', '--json'], env, { cwd: root })).stdout) as StatusJson;
    expect(alone.local).toEqual({ source: 'scan', read: null, why: null, by: 'command' });
    await cleanup();
  });
});

describe('a status asked the moment a file is saved', () => {
  // The watch prepares the answer while its probe file makes its round trip through the
  // watcher (daemon.ts answerStatus), and takes what changed only once the probe is in: a
  // save the watcher had not reported yet when the question arrived is in the answer.
  it.runIf(backends.includes('native'))('names that file, though the watcher reported it only after the question arrived', async () => {
    // An emulator and key of its own: the rounds above spent most of the shared key's client-side budget.
    const own = await startEmulator({ runtime: 'static', rateLimit: 1_000_000, userRateLimit: 1_000_000 });
    const clock = new GatedClock();
    const { root, env, stop, cleanup } = await answeringWatch(own, 'race', clock);
    try {
      // Held: the saves stay pending in the daemon (no cycle syncs them meanwhile).
      clock.held = true;
      for (let i = 0; i < 5; i++) {
        await writeFile(path.join(root, `saved-${i}.txt`), `saved ${i}\n`);
        // In this process, at once: the question reaches the watch within the watcher's batching of the save.
        const printed = await printedBy(async () => expect(await askedInProcess(root, env, '--json')).toBe(0));
        const s = JSON.parse(printed.join('')) as StatusWithRequests;
        expect(s.local.by).toBe('watch');
        // Its two requests (the index and the record), once: what changed was known before either.
        expect(s.requests.total).toBe(2);
        expect(s.changes.map((c) => c.path).sort(), `save ${i}: ${JSON.stringify(s.local)}`).toEqual(Array.from({ length: i + 1 }, (_, k) => `saved-${k}.txt`));
      }
    } finally {
      clock.release();
      await stop();
      await own.close();
      await cleanup();
    }
  });
});

describe('a status the watch works out', () => {
  it.runIf(backends.includes('native'))("reads no stat cache file (the watch lends its own), and still reads a file saved since the watch's last cycle", async () => {
    const own = await startEmulator({ runtime: 'static', rateLimit: 1_000_000, userRateLimit: 1_000_000 });
    const clock = new GatedClock();
    const { root, env, stop, cleanup } = await answeringWatch(own, 'lent', clock);
    const loads = vi.spyOn(StatCache, 'load');
    try {
      clock.held = true;
      for (let i = 0; i < 3; i++) {
        await writeFile(path.join(root, 'a.txt'), `edit ${i}\n`);
        const printed = await printedBy(async () => expect(await askedInProcess(root, env, '--json')).toBe(0));
        const s = JSON.parse(printed.join('')) as StatusJson;
        expect([s.local.by, s.local.read]).toEqual(['watch', 1]);
        expect(s.changes.map((c) => [c.path, c.kind])).toEqual([['a.txt', 'write']]);
      }
      expect(loads).not.toHaveBeenCalled();
    } finally {
      loads.mockRestore();
      clock.release();
      await stop();
      await own.close();
      await cleanup();
    }
  });

  it.runIf(backends.includes('native'))("goes over the watch's warm connections: no new connection per status", async () => {
    const own = await startEmulator({ runtime: 'static', rateLimit: 1_000_000, userRateLimit: 1_000_000 });
    // Every connection to the service goes through this proxy, which counts them.
    let connections = 0;
    const upstream = new URL(own.baseUrl);
    const proxy = net.createServer((c) => {
      connections++;
      const u = net.connect(Number(upstream.port), upstream.hostname);
      c.pipe(u).pipe(c);
      c.on('error', () => u.destroy());
      u.on('error', () => c.destroy());
    });
    await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
    const proxied = { ...own, baseUrl: `http://127.0.0.1:${(proxy.address() as net.AddressInfo).port}` } as RunningEmulator;
    const { root, env, stop, cleanup } = await answeringWatch(proxied, 'conn');
    try {
      const before = connections;
      const printed = await printedBy(async () => {
        for (let i = 0; i < 4; i++) expect(await askedInProcess(root, env, '--json')).toBe(0);
      });
      const answers = printed.map((line) => JSON.parse(line) as StatusWithRequests);
      expect(answers.map((a) => [a.local.by, a.requests.total])).toEqual(Array(4).fill(['watch', 2]));
      // Each status asks two things at once: at most two connections more than the watch had,
      // however many statuses (a client of its own per status would open two each).
      expect(connections - before).toBeLessThanOrEqual(2);
    } finally {
      await stop();
      await new Promise<void>((resolve) => proxy.close(() => resolve()));
      await own.close();
      await cleanup();
    }
  });
});

describe('a status beside a watch after its own writes (issue 45, item 4)', () => {
  it.runIf(backends.includes('native'))('reads the tree past the index cap once, then asks with that digest: two requests while nothing changes, the same answer as a scan', async () => {
    // A small index cap: a tree of 120 files is read in pages, as 100k files are at the real cap.
    const own = await startEmulator({ runtime: 'static', rateLimit: 1_000_000, userRateLimit: 1_000_000, indexMaxEntries: 40 });
    const { dir: root, cleanup } = await tempDir('hostsync-watch-query-shelf-');
    const files: Record<string, string> = {};
    for (let i = 0; i < 120; i++) files[`src/d${i % 6}/f${i}.js`] = `export const v = ${i};\n`;
    await writeTree(root, files);
    const dep = await own.createDeployment({ runtime: 'static' });
    const session = await watchSession(own, root, dep.id);
    const rec = new Recorder();
    const env = cliEnv(own, dep.id);
    const daemon = await startWatch(session, { noApply: true, backend: 'native', onEvent: rec.onEvent, answerStatus: statusAnswerer({ dir: root, env }) });
    try {
      await rec.waitFor((e) => e.type === 'ready');
      await converged(daemon, root, dep.volume);
      // The watch writes: state.bin's whole read no longer describes the deployment.
      await writeFile(path.join(root, 'src/d1/f7.js'), 'export const v = "edited";\n');
      await converged(daemon, root, dep.volume);
      await daemon.whenIdle();
      const ask = async (): Promise<StatusWithRequests> => {
        const printed = await printedBy(async () => expect(await askedInProcess(root, env, '--json')).toBe(0));
        return JSON.parse(printed.join('')) as StatusWithRequests;
      };
      const first = await ask();
      expect(first.local.by).toBe('watch');
      expect(first.requests.total).toBeGreaterThan(2);
      for (let i = 0; i < 3; i++) {
        const again = await ask();
        expect(again.local.by).toBe('watch');
        expect(again.requests.total).toBe(2);
        expect(answerOf(again)).toEqual(answerOf(first));
      }
      // A remote edit since: the digest says so, the tree is read again, and the drift shows.
      await writeFile(path.join(dep.volume, 'src/d2/f8.js'), 'theirs\n');
      const after = await ask();
      expect(after.drift.map((d) => d.path)).toEqual(['src/d2/f8.js']);
      const scanned = JSON.parse((await runCli(['status', '--json', '--scan'], env, { cwd: root })).stdout) as StatusJson;
      expect(answerOf(after)).toEqual(answerOf(scanned));
    } finally {
      await daemon.stop();
      await session.close();
      await own.close();
      await cleanup();
    }
  });
});

describe('the chokidar watcher', () => {
  it('reports a chmod alone (chokidar itself reports a change only when the mtime moved): +x reaches the deployment', async () => {
    const { dir: root, cleanup } = await tempDir('hostsync-watch-chmod-');
    await writeTree(root, { 'index.html': '<title>t</title>\n', 'start.sh': '#!/bin/sh\necho hi\n' });
    const dep = await emu.createDeployment({ runtime: 'static' });
    const session = await watchSession(emu, root, dep.id);
    const rec = new Recorder();
    const daemon = await startWatch(session, { noApply: true, backend: 'chokidar', onEvent: rec.onEvent });
    try {
      await rec.waitFor((e) => e.type === 'ready');
      await converged(daemon, root, dep.volume);
      const mark = rec.events.length;
      await chmod(path.join(root, 'start.sh'), 0o755);
      await rec.waitFor((e) => e.type === 'cycle' && e.changes.some((c) => c.kind === 'chmod' && c.path === 'start.sh'), mark);
      expect((await stat(path.join(dep.volume, 'start.sh'))).mode & 0o111).not.toBe(0);
    } finally {
      await daemon.stop();
      await session.close();
      await cleanup();
    }
  });
});
