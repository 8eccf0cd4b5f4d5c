/**
 * Issue 5, item 5: real save patterns, each converging to a byte-identical volume, on
 * both watcher backends. Everything runs against the emulator on 127.0.0.1.
 */
import { execFileSync } from 'node:child_process';
import { mkdir, rename, unlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startEmulator, type RunningEmulator } from '../../src/emulator/index.js';
import type { Session } from '../../src/sync/session.js';
import { startWatch, type WatchDaemon } from '../../src/watch/daemon.js';
import type { WatcherBackend } from '../../src/watch/watcher-backend.js';
import { tempDir, writeTree } from '../helpers/tree.js';
import { converged, Recorder, requestsOf, watchSession } from './harness.js';
import { ownBudgetPerTest } from '../helpers/budget.js';

let emu: RunningEmulator;
beforeAll(async () => {
  // Every test here shares one key: a budget this file can never spend, so no test waits on
  // another's requests (rate limiting has its own test in resilience.test.ts).
  emu = await startEmulator({ runtime: 'static', rateLimit: 1_000_000, userRateLimit: 1_000_000 });
});
// The client's own pacing (120 a minute per key, through the shared ledger) likewise.
ownBudgetPerTest();
afterAll(async () => {
  await emu?.close();
});

const INITIAL = {
  // As `hostsync init` arranges: hostsync's own state is not versioned (a checkout or stash
  // that rewound .hostsync/ would rewind the base too).
  '.gitignore': '.hostsync/\n',
  'index.html': '<!doctype html><title>hi</title><h1>hi</h1>\n',
  'src/app.js': 'export const app = 1;\n',
  'src/util.js': 'export const util = 1;\n',
  'public/style.css': 'body { color: black }\n',
};

const git = (cwd: string, ...args: string[]): string =>
  execFileSync('git', ['-c', 'user.email=t@example.com', '-c', 'user.name=t', '-c', 'init.defaultBranch=main', ...args], { cwd, stdio: 'pipe' }).toString();

for (const backend of ['native', 'chokidar'] as WatcherBackend[]) {
  describe(`save patterns (${backend} watcher)`, () => {
    let root: string;
    let cleanup: () => Promise<void>;
    let volume: string;
    let session: Session;
    let daemon: WatchDaemon;
    let rec: Recorder;

    beforeEach(async () => {
      ({ dir: root, cleanup } = await tempDir('hostsync-watch-save-'));
      await writeTree(root, INITIAL);
      const dep = await emu.createDeployment({ runtime: 'static' });
      volume = dep.volume;
      session = await watchSession(emu, root, dep.id);
      rec = new Recorder();
      daemon = await startWatch(session, { noApply: true, backend, onEvent: rec.onEvent });
      expect(daemon.backend).toBe(backend);
      await converged(daemon, root, volume);
    });
    afterEach(async () => {
      await daemon?.stop();
      await session?.close();
      await cleanup();
    });

    it('in-place write', async () => {
      const before = rec.cycles().length;
      await writeFile(path.join(root, 'src/app.js'), 'export const app = 2;\n');
      await converged(daemon, root, volume);
      // A loaded machine may deliver the write as two events (truncate, then data): the
      // second cycle then finds nothing left to do (or the rest of the bytes). Together they
      // touched exactly the file.
      const cycles = rec.cycles().slice(before).filter((c) => c.trigger === 'change');
      expect(cycles.length).toBeGreaterThan(0);
      expect([...new Set(cycles.flatMap((c) => c.changes.map((ch) => ch.kind === 'rename' ? ch.to : ch.path)))]).toEqual(['src/app.js']);
      expect(cycles[0]!.ms).not.toBeNull();
    });

    it('write-temp-then-rename (VS Code style atomic save)', async () => {
      const tmp = path.join(root, 'src/.app.js.tmp-1234');
      await writeFile(tmp, 'export const app = "vscode";\n');
      await rename(tmp, path.join(root, 'src/app.js'));
      await converged(daemon, root, volume);
    });

    it('vim style: rename to backup, write anew, probe file, delete backup', async () => {
      const file = path.join(root, 'src/util.js');
      await rename(file, `${file}~`);
      await writeFile(path.join(root, 'src/4913'), '');
      await unlink(path.join(root, 'src/4913'));
      await writeFile(file, 'export const util = "vim";\n');
      await unlink(`${file}~`);
      await converged(daemon, root, volume);
    });

    it('JetBrains style: temp, rename original away, rename temp in, delete old', async () => {
      const file = path.join(root, 'src/app.js');
      await writeFile(`${file}___jb_tmp___`, 'export const app = "idea";\n');
      await rename(file, `${file}___jb_old___`);
      await rename(`${file}___jb_tmp___`, file);
      await unlink(`${file}___jb_old___`);
      await converged(daemon, root, volume);
    });

    it('delete-then-create', async () => {
      const file = path.join(root, 'public/style.css');
      await unlink(file);
      await sleep(5);
      await writeFile(file, 'body { color: red }\n');
      await converged(daemon, root, volume);
    });

    it('a save with unchanged content costs no request', async () => {
      const before = emu.stats().requests.total;
      const mark = rec.events.length;
      const cycles = daemon.cycles;
      const file = path.join(root, 'src/app.js');
      await writeFile(`${file}.tmp`, INITIAL['src/app.js']);
      await rename(`${file}.tmp`, file);
      while (daemon.cycles === cycles) await sleep(20);
      await daemon.whenIdle();
      // Timer-driven work may fall in the window on a slow run (the idle verification of
      // the previous test's write, a drift poll): the save's own cycle must cost nothing
      // (it reports no cycle event; any cycle that does is that background work).
      const others = rec.cyclesSince(mark);
      expect(others.filter((c) => c.trigger !== 'verify' && c.trigger !== 'poll')).toEqual([]);
      expect(emu.stats().requests.total - before).toBe(others.reduce((n, c) => n + c.requests, 0));
    });

    it('git checkout of another branch with hundreds of files, and back', async () => {
      // The branches are prepared while no daemon runs: the checkout itself is the burst.
      await daemon.stop();
      const gen: Record<string, string> = {};
      for (let i = 0; i < 300; i++) gen[`src/gen/m${i % 10}/file${i}.js`] = `export const v${i} = ${i};\n`;
      await writeTree(root, gen);
      git(root, 'init', '-q');
      git(root, 'add', '-A');
      git(root, 'commit', '-qm', 'main');
      git(root, 'checkout', '-qb', 'feature');
      for (let i = 0; i < 200; i++) await writeFile(path.join(root, `src/gen/m${i % 10}/file${i}.js`), `export const v${i} = "feature";\n`);
      for (let i = 250; i < 300; i++) await unlink(path.join(root, `src/gen/m${i % 10}/file${i}.js`));
      for (let i = 0; i < 50; i++) await writeTree(root, { [`src/feature/deep/er/new${i}.js`]: `export const n${i} = ${i};\n` });
      git(root, 'add', '-A');
      git(root, 'commit', '-qm', 'feature');
      git(root, 'checkout', '-q', 'main');
      daemon = await startWatch(session, { noApply: true, backend, onEvent: rec.onEvent });
      await converged(daemon, root, volume);

      git(root, 'checkout', '-q', 'feature');
      await converged(daemon, root, volume);
      // The new nested folders must be watched too: an edit deep inside them arrives.
      await writeFile(path.join(root, 'src/feature/deep/er/new7.js'), 'export const n7 = "edited";\n');
      await converged(daemon, root, volume);
      git(root, 'checkout', '-q', '.');
      git(root, 'checkout', '-q', 'main');
      await converged(daemon, root, volume);
    });

    it('git stash and stash pop', async () => {
      git(root, 'init', '-q');
      git(root, 'add', '-A');
      git(root, 'commit', '-qm', 'init');
      await writeFile(path.join(root, 'src/app.js'), 'export const app = "wip";\n');
      await writeFile(path.join(root, 'index.html'), '<h1>wip</h1>\n');
      await converged(daemon, root, volume);
      git(root, 'stash', '-q');
      await converged(daemon, root, volume);
      git(root, 'stash', 'pop', '-q');
      await converged(daemon, root, volume);
    });

    it('npm install creating node_modules/ costs zero requests', async () => {
      const mark = rec.events.length;
      const before = emu.stats().requests.total;
      const pkgs: Record<string, string> = {};
      for (let p = 0; p < 40; p++) {
        for (let f = 0; f < 5; f++) pkgs[`node_modules/pkg${p}/lib/f${f}.js`] = `module.exports = ${p * 10 + f};\n`;
        pkgs[`node_modules/pkg${p}/package.json`] = `{"name":"pkg${p}"}\n`;
      }
      pkgs['node_modules/.package-lock.json'] = '{}\n';
      await writeTree(root, pkgs);
      // A sentinel edit after the install: once it is live, every event before it was handled.
      await writeFile(path.join(root, 'sentinel.txt'), 'after install\n');
      await converged(daemon, root, volume);
      const spent = emu.stats().requests.total - before;
      // The idle verification check may have started after converged() returned: its
      // requests are counted already, its cycle event comes when it ends.
      await daemon.whenIdle();
      const cycles = rec.cyclesSince(mark);
      for (const c of cycles) {
        for (const ch of c.changes) expect(ch.kind === 'rename' ? ch.to : ch.path).toBe('sentinel.txt');
      }
      // Every request since the install belongs to the sentinel's cycle(s) or an idle check of it.
      expect(spent).toBeLessThanOrEqual(requestsOf(cycles));
      expect(cycles.filter((c) => c.changes.length > 0)).toHaveLength(1);
    });
  });
}

describe('bursts', () => {
  it('500 changed files sync in at most 5 requests plus apply', async () => {
    const { dir: root, cleanup } = await tempDir('hostsync-watch-burst-');
    const files: Record<string, string> = {};
    for (let i = 0; i < 500; i++) files[`assets/d${i % 20}/f${i}.txt`] = `version 1 of ${i}\n`;
    await writeTree(root, { ...INITIAL, ...files });
    const dep = await emu.createDeployment({ runtime: 'static' });
    const session = await watchSession(emu, root, dep.id);
    const rec = new Recorder();
    // A long quiet period and max wait: this test counts requests per burst, so the burst
    // must not be cut in two by a slow moment on a loaded machine. Past WATCH_BULK_PATHS
    // pending paths the quiet period is bulkQuietMs, so both are long (with debounceMs
    // alone, a 150 ms pause in the events split the burst once in CI: 2 cycles).
    const daemon = await startWatch(session, { onEvent: rec.onEvent, tunables: { debounceMs: 4_000, bulkQuietMs: 4_000, maxWaitMs: 30_000 } });
    try {
      await converged(daemon, root, dep.volume);
      const mark = rec.events.length;
      for (let i = 0; i < 500; i++) await writeFile(path.join(root, `assets/d${i % 20}/f${i}.txt`), `version 2 of ${i}, a little longer\n`);
      await converged(daemon, root, dep.volume);
      const cycles = rec.cyclesSince(mark).filter((c) => c.changes.length > 0);
      expect(cycles).toHaveLength(1);
      const c = cycles[0]!;
      expect(c.counts.written).toBe(500);
      const applies = c.byOperation['deployments.apply'] ?? 0;
      expect(applies).toBe(1);
      expect(c.requests - applies).toBeLessThanOrEqual(5);
      expect(c.healthy).toBe(true);
    } finally {
      await daemon.stop();
      await session.close();
      await cleanup();
    }
  });
});
