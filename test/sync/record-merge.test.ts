import { describe, expect, it } from 'vitest';
import { appendedText, batchText, parseRecord, snapshotText, type BatchHeader, type BatchPath } from '../../src/state/base-record.js';
import { mergeRecord, replayRecord } from '../../src/sync/core/record-merge.js';
import { reconcile } from '../../src/sync/core/reconcile.js';
import type { Entry, Snapshot } from '../../src/model/types.js';
import { file, snap } from './fixtures.js';

/** Batches recorded a moment ago: within PENDING_MAX_MS, a write not on the deployment may still be in flight. */
const RECENT = new Date().toISOString();
const H = (id: string, kind: BatchHeader['kind'] = 'push', t = RECENT): BatchHeader => ({ t, id, kind, host: 'ci', dir: 'repo', v: '0.1.0' });
const E = (e: Entry | null): BatchPath['after'] => (e ? { hash: e.hash, size: e.size, executable: e.executable } : null);
const F = (p: string, c: string): Entry => file(p, c);
const T = (p: string, c: string): Entry => file(p, c, { text: true });

/** A record: snapshot of `base`, then batches of [path, before, after]. */
function record(base: Entry[], ...batches: Array<{ id: string; paths: Array<[string, Entry | null, Entry | null]> }>) {
  let text = snapshotText(H('snap', 'snapshot'), base, 'a'.repeat(32));
  let tail = 'a'.repeat(32);
  for (const [i, b] of batches.entries()) {
    const next = String(i).padStart(32, 'c');
    text = appendedText(text, tail, batchText(H(b.id), b.paths.map(([path, before, after]) => ({ path, before: E(before), after: E(after) }))), next);
    tail = next;
  }
  return parseRecord(text);
}

describe('replayRecord', () => {
  const rec = record([F('a', '1'), F('b', '1'), F('c', '1')], { id: 'p1', paths: [['a', F('a', '1'), F('a', '2')], ['b', F('b', '1'), null]] });
  const rows: Array<[string, Snapshot, Record<string, string>]> = [
    ['every write landed', snap(F('a', '2'), F('c', '1')), { a: 'landed', b: 'landed', c: 'landed' }],
    ['a write not landed (yet): its before', snap(F('a', '1'), F('b', '1'), F('c', '1')), { a: 'pending', b: 'pending', c: 'landed' }],
    ['changed by something else', snap(F('a', 'hand'), F('b', 'hand'), F('c', 'hand')), { a: 'other', b: 'other', c: 'other' }],
  ];
  it.each(rows)('%s', (_n, remote, want) => {
    const got = replayRecord(rec, remote);
    expect(Object.fromEntries([...got].map(([p, r]) => [p, r.state]))).toEqual(want);
  });
  it('the base of a landed path is its after; of a pending one its before; of a foreign change what hostsync left', () => {
    expect(replayRecord(rec, snap(F('a', '2')), null).get('a')!.base!.hash).toBe(F('a', '2').hash);
    expect(replayRecord(rec, snap(F('a', '1')), null).get('a')!.base!.hash).toBe(F('a', '1').hash);
    expect(replayRecord(rec, snap(F('a', 'x')), null).get('a')!.base!.hash).toBe(F('a', '2').hash);
    expect(replayRecord(rec, snap(), null).get('b')!.base).toBeNull();
  });
  it('a remote file listed without a hash holds the recorded one by size', () => {
    const r = replayRecord(rec, snap({ ...F('a', '2'), hash: null }));
    expect(r.get('a')!.state).toBe('landed');
  });
});

/** The push a machine would make: reconcile against the merged base. */
function pushOf(recd: ReturnType<typeof record>, remote: Snapshot, localBase: Snapshot | null, local: Snapshot, seen: { own?: string[]; planned?: string[] } = {}) {
  const m = mergeRecord(recd, remote, localBase, { own: new Set(seen.own ?? []), planned: seen.planned ? new Set(seen.planned) : null });
  const r = reconcile(m.base, local, remote, { force: false, mirror: false, elsewhere: m.elsewhere });
  return {
    changes: r.changes.map((c) => `${c.kind} ${'path' in c ? c.path : c.to}`),
    conflicts: r.conflicts.map((c) => c.path),
    drift: r.drift.map((d) => d.path),
    elsewhere: (r.elsewhere ?? []).map((e) => `${e.kind} ${e.path} (${e.origin.host})`),
  };
}

describe('merge with the record (what a push then does)', () => {
  const rec = record([F('a', '1'), F('b', '1'), F('pkg', '1')], { id: 'p1', paths: [['pkg', F('pkg', '1'), null]] });
  const remote = snap(F('a', '1'), F('b', 'hand'));

  it('fresh clone: a file hostsync left is a plain write; a hand edit is a conflict', () => {
    const got = pushOf(rec, remote, null, snap(T('a', '2'), T('b', '2')));
    expect(got.changes).toEqual(['write a']);
    expect(got.conflicts).toEqual(['b']);
  });
  it('fresh clone without the change: the hand edit is drift, the deletion by a push is simply the base', () => {
    const got = pushOf(rec, remote, null, snap(T('a', '1'), T('b', '1')));
    expect(got).toEqual({ changes: [], conflicts: [], drift: ['b'], elsewhere: [] });
  });
  it('stale copy: a deletion by a push from elsewhere is never reverted, and reported apart from drift', () => {
    const stale = snap(F('a', '1'), F('b', '1'), F('pkg', '1'));
    const got = pushOf(rec, remote, stale, snap(T('a', '1'), T('b', '1'), T('pkg', '1')));
    expect(got).toEqual({ changes: [], conflicts: [], drift: ['b'], elsewhere: ['deleted pkg (ci)'] });
  });
  it('stale copy that changed the same path: conflict', () => {
    const stale = snap(F('a', '1'), F('b', '1'), F('pkg', '1'));
    expect(pushOf(rec, remote, stale, snap(T('a', '1'), T('b', '1'), T('pkg', 'mine'))).conflicts).toEqual(['b', 'pkg'].filter((p) => p === 'pkg'));
  });
  it('a write in flight elsewhere (recorded, not landed): changing the same path is a conflict, other paths go', () => {
    const inflight = record([F('a', '1'), F('b', '1')], { id: 'p2', paths: [['a', F('a', '1'), F('a', 'theirs')]] });
    const now = snap(F('a', '1'), F('b', '1'));
    const mine = snap(F('a', '1'), F('b', '1'));
    const got = pushOf(inflight, now, mine, snap(T('a', 'mine'), T('b', 'mine')));
    expect(got.conflicts).toEqual(['a']);
    expect(got.changes).toEqual(['write b']);
    // ...the same content as theirs is no write either: their write may have landed and been
    // undone by hand since (issue 43), which the record cannot tell from one still in flight.
    expect(pushOf(inflight, now, mine, snap(T('a', 'theirs'), T('b', '1')))).toMatchObject({ conflicts: ['a'], changes: [] });
    // A fresh clone (no base, no copy) is as careful.
    expect(pushOf(inflight, now, null, snap(T('a', 'mine'), T('b', '1'))).conflicts).toEqual(['a']);
  });
  it('our own batch not landed is not in flight elsewhere: the retry writes', () => {
    const own = record([F('a', '1')], { id: 'mine', paths: [['a', F('a', '1'), F('a', '2')]] });
    expect(pushOf(own, snap(F('a', '1')), snap(F('a', '1')), snap(T('a', '2')), { own: ['mine'] }).changes).toEqual(['write a']);
    expect(pushOf(own, snap(F('a', '1')), snap(F('a', '1')), snap(T('a', '3')), { own: ['mine'] }).changes).toEqual(['write a']);
    // Someone else's (not landed) with other content than ours: a conflict.
    expect(pushOf(own, snap(F('a', '1')), snap(F('a', '1')), snap(T('a', '3'))).conflicts).toEqual(['a']);
  });
  it('a fresh clone that lost the race: what the winner wrote since its first read is a conflict, not overwritten', () => {
    const won = record([F('a', '1'), F('b', '1')], { id: 'winner', paths: [['a', F('a', '1'), F('a', 'won')]] });
    const got = pushOf(won, snap(F('a', 'won'), F('b', '1')), null, snap(T('a', 'lost'), T('b', '2')), { planned: ['snap'] });
    expect(got.conflicts).toEqual(['a']);
    expect(got.changes).toEqual(['write b']);
    // Without the seen set it would have been taken for the base and overwritten:
    expect(pushOf(won, snap(F('a', 'won'), F('b', '1')), null, snap(T('a', 'lost'), T('b', '2'))).changes).toEqual(['write a', 'write b']);
    // A stale copy that lost the race to a write of the same path: conflict as well.
    const stale = snap(F('a', '1'), F('b', '1'));
    expect(pushOf(won, snap(F('a', 'won'), F('b', '1')), stale, snap(T('a', 'lost'), T('b', '1')), { planned: ['snap'] }).conflicts).toEqual(['a']);
  });
});

describe('a batch is not pending forever (issue 43)', () => {
  const HOUR_AGO = new Date(Date.now() - 3_600_000).toISOString();
  /** Push v1, push v2 (landed), then v1 put back on the deployment by hand. */
  function reverted(t: string) {
    const text = snapshotText(H('s1', 'snapshot', t), [F('app.js', 'v1')], 'a'.repeat(32));
    const batch = batchText(H('p2', 'push', t), [{ path: 'app.js', before: E(F('app.js', 'v1')), after: E(F('app.js', 'v2')) }]);
    return parseRecord(appendedText(text, 'a'.repeat(32), batch, 'b'.repeat(32)));
  }
  const remote = snap(F('app.js', 'v1'));
  it('a young batch whose before is on the deployment: pending (in flight, failed, or undone: cannot be told)', () => {
    expect(replayRecord(reverted(RECENT), remote).get('app.js')!.state).toBe('pending');
  });
  it('past PENDING_MAX_MS the same is a change made since (other): its after is what hostsync left', () => {
    const r = replayRecord(reverted(HOUR_AGO), remote).get('app.js')!;
    expect(r.state).toBe('other');
    expect(r.base!.hash).toBe(F('app.js', 'v2').hash);
  });
  it('a fresh clone holding v2 never writes it over the hand revert: a conflict while young, drift after', () => {
    expect(pushOf(reverted(RECENT), remote, null, snap(T('app.js', 'v2')))).toMatchObject({ changes: [], conflicts: ['app.js'] });
    expect(pushOf(reverted(HOUR_AGO), remote, null, snap(T('app.js', 'v2')))).toMatchObject({ changes: [], conflicts: [], drift: ['app.js'] });
  });
  it('a header time that does not parse is never in flight', () => {
    expect(replayRecord(reverted('yesterday'), remote).get('app.js')!.state).toBe('other');
  });
});

describe('a write in flight when the record was read that lands before the next read (issue 44, item 13)', () => {
  it('is the other push\'s change (elsewhere), never drift', () => {
    const inflight = record([F('a', '1'), F('b', '1')], { id: 'y', paths: [['b', F('b', '1'), F('b', 'y')]] });
    const mine = snap(F('a', '1'), F('b', '1'));
    // Merged while y's write was not on the deployment...
    const m = mergeRecord(inflight, snap(F('a', '1'), F('b', '1')), mine, { own: new Set(), planned: null });
    // ...decided again on the verifying read, after it landed.
    const r = reconcile(m.base, snap(T('a', 'x'), T('b', '1')), snap(F('a', 'x'), F('b', 'y')), { force: false, mirror: false, elsewhere: m.elsewhere });
    expect(r.drift).toEqual([]);
    expect((r.elsewhere ?? []).map((e) => e.path)).toEqual(['b']);
  });
});

