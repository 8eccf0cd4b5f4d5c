import { mkdirSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FS_TIMESTAMP_SLACK_MS } from '../../src/watch/tunables.js';
import { createIgnoreMatcher, DEFAULT_IGNORE_PATTERNS } from '../../src/local/ignore.js';
import type { Watcher } from '../../src/local/watcher.js';
import { loadNativeWatcher, nativeIgnoreList, startNativeWatcher, type NativeWatcherOptions } from '../../src/watch/native-watcher.js';
import { atLeastFiles } from '../../src/watch/watcher-backend.js';
import { tempDir, writeTree } from '../helpers/tree.js';

const matcher = createIgnoreMatcher([...DEFAULT_IGNORE_PATTERNS, 'dist/']);

describe('nativeIgnoreList and atLeastFiles', () => {
  it('names ignored folders present now and the default heavy ones at any depth', async () => {
    const { dir, cleanup } = await tempDir('hostsync-native-');
    try {
      await writeTree(dir, { 'src/a.js': '', 'dist/b.js': '', 'pkg/node_modules/x/i.js': '', '.git/HEAD': '' });
      const list = nativeIgnoreList(dir, matcher);
      expect(list).toContain('**/node_modules');
      expect(list).toContain('**/.git');
      expect(list).toContain(path.join(dir, 'dist'));
      expect(list).toContain(path.join(dir, 'pkg/node_modules'));
      expect(list.some((p) => p.endsWith(`${path.sep}src`))).toBe(false);
      // A re-included default is not handed over as an any-depth glob.
      expect(nativeIgnoreList(dir, createIgnoreMatcher([...DEFAULT_IGNORE_PATTERNS, '!node_modules/']))).not.toContain('**/node_modules');

      expect(atLeastFiles(dir, matcher, 1)).toBe(true);
      expect(atLeastFiles(dir, matcher, 2)).toBe(false); // dist/, node_modules/ and .git/ do not count
    } finally {
      await cleanup();
    }
  });
});

const api = await loadNativeWatcher();

describe.skipIf(api === null)('native watcher', () => {
  let root: string;
  let cleanup: () => Promise<void>;
  let watcher: Watcher | undefined;
  let seen: Set<string>;
  let rescans: string[];

  beforeEach(async () => {
    ({ dir: root, cleanup } = await tempDir('hostsync-native-'));
    await writeTree(root, { 'src/app.js': '1\n', 'dist/out.js': 'x\n' });
    seen = new Set();
    rescans = [];
    watcher = await startNativeWatcher(api!, {
      root,
      matcher,
      onEvents: (paths) => paths.forEach((p) => seen.add(p)),
      onError: (err) => rescans.push(`error: ${err.message}`),
      onRescan: (reason) => rescans.push(reason),
    });
  });
  afterEach(async () => {
    await watcher?.close();
    await cleanup();
  });

  const until = async (rel: string): Promise<void> => {
    while (!seen.has(rel)) await sleep(20);
  };

  it('reports a save, never an ignored path', async () => {
    await writeFile(path.join(root, 'dist/out.js'), 'y\n');
    await writeFile(path.join(root, 'src/app.js'), '2\n');
    await until('src/app.js');
    expect([...seen].some((p) => p.startsWith('dist'))).toBe(false);
  });

  it('repairs its blind spot: folders that arrive with subfolders (mkdir -p) are watched', async () => {
    // In one synchronous burst: the watcher sees only "a" created, never a/b or a/b/c.
    mkdirSync(path.join(root, 'a/b/c'), { recursive: true });
    writeFileSync(path.join(root, 'a/b/c/first.txt'), '1');
    await until('a');
    // Whether the backend saw a/b itself or the repair re-subscribed (announced as a
    // rescan naming "a"), an edit deep inside must be reported. Saves repeat until it is:
    // one made while the repair is still subscribing may be missed, but never all of them.
    for (let i = 0; !seen.has('a/b/c/later.txt'); i++) {
      await writeFile(path.join(root, 'a/b/c/later.txt'), `deep ${i}`);
      await sleep(200);
    }
    // Any repair round says why (its exact list of folders depends on timing under load).
    for (const r of rescans) expect(r).toMatch(/new folders with subfolders/);
  });
});

type ParcelApi = Parameters<typeof startNativeWatcher>[0];
type ParcelCallback = Parameters<ParcelApi['subscribe']>[1];
type ParcelEvent = Parameters<ParcelCallback>[1][number];

/**
 * Stands in for @parcel/watcher so a test decides exactly which events arrive and when a
 * subscription fails: the real backend's timing cannot be steered.
 */
class FakeParcel implements ParcelApi {
  live: ParcelCallback[] = [];
  attempts = 0;
  failuresLeft = 0;
  async subscribe(_dir: string, fn: ParcelCallback): Promise<{ unsubscribe(): Promise<void> }> {
    this.attempts++;
    if (this.failuresLeft > 0) {
      this.failuresLeft--;
      throw new Error('inotify_add_watch failed: No space left on device');
    }
    this.live.push(fn);
    return { unsubscribe: async () => void (this.live = this.live.filter((f) => f !== fn)) };
  }
  /** Delivers one batch to the live subscription, synchronously, as the native callback would. */
  emit(events: ParcelEvent[]): void {
    for (const fn of this.live) fn(null, events);
  }
}

describe('native watcher resilience (scripted backend)', () => {
  let root: string;
  let cleanup: () => Promise<void>;
  let watcher: Watcher | undefined;
  let fake: FakeParcel;
  let batches: string[][];
  let errors: Error[];
  let rescans: string[];
  const abs = (rel: string): string => path.join(root, ...rel.split('/'));

  beforeEach(async () => {
    ({ dir: root, cleanup } = await tempDir('hostsync-native-fake-'));
    await writeTree(root, { 'a/b/f.txt': 'x', 'keep.txt': 'k' });
    fake = new FakeParcel();
    batches = [];
    errors = [];
    rescans = [];
  });
  afterEach(async () => {
    await watcher?.close();
    watcher = undefined;
    await cleanup();
  });

  const start = async (extra: Partial<NativeWatcherOptions> = {}): Promise<void> => {
    watcher = await startNativeWatcher(fake, {
      root,
      matcher,
      onEvents: (paths) => batches.push(paths),
      onError: (err) => errors.push(err),
      onRescan: (reason) => rescans.push(reason),
      ...extra,
    });
  };

  it('late events under a folder replaced by a file (ENOTDIR) are reported as gone, never thrown', async () => {
    await start();
    rmSync(abs('a'), { recursive: true });
    writeFileSync(abs('a'), 'now a file');
    const late: ParcelEvent[] = [
      { path: abs('a/b/f.txt'), type: 'delete' },
      { path: abs('a/b'), type: 'delete' },
      { path: abs('a'), type: 'create' },
    ];
    expect(() => fake.emit(late)).not.toThrow();
    expect(batches).toEqual([['a/b/f.txt', 'a/b', 'a']]);
    expect(errors).toEqual([]);
  });

  it('anything thrown while handling a batch goes to onError (a full rescan), not out of the callback', async () => {
    await start({
      onEvents: () => {
        throw new Error('consumer failed');
      },
    });
    expect(() => fake.emit([{ path: abs('keep.txt'), type: 'update' }])).not.toThrow();
    expect(errors.map((e) => e.message)).toEqual(['consumer failed']);
  });

  it('a failed re-subscription (ENOSPC) is retried with a doubling, capped backoff, each failure reported', async () => {
    const waits: number[] = [];
    let rescannedNow: () => void = () => {};
    const rescanned = new Promise<void>((resolve) => (rescannedNow = resolve));
    await start({
      resubscribeWait: async (ms) => void waits.push(ms),
      onRescan: (reason) => (rescans.push(reason), rescannedNow()),
    });
    mkdirSync(abs('n/m'), { recursive: true });
    await settle();
    fake.failuresLeft = 7;
    fake.emit([{ path: abs('n'), type: 'create' }]); // arrived holding a subfolder: re-subscribe
    await rescanned;
    const failures = errors.filter((e) => /could not re-subscribe \(inotify_add_watch failed: No space left on device\)/.test(e.message));
    expect(failures).toHaveLength(7);
    expect(waits).toEqual([1000, 2000, 4000, 8000, 16000, 30000, 30000]);
    expect(fake.attempts).toBe(1 + 8);
    expect(rescans).toEqual([expect.stringMatching(/new folders with subfolders \(n\)/)]);
    // Subscribed again, and changes are seen again.
    expect(fake.live).toHaveLength(1);
    fake.emit([{ path: abs('keep.txt'), type: 'update' }]);
    expect(batches.at(-1)).toEqual(['keep.txt']);
  });

  it('close() ends a re-subscription backoff at once and stops the retries', async () => {
    const waits: number[] = [];
    let waiting: () => void = () => {};
    const blocked = new Promise<void>((resolve) => (waiting = resolve));
    await start({
      resubscribeWait: (ms, signal) => {
        waits.push(ms);
        if (waits.length < 3) return Promise.resolve();
        waiting();
        return new Promise((_, reject) => signal.addEventListener('abort', () => reject(signal.reason)));
      },
    });
    mkdirSync(abs('n/m'), { recursive: true });
    fake.failuresLeft = Number.POSITIVE_INFINITY;
    fake.emit([{ path: abs('n'), type: 'create' }]);
    await blocked;
    const attempts = fake.attempts;
    const reported = errors.length;
    await watcher!.close();
    await sleep(0);
    expect(fake.attempts).toBe(attempts);
    expect(errors).toHaveLength(reported);
    expect(fake.live).toEqual([]);
  });

  /** Waits until every folder is older than the "born during the crawl" window, so one repair round suffices. */
  async function settle(): Promise<void> {
    const newest = (dir: string): number =>
      readdirSync(dir, { withFileTypes: true })
        .filter((d) => d.isDirectory())
        .reduce((m, d) => {
          const st = statSync(path.join(dir, d.name));
          return Math.max(m, st.birthtimeMs, st.ctimeMs, newest(path.join(dir, d.name)));
        }, 0);
    const since = newest(root) + FS_TIMESTAMP_SLACK_MS + 1;
    while (Date.now() <= since) await sleep(5);
  }
});
