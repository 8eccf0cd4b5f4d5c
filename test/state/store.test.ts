import { existsSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { StateStore, type RemoteCache, type SyncState } from '../../src/state/store.js';
import { knownEqual, LazySnapshot } from '../../src/model/lazy-snapshot.js';
import { PackedWriter } from '../../src/local/packed-file.js';
import { file, snap } from '../sync/fixtures.js';
import { tempDir } from '../helpers/tree.js';

let work: { dir: string; cleanup: () => Promise<void> };
let dir: string;
beforeEach(async () => {
  work = await tempDir('hostsync-store-');
  dir = path.join(work.dir, '.hostsync', 'd1-abc');
});
afterEach(async () => {
  await work.cleanup();
});

/** The loaded state with its (lazy) snapshots made plain Maps, to compare with what was saved. */
const plain = (s: SyncState): SyncState => ({
  ...s,
  base: s.base && new Map(s.base),
  remote: s.remote && { ...s.remote, snapshot: new Map(s.remote.snapshot) },
});

const base = () => snap(file('a.txt', 'a'), file('bin/run', 'x', { x: true }));
const remote = (): RemoteCache => ({ digest: 'dg1', requestKey: 'rk1', snapshot: snap(file('a.txt', 'a')), symlinks: ['l'], leftovers: [] });

describe('StateStore', () => {
  it('starts empty: no base, no remote cache, nothing pending', async () => {
    expect(await new StateStore(dir, 'd1').load()).toEqual({ base: null, remote: null, applyPending: false });
  });

  it('saves and loads base and remote cache, also from a fresh store (another process)', async () => {
    await new StateStore(dir, 'd1').save({ base: base(), remote: remote() });
    const loaded = plain(await new StateStore(dir, 'd1').load());
    expect(loaded.base).toEqual(base());
    expect(loaded.remote).toEqual(remote());
    // .hostsync/ keeps itself out of git.
    expect(await readFile(path.join(work.dir, '.hostsync', '.gitignore'), 'utf8')).toBe('*\n');
  });

  it('sees a state another process wrote after its own save', async () => {
    const mine = new StateStore(dir, 'd1');
    await mine.save({ base: base(), remote: null });
    await new StateStore(dir, 'd1').save({ base: snap(file('other.txt', 'o')), remote: null });
    expect([...(await mine.load()).base!.keys()]).toEqual(['other.txt']);
  });

  const corruptions: [string, ((good: Buffer) => Buffer) | null][] = [
    ['garbage', () => Buffer.from('{ not a state')],
    ['the JSON state of an older release', () => Buffer.from(JSON.stringify({ version: 2, deploymentId: 'd1', base: { 'a.txt': ['0000000000000001', 1, 0] }, remote: null }))],
    ['another version', (good) => { const b = Buffer.from(good); b.writeUInt32LE(999, 4); return b; }],
    ['one flipped byte', (good) => { const b = Buffer.from(good); b[good.length - 30] ^= 0x01; return b; }],
    ['a file cut short', (good) => good.subarray(0, good.length - 9)],
    ['another deployment', null],
  ];
  it.each(corruptions)('treats %s as absent, never as an empty base to delete against', async (_name, corrupt) => {
    if (corrupt === null) await new StateStore(dir, 'other').save({ base: base(), remote: remote() });
    else {
      await new StateStore(dir, 'd1').save({ base: base(), remote: remote() });
      await writeFile(path.join(dir, 'state.bin'), corrupt(await readFile(path.join(dir, 'state.bin'))));
    }
    expect(await new StateStore(dir, 'd1').load()).toEqual({ base: null, remote: null, applyPending: false });
  });

  it('keeps entries that differ between base and remote, files without a hash, and remote-only and base-only paths', async () => {
    const b = snap(file('same.txt', 's'), file('changed.txt', 'old'), file('base-only.txt', 'b', { x: true }));
    const r = snap(file('same.txt', 's'), file('changed.txt', 'new', { x: true }), file('remote-only.txt', 'r'));
    r.set('big.bin', { path: 'big.bin', hash: null, size: 5e9, executable: false });
    const cache: RemoteCache = { digest: 'd', requestKey: 'k', snapshot: r, symlinks: [], leftovers: ['.hostsync-upload-1-a.tar.gz'] };
    await new StateStore(dir, 'd1').save({ base: b, remote: cache });
    const loaded = plain(await new StateStore(dir, 'd1').load());
    expect(loaded.base).toEqual(b);
    expect(loaded.remote).toEqual(cache);
    await new StateStore(dir, 'd1').save({ base: null, remote: cache });
    expect(plain(await new StateStore(dir, 'd1').load())).toMatchObject({ base: null, remote: cache });
  });

  it('answers a few lookups of base and remote without making their entries, as the Maps saved would', async () => {
    const b = snap(file('a/b.txt', 's'), file('a/c.txt', 'old'), file('a.txt', 'b', { x: true }), file('é/x', 'e'), file('z', 'z'));
    b.set('big.bin', { path: 'big.bin', hash: null, size: 5e9, executable: false });
    const r = snap(file('a/b.txt', 's'), file('a/c.txt', 'new', { x: true }), file('a/d.txt', 'r'), file('é/x', 'e'), file('z', 'z'));
    r.set('big.bin', { path: 'big.bin', hash: null, size: 5e9, executable: false });
    await new StateStore(dir, 'd1').save({ base: b, remote: { digest: 'd', requestKey: 'k', snapshot: r, symlinks: [], leftovers: [] } });
    const keys = ['a/b.txt', 'a/c.txt', 'a/d.txt', 'a.txt', 'a', 'a/', 'a/b', 'a/b.txt0', 'big.bin', 'é/x', 'é', 'z', 'zz', '', '0'];
    for (const key of keys) {
      const loaded = await new StateStore(dir, 'd1').load();
      const [lb, lr] = [loaded.base as LazySnapshot, loaded.remote!.snapshot as LazySnapshot];
      expect([lb.get(key), lb.has(key), lr.get(key), lr.has(key)], key).toEqual([b.get(key), b.has(key), r.get(key), r.has(key)]);
      expect(lb.lazy && lr.lazy, key).toBe(true);
    }
  });

  it('loads base and remote without making their entries, and knows when the cached remote equals the base', async () => {
    const b = snap(file('a.txt', 'a'), file('bin/run', 'x', { x: true }), file('c.txt', 'c'));
    await new StateStore(dir, 'd1').save({ base: b, remote: { digest: 'd', requestKey: 'k', snapshot: new Map(b), symlinks: [], leftovers: [] } });
    const loaded = await new StateStore(dir, 'd1').load();
    const lb = loaded.base as LazySnapshot;
    const lr = loaded.remote!.snapshot as LazySnapshot;
    expect(lb).toBeInstanceOf(LazySnapshot);
    expect([lb.lazy, lr.lazy, lb.size, lr.size]).toEqual([true, true, 3, 3]);
    expect(knownEqual(lr, lb)).toBe(true);
    expect(new Map(lr)).toEqual(b);
    expect(new Map(lb)).toEqual(b);
    // A change to either ends what was known.
    lr.delete('c.txt');
    expect(knownEqual(lr, lb)).toBe(false);

    const differs: [string, (r: Map<string, ReturnType<typeof file>>) => void][] = [
      ['one remote entry differs', (r) => r.set('c.txt', file('c.txt', 'C'))],
      ['a remote-only file', (r) => r.set('d.txt', file('d.txt', 'd'))],
      ['a base-only file', (r) => r.delete('c.txt')],
      ['a file without a hash', (r) => r.set('c.txt', { ...file('c.txt', 'c'), hash: null })],
    ];
    for (const [what, change] of differs) {
      const r = new Map(b);
      const bb = new Map(b);
      change(r);
      if (what === 'a file without a hash') bb.set('c.txt', { ...file('c.txt', 'c'), hash: null });
      await new StateStore(dir, 'd1').save({ base: bb, remote: { digest: 'd', requestKey: 'k', snapshot: r, symlinks: [], leftovers: [] } });
      const again = await new StateStore(dir, 'd1').load();
      expect(knownEqual(again.remote!.snapshot, again.base), what).toBe(false);
      expect(plain(again).remote!.snapshot, what).toEqual(r);
      expect(plain(again).base, what).toEqual(bb);
    }
  });

  it('treats records that would not decode as absent, even under a good checksum (a path prefix longer than the path before it)', async () => {
    const w = new PackedWriter();
    w.str(JSON.stringify({ deploymentId: 'd1', savedAt: 'x', base: true, remote: null }));
    w.u32(1);
    // A front-coded path claiming 5 shared units with no path before it.
    w.u8(5);
    w.u8(0);
    w.u32(1);
    w.u8(0x61);
    w.u8(1);
    w.hash('0000000000000001');
    w.f64(1);
    await new StateStore(dir, 'd1').save({ base: base(), remote: null });
    await writeFile(path.join(dir, 'state.bin'), await w.finish('HSST', 3));
    expect(await new StateStore(dir, 'd1').load()).toEqual({ base: null, remote: null, applyPending: false });
  });

  it('replaces the JSON state of an older release when it saves', async () => {
    await new StateStore(dir, 'd1').save({ base: null, remote: null });
    await writeFile(path.join(dir, 'state.json'), '{}');
    await new StateStore(dir, 'd1').save({ base: base(), remote: null });
    expect(existsSync(path.join(dir, 'state.json'))).toBe(false);
  });

  it('keeps the apply-pending marker apart from the state', async () => {
    const store = new StateStore(dir, 'd1');
    await store.setApplyPending(true);
    expect((await store.load()).applyPending).toBe(true);
    await store.save({ base: base(), remote: null });
    expect((await new StateStore(dir, 'd1').load()).applyPending).toBe(true);
    await store.setApplyPending(false);
    expect(await store.applyPending()).toBe(false);
  });

  it('appends one JSON line per record to push.log', async () => {
    const store = new StateStore(dir, 'd1');
    await store.appendLog({ command: 'push', written: 1 });
    await store.appendLog({ command: 'push', written: 2 });
    const lines = (await readFile(path.join(dir, 'push.log'), 'utf8')).trim().split('\n').map((l) => JSON.parse(l));
    expect(lines.map((l) => l.written)).toEqual([1, 2]);
    expect(lines[0].time).toMatch(/^\d{4}-/);
    expect(existsSync(path.join(dir, 'state.bin'))).toBe(false);
  });
});
