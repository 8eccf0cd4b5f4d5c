import { describe, expect, it } from 'vitest';
import { reconcilePull } from '../../src/sync/core/pull-reconcile.js';
import type { Entry } from '../../src/model/types.js';
import { file, snap } from './fixtures.js';

const L = (path: string, content: string, x = false): Entry => file(path, content, { x, text: true });
const R = (path: string, content: string, x = false): Entry => file(path, content, { x });
const strip = (e: Entry): Entry => ({ path: e.path, hash: e.hash, size: e.size, executable: e.executable });

interface Row {
  name: string;
  base: Entry[] | null;
  local: Entry[];
  remote: Entry[];
  force?: boolean;
  /** "fetch a", "remove a", "chmod a +x" */
  actions: string[];
  conflicts?: string[];
  overridden?: string[];
  localChanges?: string[];
  nextBase: Entry[];
}

const rows: Row[] = [
  { name: 'unchanged everywhere', base: [R('a', '1')], local: [L('a', '1')], remote: [R('a', '1')], actions: [], nextBase: [R('a', '1')] },
  { name: 'both changed identically: adopted', base: [R('a', '1')], local: [L('a', '2')], remote: [R('a', '2')], actions: [], nextBase: [R('a', '2')] },
  { name: 'remote modified, local = base: fetched', base: [R('a', '1')], local: [L('a', '1')], remote: [R('a', '2')], actions: ['fetch a'], nextBase: [R('a', '2')] },
  { name: 'remote-only file, never synced: fetched', base: [], local: [], remote: [R('up/x', 'u')], actions: ['fetch up/x'], nextBase: [R('up/x', 'u')] },
  { name: 'remote-only file with no base at all: fetched', base: null, local: [], remote: [R('x', 'u')], actions: ['fetch x'], nextBase: [R('x', 'u')] },
  { name: 'remote deleted, local = base: removed locally', base: [R('a', '1')], local: [L('a', '1')], remote: [], actions: ['remove a'], nextBase: [] },
  { name: 'remote set +x only: chmod', base: [R('a', '1')], local: [L('a', '1')], remote: [R('a', '1', true)], actions: ['chmod a +x'], nextBase: [R('a', '1', true)] },
  { name: 'local modified, remote = base: left for push', base: [R('a', '1')], local: [L('a', '2')], remote: [R('a', '1')], actions: [], localChanges: ['a'], nextBase: [R('a', '1')] },
  { name: 'local added: left for push', base: [], local: [L('a', '2')], remote: [], actions: [], localChanges: ['a'], nextBase: [] },
  { name: 'local deleted, remote = base: left for push', base: [R('a', '1')], local: [], remote: [R('a', '1')], actions: [], localChanges: ['a'], nextBase: [R('a', '1')] },
  { name: 'both modified: conflict, local untouched', base: [R('a', '1')], local: [L('a', '2')], remote: [R('a', '3')], actions: [], conflicts: ['a both-modified'], nextBase: [R('a', '1')] },
  { name: 'local modified, remote deleted: conflict', base: [R('a', '1')], local: [L('a', '2')], remote: [], actions: [], conflicts: ['a modify-delete'], nextBase: [R('a', '1')] },
  { name: 'local deleted, remote modified: conflict', base: [R('a', '1')], local: [], remote: [R('a', '3')], actions: [], conflicts: ['a delete-modify'], nextBase: [R('a', '1')] },
  { name: 'never synced, both differ: conflict', base: null, local: [L('a', '2')], remote: [R('a', '3')], actions: [], conflicts: ['a first-push-differs'], nextBase: [] },
  { name: 'force: both modified takes remote', base: [R('a', '1')], local: [L('a', '2')], remote: [R('a', '3')], force: true, actions: ['fetch a'], overridden: ['a'], nextBase: [R('a', '3')] },
  { name: 'force: modify-delete removes the local edit', base: [R('a', '1')], local: [L('a', '2')], remote: [], force: true, actions: ['remove a'], overridden: ['a'], nextBase: [] },
  { name: 'remote file became a folder, local = base: the file goes, the folder comes', base: [R('a', '1')], local: [L('a', '1')], remote: [R('a/x', 'x')], actions: ['fetch a/x', 'remove a'], nextBase: [R('a/x', 'x')] },
  {
    name: 'remote file became a folder, local file edited: both conflicts, nothing fetched',
    base: [R('a', '1')], local: [L('a', '2')], remote: [R('a/x', 'x')], actions: [], conflicts: ['a modify-delete', 'a/x file-folder'], nextBase: [R('a', '1')],
  },
  { name: 'a remote folder where a never-synced local file is: conflict', base: [], local: [L('a', '2')], remote: [R('a/b/x', 'x')], actions: [], conflicts: ['a/b/x file-folder'], localChanges: ['a'], nextBase: [] },
  { name: 'force over a file turned folder: the local edit goes, the folder comes', base: [R('a', '1')], local: [L('a', '2')], remote: [R('a/x', 'x')], force: true, actions: ['fetch a/x', 'remove a'], overridden: ['a'], nextBase: [R('a/x', 'x')] },
  { name: 'force: local change with remote = base is still left for push', base: [R('a', '1')], local: [L('a', '2')], remote: [R('a', '1')], force: true, actions: [], localChanges: ['a'], nextBase: [R('a', '1')] },
];

describe('reconcilePull: the three-way table in reverse', () => {
  for (const row of rows) {
    it(row.name, () => {
      const rec = reconcilePull(row.base ? snap(...row.base) : null, snap(...row.local), snap(...row.remote), { force: row.force ?? false });
      const actions = [
        ...rec.fetch.map((e) => `fetch ${e.path}`),
        ...rec.remove.map((p) => `remove ${p}`),
        ...rec.chmod.map((c) => `chmod ${c.path} ${c.executable ? '+x' : '-x'}`),
      ];
      expect(actions).toEqual(row.actions);
      expect(rec.conflicts.map((c) => `${c.path} ${c.reason}`)).toEqual(row.conflicts ?? []);
      expect(rec.overridden.map((c) => c.path)).toEqual(row.overridden ?? []);
      expect(rec.localChanges).toEqual(row.localChanges ?? []);
      expect([...rec.nextBase.values()]).toEqual(row.nextBase.map(strip));
    });
  }

  it('every path lands in at most one list, sorted', () => {
    const rec = reconcilePull(
      snap(R('b', '1'), R('c', '1'), R('d', '1')),
      snap(L('b', '1'), L('c', '2'), L('d', '9'), L('e', '1')),
      snap(R('a', '1'), R('b', '2'), R('c', '1'), R('d', '3')),
      { force: false },
    );
    expect(rec.fetch.map((e) => e.path)).toEqual(['a', 'b']);
    expect(rec.localChanges).toEqual(['c', 'e']);
    expect(rec.conflicts.map((c) => c.path)).toEqual(['d']);
  });
});
