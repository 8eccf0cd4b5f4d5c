import { describe, expect, it } from 'vitest';
import { reconcile } from '../../src/sync/core/reconcile.js';
import { keepOldEntries, settleBase } from '../../src/sync/core/settle.js';
import { file, snap } from './fixtures.js';

const none = { force: false, mirror: false };
const hashes = (s: Map<string, { hash: string | null }>) => Object.fromEntries([...s].map(([p, e]) => [p, e.hash]));

describe('settleBase: the base saved after a push, from a reconcile against the verified remote', () => {
  it('takes every path where local and remote agree', () => {
    const old = snap(file('a', '1'), file('gone', 'g'));
    const local = snap(file('a', '2'), file('new', 'n'));
    const verified = reconcile(old, local, local, none);
    expect(hashes(settleBase(old, verified))).toEqual(hashes(local));
  });

  it('keeps the old entry of a change still pending, so the next push plans it again (not drift)', () => {
    const old = snap(file('a', '1'));
    const verified = reconcile(old, snap(file('a', '2')), old, none); // the write did not land
    expect(verified.changes).toHaveLength(1);
    expect(hashes(settleBase(old, verified))).toEqual({ a: file('a', '1').hash });
  });

  it('a pending new file gets no base entry, and a pending rename keeps both ends as they were', () => {
    const old = snap(file('from', 'same content'));
    const verified = reconcile(old, snap(file('to', 'same content'), file('new', 'n')), old, none);
    expect(verified.changes.map((c) => c.kind).sort()).toEqual(['rename', 'write']);
    expect(hashes(settleBase(old, verified))).toEqual({ from: file('from', 'same content').hash });
  });

  it('keeps the base entry of a conflict (left alone until resolved)', () => {
    const old = snap(file('a', '1'));
    const verified = reconcile(old, snap(file('a', 'mine')), snap(file('a', 'theirs')), none);
    expect(verified.conflicts.map((c) => c.path)).toEqual(['a']);
    expect(hashes(settleBase(old, verified))).toEqual({ a: file('a', '1').hash });
  });

  it('with nothing pending it is the verified next base itself: a no-op push makes no entry of it', () => {
    const old = snap(file('a', '1'), file('b', '2'));
    const verified = reconcile(old, old, old, none);
    expect(verified.changes).toEqual([]);
    expect(settleBase(old, verified)).toBe(verified.nextBase);
  });

  it('does not modify the reconciliation it was given', () => {
    const old = snap(file('a', '1'));
    const verified = reconcile(old, snap(file('a', '2')), old, none);
    const before = new Map(verified.nextBase);
    settleBase(old, verified);
    expect(verified.nextBase).toEqual(before);
  });
});

describe('keepOldEntries', () => {
  it('restores what the old base had and drops what it did not', () => {
    const into = snap(file('a', 'x'), file('b', 'y'));
    keepOldEntries(into, snap(file('a', 'old')), ['a', 'b']);
    expect(hashes(into)).toEqual({ a: file('a', 'old').hash });
  });
});
