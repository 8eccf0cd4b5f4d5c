import { appendFile, mkdir, rename, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createIgnoreMatcher, DEFAULT_IGNORE_PATTERNS } from '../../src/local/ignore.js';
import { ignoredPredicate, lstatOrGone, startWatcher, type Watcher } from '../../src/local/watcher.js';
import { tempDir, writeTree } from '../helpers/tree.js';

const matcher = createIgnoreMatcher([...DEFAULT_IGNORE_PATTERNS, 'dist/', '*.log']);

/** Collects every reported path and lets a test wait (without a deadline of its own) for one to show up. */
class Recorder {
  readonly seen: string[] = [];
  readonly batches: string[][] = [];
  readonly errors: Error[] = [];
  private waiters: { path: string; resolve: () => void }[] = [];

  onEvents = (paths: string[]): void => {
    this.batches.push(paths);
    this.seen.push(...paths);
    this.waiters = this.waiters.filter((w) => {
      if (!paths.includes(w.path)) return true;
      w.resolve();
      return false;
    });
  };

  onError = (err: Error): void => {
    this.errors.push(err);
  };

  /** Resolves once `rel` has been reported after this call (the test timeout bounds the wait). */
  next(rel: string): Promise<void> {
    return new Promise((resolve) => this.waiters.push({ path: rel, resolve }));
  }
}

let root: string;
let cleanup: () => Promise<void>;
let watcher: Watcher | undefined;
let rec: Recorder;
beforeEach(async () => {
  ({ dir: root, cleanup } = await tempDir('hostsync-watch-'));
  await writeTree(root, {
    'index.html': '<h1>hi</h1>\n',
    'src/app.js': 'console.log(1)\n',
    'node_modules/pkg/index.js': 'module.exports = 1\n',
    'dist/out.js': 'built\n',
  });
  rec = new Recorder();
  let ready = false;
  watcher = await startWatcher({ root, matcher, onEvents: rec.onEvents, onError: rec.onError, onReady: () => (ready = true) });
  expect(ready).toBe(true);
});
afterEach(async () => {
  await watcher?.close();
  await cleanup();
});

describe('startWatcher', () => {
  it('reports a write to an existing file, as a relative POSIX path', async () => {
    const seen = rec.next('src/app.js');
    await appendFile(path.join(root, 'src', 'app.js'), 'console.log(2)\n');
    await seen;
    expect(rec.errors).toEqual([]);
  });

  it('reports an editor-style atomic save (temp file + rename over the original)', async () => {
    const seen = rec.next('index.html');
    const tmp = path.join(root, '.index.html.swx-tmp');
    await writeFile(tmp, '<h1>saved</h1>\n');
    await rename(tmp, path.join(root, 'index.html'));
    await seen;
  });

  it('reports new files and directories, and deletions', async () => {
    const file = rec.next('src/lib/util.js');
    await mkdir(path.join(root, 'src', 'lib'));
    await writeFile(path.join(root, 'src', 'lib', 'util.js'), 'export {}\n');
    await file;
    const gone = rec.next('src/app.js');
    await rm(path.join(root, 'src', 'app.js'));
    await gone;
    expect(rec.seen).toContain('src/lib');
  });

  it('never reports an ignored path', async () => {
    await writeFile(path.join(root, 'node_modules', 'pkg', 'index.js'), 'changed\n');
    await mkdir(path.join(root, 'node_modules', 'newpkg'));
    await writeFile(path.join(root, 'node_modules', 'newpkg', 'a.js'), 'a\n');
    await writeFile(path.join(root, 'dist', 'out.js'), 'rebuilt\n');
    await writeFile(path.join(root, '.env'), 'SECRET=1\n');
    await writeFile(path.join(root, 'server.log'), 'line\n');
    await mkdir(path.join(root, '.hostsync'));
    await writeFile(path.join(root, '.hostsync', 'lock'), 'pid\n');
    // A sentinel written after all of them: once it is reported, the ignored writes
    // would have been too, had they been watched.
    const sentinel = rec.next('sentinel.txt');
    await writeFile(path.join(root, 'sentinel.txt'), 'done\n');
    await sentinel;
    const again = rec.next('sentinel.txt');
    await appendFile(path.join(root, 'sentinel.txt'), 'again\n');
    await again;
    for (const p of rec.seen) {
      const isDir = p === 'node_modules' || p === 'dist' || p === '.hostsync' || p.endsWith('newpkg');
      expect(matcher.ignores(p, isDir), `reported ignored path ${p}`).toBe(false);
    }
    expect(rec.seen.filter((p) => /node_modules|dist|\.env|\.log|\.hostsync/.test(p))).toEqual([]);
  });

  it('reports a file saved again inside chokidar\'s 50 ms change throttle', async () => {
    // chokidar drops a path's change events for 50 ms after reporting one, with no trailing
    // event: without the watcher's look-again the second save below is never reported.
    const file = path.join(root, 'src', 'app.js');
    const first = rec.next('src/app.js');
    await writeFile(file, 'console.log(2)\n');
    await first;
    const second = rec.next('src/app.js');
    await writeFile(file, 'console.log("saved again, longer")\n');
    await second;
    expect(rec.seen.filter((p) => p === 'src/app.js').length).toBeGreaterThanOrEqual(2);
  });

  it('stops reporting after close', async () => {
    await watcher!.close();
    await writeFile(path.join(root, 'after-close.txt'), 'x\n');
    // Nothing to wait for: a closed watcher has no pending work. A fresh watcher proves the
    // write itself was observable.
    const rec2 = new Recorder();
    const w2 = await startWatcher({ root, matcher, onEvents: rec2.onEvents, onError: rec2.onError });
    try {
      const seen = rec2.next('after-close-2.txt');
      await writeFile(path.join(root, 'after-close-2.txt'), 'y\n');
      await seen;
    } finally {
      await w2.close();
    }
    expect(rec.seen).not.toContain('after-close.txt');
  });
});

describe('watcher callbacks never throw', () => {
  it('the ignore predicate takes a path under what is now a file (ENOTDIR) as gone, not ignored', async () => {
    await writeFile(path.join(root, 'f'), 'a file where a folder was\n');
    const ignored = ignoredPredicate(root, matcher);
    // Only the directory rule "dist/" matches, so the predicate must lstat: ENOTDIR.
    expect(ignored(path.join(root, 'f', 'dist'))).toBe(false);
    expect(ignored(path.join(root, 'dist'))).toBe(true);
    expect(lstatOrGone(path.join(root, 'f', 'dist', 'x.js'))).toBeUndefined();
    expect(lstatOrGone(path.join(root, 'f'))?.isFile()).toBe(true);
  });

  it('an onEvents that throws reaches onError instead of ending the process', async () => {
    await watcher!.close();
    const errors: Error[] = [];
    const failed = new Promise<void>((resolve) => {
      void startWatcher({
        root,
        matcher,
        onEvents: () => {
          throw new Error('consumer failed');
        },
        onError: (err) => {
          errors.push(err);
          resolve();
        },
      }).then((w) => {
        watcher = w;
        return writeFile(path.join(root, 'index.html'), 'changed\n');
      });
    });
    await failed;
    expect(errors.map((e) => e.message)).toContain('consumer failed');
  });
});
