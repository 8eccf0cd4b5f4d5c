import { existsSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { StateStore, type RemoteCache } from '../../src/state/store.js';
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

const base = () => snap(file('a.txt', 'a'), file('bin/run', 'x', { x: true }));
const remote = (): RemoteCache => ({ digest: 'dg1', requestKey: 'rk1', snapshot: snap(file('a.txt', 'a')), symlinks: ['l'], leftovers: [] });

describe('StateStore', () => {
  it('starts empty: no base, no remote cache, nothing pending', async () => {
    expect(await new StateStore(dir, 'd1').load()).toEqual({ base: null, remote: null, applyPending: false });
  });

  it('saves and loads base and remote cache, also from a fresh store (another process)', async () => {
    await new StateStore(dir, 'd1').save({ base: base(), remote: remote() });
    const loaded = await new StateStore(dir, 'd1').load();
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

  it.each([
    ['corrupt JSON', '{ not json'],
    ['another version', JSON.stringify({ version: -1, deploymentId: 'd1', base: {}, remote: null })],
    ['another deployment', null],
    ['a bad entry', JSON.stringify({ version: 2, deploymentId: 'd1', base: { a: ['h', 'not a size', 0] }, remote: null })],
  ])('treats %s as absent, never as an empty base to delete against', async (_name, text) => {
    if (text === null) await new StateStore(dir, 'other').save({ base: base(), remote: remote() });
    else {
      await new StateStore(dir, 'd1').save({ base: null, remote: null });
      await writeFile(path.join(dir, 'state.json'), text);
    }
    expect(await new StateStore(dir, 'd1').load()).toEqual({ base: null, remote: null, applyPending: false });
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
    expect(existsSync(path.join(dir, 'state.json'))).toBe(false);
  });
});
