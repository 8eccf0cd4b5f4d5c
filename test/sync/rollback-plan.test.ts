import { describe, expect, it } from 'vitest';
import { appendedText, batchText, parseRecord, snapshotText, type BatchHeader, type RecEntry } from '../../src/state/base-record.js';
import { planRollback, restoreSources, rollbackRequests } from '../../src/sync/core/rollback-plan.js';
import type { Entry } from '../../src/model/types.js';

const H = (id: string, t: string): BatchHeader => ({ t, id, kind: 'push', host: 'h', dir: 'd', v: '0' });
const e = (hash: string, size = 1, executable = false): RecEntry => ({ hash: hash.padStart(16, '0'), size, executable });
const entry = (path: string, r: RecEntry): Entry => ({ path, hash: r!.hash, size: r!.size, executable: r!.executable });

/** s: a=1, b=1; p1: a 1->2, c added; p2: a 2->3, b chmod +x. */
function record() {
  let text = snapshotText(H('s', '2026-01-01T00:00:00.000Z'), [entry('a', e('1')), entry('b', e('b'))], '0'.repeat(32));
  text = appendedText(text, '0'.repeat(32), batchText(H('p1', '2026-01-02T00:00:00.000Z'), [{ path: 'a', before: e('1'), after: e('2') }, { path: 'c', before: null, after: e('c') }]), '1'.repeat(32));
  text = appendedText(text, '1'.repeat(32), batchText(H('p2', '2026-01-03T00:00:00.000Z'), [{ path: 'a', before: e('2'), after: e('3') }, { path: 'b', before: e('b'), after: e('b', 1, true) }]), '2'.repeat(32));
  return parseRecord(text);
}
const remoteOf = (m: Record<string, RecEntry>) => new Map(Object.entries(m).map(([p, r]) => [p, entry(p, r)]));
const landed = () => remoteOf({ a: e('3'), b: e('b', 1, true), c: e('c') });
const none = () => null;

describe('planRollback', () => {
  it.each([
    // [target index, restores, deletes, chmods, replacedAt of a]
    [0, ['a'], ['c'], ['b'], '2026-01-02T00:00:00.000Z'],
    [1, ['a'], [], ['b'], '2026-01-03T00:00:00.000Z'],
    [2, [], [], [], null],
  ])('back to batch %i: restores %j, deletes %j, chmods %j; a version is looked for from the first later batch naming it', (index, restores, deletes, chmods, at) => {
    const plan = planRollback({ record: record(), index, remote: landed(), leftAlone: none, force: false });
    expect(plan.restores.map((r) => r.path)).toEqual(restores);
    expect(plan.deletes).toEqual(deletes);
    expect(plan.chmods.map((c) => c.path)).toEqual(chmods);
    expect(plan.conflicts).toEqual([]);
    if (at !== null) expect(plan.restores[0]!.replacedAt).toBe(at);
    // The batch: before = what hostsync left, after = the target.
    for (const b of plan.batch) expect(b.before).not.toEqual(b.after);
  });

  it('a path changed on the deployment since hostsync left it is a conflict, left out unless forced', () => {
    const remote = landed();
    remote.set('a', entry('a', e('9')));
    const plan = planRollback({ record: record(), index: 0, remote, leftAlone: none, force: false });
    expect(plan.conflicts.map((c) => c.path)).toEqual(['a']);
    expect(plan.restores).toEqual([]);
    expect(plan.batch.map((b) => b.path)).toEqual(['b', 'c']);
    const forced = planRollback({ record: record(), index: 0, remote, leftAlone: none, force: true });
    expect(forced.restores.map((r) => r.path)).toEqual(['a']);
  });

  it('app data, secrets and ignored paths are never touched nor recorded', () => {
    const plan = planRollback({ record: record(), index: 0, remote: landed(), leftAlone: (p) => (p === 'c' ? 'remoteOwned' : null), force: false });
    expect(plan.deletes).toEqual([]);
    expect(plan.leftAlone).toEqual([{ path: 'c', why: 'remoteOwned' }]);
    expect(plan.batch.map((b) => b.path)).not.toContain('c');
  });
});

describe('restoreSources: a version, else the undo copy the replacing batch names, else refused', () => {
  const folder = (c: string) => `.hostsync/backups/${c.repeat(32)}`;
  /** s: a, b, c, d; p1 (copy A) replaces a and b; p2 (copy B) replaces a again and c; p3 (a copy outside) replaces d and adds sub/e. */
  function copied() {
    let text = snapshotText(H('s', '2026-01-01T00:00:00.000Z'), [entry('a', e('1')), entry('b', e('b')), entry('c', e('c')), entry('d', e('d'))], '0'.repeat(32));
    text = appendedText(text, '0'.repeat(32), batchText({ ...H('p1', '2026-01-02T00:00:00.000Z'), copy: folder('a') }, [{ path: 'a', before: e('1'), after: e('2') }, { path: 'b', before: e('b'), after: e('b2') }]), '1'.repeat(32));
    text = appendedText(text, '1'.repeat(32), batchText({ ...H('p2', '2026-01-03T00:00:00.000Z'), copy: folder('b') }, [{ path: 'a', before: e('2'), after: e('3') }, { path: 'c', before: e('c'), after: e('c2') }]), '2'.repeat(32));
    text = appendedText(text, '2'.repeat(32), batchText({ ...H('p3', '2026-01-04T00:00:00.000Z'), copy: '.hostsync/../public' }, [{ path: 'd', before: e('d'), after: e('d2') }, { path: 'sub/e', before: null, after: e('e') }]), '3'.repeat(32));
    return parseRecord(text);
  }
  const now = () => remoteOf({ a: e('3'), b: e('b2'), c: e('c2'), d: e('d2'), 'sub/e': e('e') });

  it('each restore takes the copy of the FIRST later batch naming it; a version wins; an unsafe or gone copy refuses', () => {
    const plan = planRollback({ record: copied(), index: 0, remote: now(), leftAlone: none, force: false });
    expect(plan.restores.map((r) => [r.path, r.copy])).toEqual([['a', folder('a')], ['b', folder('a')], ['c', folder('b')], ['d', '.hostsync/../public']]);
    const sources = restoreSources(plan.restores, new Map([['b', 'v-b']]), new Map([[folder('a'), 'archive-1.tar.gz'], [folder('b'), null]]));
    expect([...sources.versions]).toEqual([['b', 'v-b']]);
    expect(sources.copies.map((c) => [c.folder, c.archive, c.restores.map((r) => r.path)])).toEqual([[folder('a'), 'archive-1.tar.gz', ['a']]]);
    expect(sources.missing.map((m) => m.path)).toEqual(['c', 'd']);
    expect(sources.missing[0]!.why).toContain('is gone');
    expect(sources.missing[1]!.why).toContain('outside .hostsync/backups/');
  });

  it('counts a copy restore: history, list, decompress, index, a move per folder, clean-up, and the delete of what it replaces', () => {
    const all = planRollback({ record: copied(), index: 0, remote: now(), leftAlone: none, force: false });
    const sources = restoreSources(all.restores, new Map(), new Map([[folder('a'), 'archive-1.tar.gz'], [folder('b'), 'archive-2.tar.gz']]));
    // a, b from copy A (one folder: one move), c from copy B; d refused; sub/e deleted.
    // history 4 + copy A (4 + 1 move) + copy B (4 + 1 move) + one delete of the replaced files + d counted as a version (1 more) + one delete + record + verify.
    expect(rollbackRequests(all, 1000, sources)).toBe(4 + 5 + 5 + 1 + 1 + 1 + 2);
    // Before the sources are known, every restore counts as a version's (history + restore).
    expect(rollbackRequests(all, 1000)).toBe(4 * 2 + 1 + 2);
  });
});
