import { mkdirSync, writeFileSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createIgnoreMatcher, DEFAULT_IGNORE_PATTERNS } from '../../src/local/ignore.js';
import type { Watcher } from '../../src/local/watcher.js';
import { loadNativeWatcher, nativeIgnoreList, startNativeWatcher } from '../../src/watch/native-watcher.js';
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
    for (const r of rescans) expect(r).toMatch(/new folders with subfolders \(a[,)]/);
  });
});
