import { describe, expect, it } from 'vitest';
import { afterUndo, journalRecords, pickVersion, planUndo } from '../../src/sync/core/undo-plan.js';
import type { Change, Entry } from '../../src/model/types.js';
import type { JournalRecord } from '../../src/state/journal.js';
import { file, snap } from './fixtures.js';

const R = (path: string, content: string, x = false): Entry => file(path, content, { x });
const strip = (e: Entry): Entry => ({ path: e.path, hash: e.hash, size: e.size, executable: e.executable });

/** A push's records from its changes and the remote it saw, with `after` as intended (what finishPush confirms). */
const recordsOf = (changes: Change[], remote: Entry[]): JournalRecord[] => journalRecords(changes, snap(...remote), snap(...remote));

/** The plan as short strings, sorted: "delete a", "restore a", "rename b -> a", "chmod a -x", "changed a modified". */
function actions(records: JournalRecord[], now: Entry[]): string[] {
  const p = planUndo(records, snap(...now));
  return [
    ...p.changed.map((c) => `changed ${c.path} ${c.now}`),
    ...p.deletes.map((d) => `delete ${d}`),
    ...p.restores.map((r) => `restore ${r.path}`),
    ...p.renames.map((r) => `rename ${r.from} -> ${r.to}`),
    ...p.chmods.map((c) => `chmod ${c.path} ${c.executable ? '+x' : '-x'}`),
  ].sort();
}

interface Row {
  name: string;
  changes: Change[];
  /** The remote the push saw. */
  before: Entry[];
  /** The remote now. */
  now: Entry[];
  actions: string[];
}

const w = (e: Entry, create = false): Change => ({ kind: 'write', path: e.path, entry: e, create });
const d = (e: Entry): Change => ({ kind: 'delete', path: e.path, base: e });
const mv = (from: string, e: Entry): Change => ({ kind: 'rename', from, to: e.path, entry: e });
const x = (e: Entry, executable: boolean): Change => ({ kind: 'chmod', path: e.path, executable, entry: { ...e, executable } });

const rows: Row[] = [
  { name: 'an overwrite still in place: restored', changes: [w(R('a', '2'))], before: [R('a', '1')], now: [R('a', '2')], actions: ['restore a'] },
  { name: 'a new file still in place: deleted', changes: [w(R('n', 'n'), true)], before: [], now: [R('n', 'n')], actions: ['delete n'] },
  { name: 'a deleted file still gone: restored', changes: [d(R('g', 'g'))], before: [R('g', 'g')], now: [], actions: ['restore g'] },
  { name: 'a rename still in place: renamed back', changes: [mv('old', R('new', 'r'))], before: [R('old', 'r')], now: [R('new', 'r')], actions: ['rename new -> old'] },
  { name: 'a chmod still in place: set back', changes: [x(R('s', 's'), true)], before: [R('s', 's')], now: [R('s', 's', true)], actions: ['chmod s -x'] },
  { name: 'a change that never landed: nothing to do', changes: [w(R('a', '2'))], before: [R('a', '1')], now: [R('a', '1')], actions: [] },
  { name: 'edited on the remote since: refused', changes: [w(R('a', '2'))], before: [R('a', '1')], now: [R('a', '3')], actions: ['changed a modified'] },
  { name: 'deleted on the remote since: refused', changes: [w(R('a', '2'))], before: [R('a', '1')], now: [], actions: ['changed a deleted'] },
  { name: 'a deleted file recreated on the remote since: refused', changes: [d(R('g', 'g'))], before: [R('g', 'g')], now: [R('g', 'other')], actions: ['changed g modified'] },
  {
    name: 'a rename whose source came back some other way: the target is deleted',
    changes: [mv('old', R('new', 'r'))],
    before: [R('old', 'r')],
    now: [R('old', 'r'), R('new', 'r')],
    actions: ['delete new'],
  },
  {
    name: 'edit, delete, add and rename in one push',
    changes: [w(R('a', '2')), d(R('g', 'g')), w(R('n', 'n'), true), mv('old', R('new', 'r'))],
    before: [R('a', '1'), R('g', 'g'), R('old', 'r'), R('keep', 'k')],
    now: [R('a', '2'), R('n', 'n'), R('new', 'r'), R('keep', 'k')],
    actions: ['delete n', 'rename new -> old', 'restore a', 'restore g'],
  },
];

describe('planUndo', () => {
  for (const row of rows) {
    it(row.name, () => {
      expect(actions(recordsOf(row.changes, row.before), row.now)).toEqual(row.actions);
    });
  }

  it('ends, for every path it settles, with the remote as the push found it', () => {
    const row = rows[rows.length - 1]!;
    const plan = planUndo(recordsOf(row.changes, row.before), snap(...row.now));
    expect(plan.changed).toEqual([]);
    const after = afterUndo(snap(...row.now), plan);
    expect([...after.values()].map(strip).sort((a, b) => a.path.localeCompare(b.path))).toEqual(row.before.map(strip).sort((a, b) => a.path.localeCompare(b.path)));
  });

  it('two pushes are taken back one after the other, the older planned against the newer one undone', () => {
    const first = recordsOf([w(R('a', '2'))], [R('a', '1')]);
    const second = recordsOf([w(R('a', '3')), w(R('b', 'b'), true)], [R('a', '2')]);
    const now = snap(R('a', '3'), R('b', 'b'));
    const p2 = planUndo(second, now);
    const mid = afterUndo(now, p2);
    const p1 = planUndo(first, mid);
    expect(p1.changed).toEqual([]);
    expect([...afterUndo(mid, p1).values()].map(strip)).toEqual([strip(R('a', '1'))]);
    // Taking back the older one first would be refused: a is not what it left.
    expect(planUndo(first, now).changed).toEqual([{ path: 'a', now: 'modified' }]);
  });
});

describe('pickVersion', () => {
  const v = (id: string, at: number, bytes: number) => ({ id, savedAt: new Date(at).toISOString(), bytes });
  const before = R('a', 'xyz'); // 3 bytes

  it('takes the oldest version saved since the push began, with the size the file had', () => {
    // Newest first: a later undo's save, the push's own save, an older push's save.
    const versions = [v('later', 3000, 3), v('push', 2000, 3), v('older', 1000, 3)];
    expect(pickVersion(versions, 1500, before)?.id).toBe('push');
  });

  it('skips a version of another size, and finds none when only older versions exist', () => {
    expect(pickVersion([v('later', 3000, 3), v('odd', 2000, 9)], 1500, before)?.id).toBe('later');
    expect(pickVersion([v('older', 1000, 3)], 1500, before)).toBeNull();
    expect(pickVersion([], 0, before)).toBeNull();
  });

  it('with nothing since the push began, takes the newest fitting version within the clock slack', () => {
    const versions = [v('push', 1400, 3), v('older', 1000, 3)];
    expect(pickVersion(versions, 1500, before, 200)?.id).toBe('push');
    expect(pickVersion(versions, 1500, before, 50)).toBeNull();
  });
});
