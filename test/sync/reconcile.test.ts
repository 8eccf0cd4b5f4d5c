import { describe, expect, it } from 'vitest';
import { reconcile } from '../../src/sync/core/reconcile.js';
import { LazySnapshot } from '../../src/model/lazy-snapshot.js';
import type { Entry, ReconcileOptions } from '../../src/model/types.js';
import { file, show, sized, snap } from './fixtures.js';

const none: ReconcileOptions = { force: false, mirror: false };
const force: ReconcileOptions = { force: true, mirror: false };
const mirror: ReconcileOptions = { force: false, mirror: true };
const both: ReconcileOptions = { force: true, mirror: true };

/** Local entries carry the text flag; remote and base entries do not. */
const L = (path: string, content: string, x = false): Entry => file(path, content, { x, text: true });
const R = (path: string, content: string, x = false): Entry => file(path, content, { x });
const strip = (e: Entry): Entry => ({ path: e.path, hash: e.hash, size: e.size, executable: e.executable });

interface Row {
  name: string;
  base: Entry[] | null;
  local: Entry[];
  remote: Entry[];
  opts: ReconcileOptions;
  changes: string[];
  conflicts?: string[];
  drift?: string[];
  remoteOnly?: string[];
  overridden?: string[];
  /** Expected nextBase, as entries (text stripped before comparing). */
  nextBase: Entry[];
}

const rows: Row[] = [
  // ---- L = R ----
  { name: 'unchanged everywhere', base: [R('a', '1')], local: [L('a', '1')], remote: [R('a', '1')], opts: none, changes: [], nextBase: [R('a', '1')] },
  { name: 'both changed identically: adopted', base: [R('a', '1')], local: [L('a', '2')], remote: [R('a', '2')], opts: none, changes: [], nextBase: [R('a', '2')] },
  { name: 'both added identically: adopted', base: [], local: [L('a', '1', true)], remote: [R('a', '1', true)], opts: none, changes: [], nextBase: [R('a', '1', true)] },
  { name: 'both deleted: base drops it', base: [R('a', '1')], local: [], remote: [], opts: none, changes: [], nextBase: [] },
  // ---- L != B, R = B: push ----
  { name: 'local modified', base: [R('a', '1')], local: [L('a', '2')], remote: [R('a', '1')], opts: none, changes: ['write a'], nextBase: [R('a', '2')] },
  { name: 'local deleted, remote unchanged', base: [R('a', '1')], local: [], remote: [R('a', '1')], opts: none, changes: ['delete a'], nextBase: [] },
  { name: 'local added', base: [], local: [L('a', '1')], remote: [], opts: none, changes: ['write a (new)'], nextBase: [R('a', '1')] },
  { name: 'exec bit set only: chmod, no write', base: [R('a', '1')], local: [L('a', '1', true)], remote: [R('a', '1')], opts: none, changes: ['chmod a +x'], nextBase: [R('a', '1', true)] },
  { name: 'exec bit cleared only', base: [R('a', '1', true)], local: [L('a', '1')], remote: [R('a', '1', true)], opts: none, changes: ['chmod a -x'], nextBase: [R('a', '1')] },
  { name: 'content and exec bit changed: one write carrying +x', base: [R('a', '1')], local: [L('a', '2', true)], remote: [R('a', '1')], opts: none, changes: ['write a +x'], nextBase: [R('a', '2', true)] },
  // ---- L = B, R != B: drift ----
  { name: 'remote modified: drift', base: [R('a', '1')], local: [L('a', '1')], remote: [R('a', '2')], opts: none, changes: [], drift: ['a modified'], nextBase: [R('a', '1')] },
  { name: 'remote deleted: drift', base: [R('a', '1')], local: [L('a', '1')], remote: [], opts: none, changes: [], drift: ['a deleted'], nextBase: [R('a', '1')] },
  { name: 'remote exec bit changed: drift', base: [R('a', '1')], local: [L('a', '1')], remote: [R('a', '1', true)], opts: none, changes: [], drift: ['a modified'], nextBase: [R('a', '1')] },
  { name: 'remote modified, mirror: still drift', base: [R('a', '1')], local: [L('a', '1')], remote: [R('a', '2')], opts: mirror, changes: [], drift: ['a modified'], nextBase: [R('a', '1')] },
  // ---- conflicts ----
  { name: 'both modified differently', base: [R('a', '1')], local: [L('a', '2')], remote: [R('a', '3')], opts: none, changes: [], conflicts: ['a both-modified'], nextBase: [R('a', '1')] },
  { name: 'both added differently', base: [], local: [L('a', '2')], remote: [R('a', '3')], opts: none, changes: [], conflicts: ['a both-modified'], nextBase: [] },
  { name: 'local deleted, remote modified', base: [R('a', '1')], local: [], remote: [R('a', '3')], opts: none, changes: [], conflicts: ['a delete-modify'], nextBase: [R('a', '1')] },
  { name: 'local modified, remote deleted', base: [R('a', '1')], local: [L('a', '2')], remote: [], opts: none, changes: [], conflicts: ['a modify-delete'], nextBase: [R('a', '1')] },
  { name: 'same new content on both sides, bit only local (a write landed, its chmod did not): chmod', base: [R('a', '1')], local: [L('a', '2', true)], remote: [R('a', '2')], opts: none, changes: ['chmod a +x'], nextBase: [R('a', '2', true)] },
  // ---- force: local wins ----
  { name: 'force: both modified', base: [R('a', '1')], local: [L('a', '2')], remote: [R('a', '3')], opts: force, changes: ['write a'], overridden: ['conflict a both-modified'], nextBase: [R('a', '2')] },
  { name: 'force: delete-modify deletes', base: [R('a', '1')], local: [], remote: [R('a', '3')], opts: force, changes: ['delete a'], overridden: ['conflict a delete-modify'], nextBase: [] },
  { name: 'force: modify-delete recreates', base: [R('a', '1')], local: [L('a', '2')], remote: [], opts: force, changes: ['write a (new)'], overridden: ['conflict a modify-delete'], nextBase: [R('a', '2')] },
  { name: 'force: same content, only the exec bit differs: chmod, nothing overridden', base: [R('a', '1')], local: [L('a', '2', true)], remote: [R('a', '2')], opts: force, changes: ['chmod a +x'], nextBase: [R('a', '2', true)] },
  { name: 'force: remote drift reverted', base: [R('a', '1')], local: [L('a', '1')], remote: [R('a', '2')], opts: force, changes: ['write a'], overridden: ['drift a modified'], nextBase: [R('a', '1')] },
  { name: 'force: remotely deleted file restored', base: [R('a', '1')], local: [L('a', '1')], remote: [], opts: force, changes: ['write a (new)'], overridden: ['drift a deleted'], nextBase: [R('a', '1')] },
  // ---- remote-only ----
  { name: 'remote-only: never touched', base: [], local: [], remote: [R('up.png', 'img')], opts: none, changes: [], remoteOnly: ['up.png'], nextBase: [] },
  { name: 'remote-only: force still leaves it', base: [], local: [], remote: [R('up.png', 'img')], opts: force, changes: [], remoteOnly: ['up.png'], nextBase: [] },
  { name: 'remote-only: mirror deletes it', base: [], local: [], remote: [R('up.png', 'img')], opts: mirror, changes: ['delete up.png'], nextBase: [] },
  { name: 'remote-only: force + mirror deletes it', base: [], local: [], remote: [R('up.png', 'img')], opts: both, changes: ['delete up.png'], nextBase: [] },
  // ---- first push (no base) ----
  { name: 'first push: equal adopted', base: null, local: [L('a', '1')], remote: [R('a', '1')], opts: none, changes: [], nextBase: [R('a', '1')] },
  { name: 'first push: differing is a conflict', base: null, local: [L('a', '1')], remote: [R('a', '2')], opts: none, changes: [], conflicts: ['a first-push-differs'], nextBase: [] },
  { name: 'first push: exec bit alone differs: the bit follows local (content is not at risk)', base: null, local: [L('a', '1', true)], remote: [R('a', '1')], opts: none, changes: ['chmod a +x'], nextBase: [R('a', '1', true)] },
  { name: 'first push: force overwrites', base: null, local: [L('a', '1')], remote: [R('a', '2')], opts: force, changes: ['write a'], overridden: ['conflict a first-push-differs'], nextBase: [R('a', '1')] },
  { name: 'first push: force fixes only the exec bit', base: null, local: [L('a', '1', true)], remote: [R('a', '1')], opts: force, changes: ['chmod a +x'], nextBase: [R('a', '1', true)] },
  { name: 'first push: local only is written', base: null, local: [L('a', '1')], remote: [], opts: none, changes: ['write a (new)'], nextBase: [R('a', '1')] },
  { name: 'first push: remote only is left', base: null, local: [], remote: [R('a', '1')], opts: force, changes: [], remoteOnly: ['a'], nextBase: [] },
  { name: 'first push: remote only, mirror deletes', base: null, local: [], remote: [R('a', '1')], opts: mirror, changes: ['delete a'], nextBase: [] },
  // ---- hashless remote entries (above hashMaxBytes) ----
  {
    name: 'hashless remote, same size as base, local = base: equal',
    base: [sized('big', 'v1', 300)], local: [sized('big', 'v1', 300, { text: false })], remote: [{ ...sized('big', 'v1', 300), hash: null }],
    opts: none, changes: [], nextBase: [sized('big', 'v1', 300)],
  },
  {
    name: 'hashless remote, same size as base, local modified: pushed (remote presumed = base)',
    base: [sized('big', 'v1', 300)], local: [sized('big', 'v2', 300, { text: false })], remote: [{ ...sized('big', 'v1', 300), hash: null }],
    opts: none, changes: ['write big'], nextBase: [sized('big', 'v2', 300)],
  },
  {
    name: 'hashless remote, size differs from base: drift',
    base: [sized('big', 'v1', 300)], local: [sized('big', 'v1', 300, { text: false })], remote: [{ ...sized('big', 'v9', 301), hash: null }],
    opts: none, changes: [], drift: ['big modified'], nextBase: [sized('big', 'v1', 300)],
  },
  {
    name: 'hashless remote, base hash unknown: never equal',
    base: [{ ...sized('big', 'v1', 300), hash: null }], local: [sized('big', 'v1', 300, { text: false })], remote: [{ ...sized('big', 'v1', 300), hash: null }],
    opts: none, changes: [], conflicts: ['big both-modified'], nextBase: [{ ...sized('big', 'v1', 300), hash: null }],
  },
  {
    name: 'hashless remote on first push: conflict even at equal size',
    base: null, local: [sized('big', 'v1', 300, { text: false })], remote: [{ ...sized('big', 'v1', 300), hash: null }],
    opts: none, changes: [], conflicts: ['big first-push-differs'], nextBase: [],
  },
  // ---- several paths at once ----
  {
    name: 'non-conflicting changes go ahead beside a conflict',
    base: [R('c', '1'), R('m', '1'), R('d', '1'), R('k', '1')],
    local: [L('c', '2'), L('m', '2'), L('k', '1'), L('n', 'new')],
    remote: [R('c', '3'), R('m', '1'), R('d', '1'), R('k', '1'), R('logs/x.log', 'log')],
    opts: none,
    changes: ['delete d', 'write m', 'write n (new)'],
    conflicts: ['c both-modified'],
    remoteOnly: ['logs/x.log'],
    nextBase: [R('c', '1'), R('k', '1'), R('m', '2'), R('n', 'new')],
  },
  {
    name: 'local rename is one rename change',
    base: [R('old name.txt', 'content')], local: [L('new name.txt', 'content')], remote: [R('old name.txt', 'content')],
    opts: none, changes: ['rename old name.txt -> new name.txt'], nextBase: [R('new name.txt', 'content')],
  },
  {
    name: 'file becomes a directory',
    base: [R('a', 'x')], local: [L('a/b', 'y')], remote: [R('a', 'x')],
    opts: none, changes: ['delete a', 'write a/b (new)'], nextBase: [R('a/b', 'y')],
  },
  {
    name: 'directory becomes a file',
    base: [R('a/b', 'y')], local: [L('a', 'x')], remote: [R('a/b', 'y')],
    opts: none, changes: ['write a (new)', 'delete a/b'], nextBase: [R('a', 'x')],
  },
  {
    name: 'unicode and spaces in names, sorted by code units',
    base: [],
    local: [L('dir with space/ünï cödé.txt', 'u'), L('Zeta.md', 'z'), L('文件/名字.txt', 'c'), L('a b.txt', 'a')],
    remote: [],
    opts: none,
    changes: ['write Zeta.md (new)', 'write a b.txt (new)', 'write dir with space/ünï cödé.txt (new)', 'write 文件/名字.txt (new)'],
    nextBase: [R('Zeta.md', 'z'), R('a b.txt', 'a'), R('dir with space/ünï cödé.txt', 'u'), R('文件/名字.txt', 'c')],
  },
];

describe('reconcile: the semantics table', () => {
  it.each(rows)('$name', (row) => {
    const rec = reconcile(row.base && snap(...row.base), snap(...row.local), snap(...row.remote), row.opts);
    expect(rec.changes.map(show)).toEqual(row.changes);
    expect(rec.conflicts.map((c) => `${c.path} ${c.reason}`)).toEqual(row.conflicts ?? []);
    expect(rec.drift.map((d) => `${d.path} ${d.kind}`)).toEqual(row.drift ?? []);
    expect(rec.remoteOnly).toEqual(row.remoteOnly ?? []);
    expect([
      ...rec.overridden.conflicts.map((c) => `conflict ${c.path} ${c.reason}`),
      ...rec.overridden.drift.map((d) => `drift ${d.path} ${d.kind}`),
    ]).toEqual(row.overridden ?? []);
    expect([...rec.nextBase.entries()]).toEqual(row.nextBase.map((e) => [e.path, strip(e)]));
  });
});

describe('reconcile: what it reports', () => {
  it('a conflict carries all three entries as listed (remote hash unresolved)', () => {
    const base = snap(R('a', '1'));
    const remote = snap({ ...R('a', 'changed'), hash: null });
    const rec = reconcile(base, snap(), remote, none);
    expect(rec.conflicts).toEqual([{ path: 'a', reason: 'delete-modify', local: null, remote: remote.get('a'), base: base.get('a') }]);
  });

  it('drift carries the remote and base entries', () => {
    const base = snap(R('a', '1'));
    const remote = snap(R('a', '2', true));
    const rec = reconcile(base, snap(L('a', '1')), remote, none);
    expect(rec.drift).toEqual([{ path: 'a', kind: 'modified', remote: remote.get('a'), base: base.get('a') }]);
  });

  it('write changes carry the local entry (with its text flag); deletes carry the remote entry', () => {
    const local = snap(L('w', 'new'));
    const remote = snap(R('d', 'gone'), R('w', 'old'));
    const rec = reconcile(snap(R('d', 'gone'), R('w', 'old')), local, remote, none);
    expect(rec.changes).toEqual([
      { kind: 'delete', path: 'd', base: remote.get('d') },
      { kind: 'write', path: 'w', entry: local.get('w'), create: false },
    ]);
  });

  it('nextBase never stores the local-only text flag', () => {
    const rec = reconcile(null, snap(L('a', '1'), L('b', '2')), snap(R('a', '1')), none);
    for (const e of rec.nextBase.values()) expect(e).not.toHaveProperty('text');
    expect(rec.nextBase.size).toBe(2);
  });

  it('does not mutate its inputs', () => {
    const base = snap(R('a', '1'), R('b', '1'));
    const local = snap(L('a', '2'), L('c', '3'));
    const remote = snap(R('a', '1'), R('b', '1'), R('r', 'x'));
    const before = JSON.stringify([[...base], [...local], [...remote]]);
    reconcile(base, local, remote, both);
    expect(JSON.stringify([[...base], [...local], [...remote]])).toBe(before);
  });

  it('a no-op (all three trees equal) returns a copy of the base as nextBase, in path order', () => {
    const base = snap(R('a', '1'), R('a/b', '2', true), R('b', '3'));
    const rec = reconcile(base, snap(L('b', '3'), L('a', '1'), L('a/b', '2', true)), snap(R('a', '1'), R('b', '3'), R('a/b', '2', true)), none);
    expect(rec.changes).toEqual([]);
    expect(rec.nextBase).not.toBe(base);
    expect([...rec.nextBase]).toEqual([...base]);
    // A base out of path order still yields a sorted nextBase.
    const unsorted = snap(R('b', '3'), R('a', '1'));
    const again = reconcile(unsorted, snap(L('a', '1'), L('b', '3')), snap(R('a', '1'), R('b', '3')), none);
    expect([...again.nextBase.keys()]).toEqual(['a', 'b']);
  });

  it('trees known equal without their entries (LazySnapshot) give what the full comparison gives, and make no entry', () => {
    const entries = [R('a', '1'), R('a/b', '2', true), R('b', '3')];
    const lazy = (xs: Entry[]) => new LazySnapshot(xs.length, () => xs.map((x) => ({ ...x })));
    const base = lazy(entries);
    const local = lazy(entries.map((x) => ({ ...x, text: true })));
    const remote = lazy(entries);
    local.markEqual(base);
    remote.markEqual(base);
    const rec = reconcile(base, local, remote, none);
    expect([base.lazy, local.lazy, remote.lazy]).toEqual([true, true, true]);
    const full = reconcile(new Map(base), new Map(local), new Map(remote), none);
    expect({ ...rec, nextBase: new Map(rec.nextBase) }).toEqual(full);
    expect([...rec.nextBase.keys()]).toEqual([...full.nextBase.keys()]);
    // Not known equal: compared entry by entry, as always.
    const changed = lazy([R('a', '1'), R('a/b', '2', true), R('b', '4')]);
    changed.markEqual(lazy(entries));
    expect(reconcile(base, changed, remote, none).changes.map(show)).toEqual(['write b']);
  });

  it('a local tree known as a delta over the base, the remote being the base: what the full comparison gives, from the delta alone', () => {
    const entries = [R('a', '1'), R('a/b', '2', true), R('b', '3'), R('c', '4'), R('d.sh', '5')];
    // Each: the local tree's changes, as a delta (path -> local entry or null for deleted).
    const cases: [string, [string, Entry | null][]][] = [
      ['one file modified', [['b', L('b', 'x')]]],
      ['added, deleted and modified', [['a/a', L('a/a', 'new')], ['b', null], ['c', L('c', '9')], ['e', L('e', 'n')]]],
      ['executable bit only', [['d.sh', L('d.sh', '5', true)]]],
      ['a rename (delete + create, same content)', [['b', null], ['b2', L('b2', '3')]]],
      ['the same entry (text flag alone)', [['a', L('a', '1')]]],
    ];
    for (const [name, changes] of cases) {
      let made = 0;
      const base = new LazySnapshot(entries.length, () => (made++, entries.map((x) => ({ ...x }))));
      const remote = new LazySnapshot(entries.length, () => entries.map((x) => ({ ...x })));
      remote.markEqual(base);
      const plainLocal = new Map(entries.map((x) => [x.path, { ...x, text: true }] as [string, Entry]));
      for (const [p, e] of changes) {
        if (e === null) plainLocal.delete(p);
        else plainLocal.set(p, e);
      }
      const sorted = new Map([...plainLocal].sort(([a], [b]) => (a < b ? -1 : 1)));
      const local = new LazySnapshot(sorted.size, () => sorted.values());
      const byPath = new Map(entries.map((x) => [x.path, x]));
      local.markDelta(base, new Map(changes.map(([p, e]) => [p, { local: e, base: byPath.get(p) ?? null }])));
      const rec = reconcile(base, local, remote, none);
      expect(base.lazy && local.lazy, name).toBe(true);
      const full = reconcile(new Map(entries.map((x) => [x.path, x])), sorted, new Map(entries.map((x) => [x.path, x])), none);
      expect({ ...rec, nextBase: new Map(rec.nextBase) }, name).toEqual(full);
      expect([...rec.nextBase.keys()], name).toEqual([...full.nextBase.keys()]);
      // Only reading the next base made the base's entries, once.
      expect(made, name).toBe(1);
    }
  });

  it('is independent of map insertion order', () => {
    const entries = [L('b', '1'), L('a/c', '2'), L('a', '3'), L('é', '4'), L('A', '5')];
    const one = reconcile(null, snap(...entries), snap(R('z', 'q')), mirror);
    const two = reconcile(null, snap(...[...entries].reverse()), snap(R('z', 'q')), mirror);
    expect(two.changes).toEqual(one.changes);
    expect([...two.nextBase.keys()]).toEqual([...one.nextBase.keys()]);
    expect(one.changes.map(show)).toEqual(['write A (new)', 'write a (new)', 'write a/c (new)', 'write b (new)', 'delete z', 'write é (new)']);
  });
});
