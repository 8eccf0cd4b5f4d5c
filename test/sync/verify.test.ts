import { describe, expect, it } from 'vitest';
import { decide } from '../../src/sync/core/decide.js';
import { landed, verify, type VerifyInput } from '../../src/sync/core/verify.js';
import type { Change, Snapshot } from '../../src/model/types.js';
import { file, show, snap } from './fixtures.js';

const none = { force: false, mirror: false };

/** A push of `local` over `base`, judged against what the remote held afterwards. */
function judge(base: Snapshot | null, local: Snapshot, after: Snapshot, extra: Partial<VerifyInput> = {}) {
  const before = decide({ base, scanned: local, skipped: [], remote: { snapshot: base ?? snap(), symlinks: [] }, options: none });
  const verifying = decide({ base, scanned: local, skipped: [], remote: { snapshot: after, symlinks: [] }, options: none });
  return verify({
    oldBase: base, intended: before.rec.changes, failures: [], vanished: new Set(), held: new Set(), sent: new Map(),
    local: verifying.local, remote: after, rec: verifying.rec, firstConflicts: before.rec.conflicts, ...extra,
  });
}

describe('decide', () => {
  it('reconciles and plans in one pure step', () => {
    const base = snap(file('a', '1'), file('b', '1'));
    const d = decide({ base, scanned: snap(file('a', '2'), file('b', '1')), skipped: [], remote: { snapshot: base, symlinks: [] }, options: none });
    expect(d.rec.changes.map(show)).toEqual(['write a']);
    expect(d.plan.steps.length).toBeGreaterThan(0);
  });

  it('never deletes a path the scan skipped, and refuses to write through a remote symlink', () => {
    const base = snap(file('keep', 'k'), file('link/x', 'x'));
    const d = decide({ base, scanned: snap(file('link/x', 'y')), skipped: ['keep'], remote: { snapshot: base, symlinks: ['link'] }, options: none });
    expect(d.rec.changes).toEqual([]);
    expect(d.rec.conflicts.map((c) => [c.path, c.reason])).toEqual([['link/x', 'remote-symlink']]);
  });
});

describe('landed', () => {
  const local = snap(file('a', '2'), file('to', 'r'));
  it.each<[string, Change, Snapshot, boolean]>([
    ['a write whose bytes are on the remote', { kind: 'write', path: 'a', entry: file('a', '2'), create: false }, snap(file('a', '2')), true],
    ['a write the remote does not hold', { kind: 'write', path: 'a', entry: file('a', '2'), create: false }, snap(file('a', '1')), false],
    ['a delete that is gone', { kind: 'delete', path: 'd', base: file('d', 'x') }, snap(), true],
    ['a delete still there', { kind: 'delete', path: 'd', base: file('d', 'x') }, snap(file('d', 'x')), false],
    ['a rename with the source gone', { kind: 'rename', from: 'from', to: 'to', entry: file('to', 'r') }, snap(file('to', 'r')), true],
    ['a rename that left its source', { kind: 'rename', from: 'from', to: 'to', entry: file('to', 'r') }, snap(file('from', 'r'), file('to', 'r')), false],
  ])('%s', (_name, change, remote, expected) => {
    expect(landed(change, local, remote)).toBe(expected);
  });
});

describe('verify', () => {
  it('a push that landed: no failure, the base is the new tree', () => {
    const v = judge(snap(file('a', '1')), snap(file('a', '2')), snap(file('a', '2')));
    expect(v.failures).toEqual([]);
    expect(v.base.get('a')?.hash).toBe(file('a', '2').hash);
  });

  it('a write that did not land fails verification and keeps its old base entry (still pending)', () => {
    const v = judge(snap(file('a', '1')), snap(file('a', '2')), snap(file('a', '1')));
    expect(v.failures).toEqual([{ path: 'a', error: expect.stringMatching(/verification failed/) }]);
    expect(v.base.get('a')?.hash).toBe(file('a', '1').hash);
  });

  it('a failure the transfer reported is not reported twice', () => {
    const v = judge(snap(file('a', '1')), snap(file('a', '2')), snap(file('a', '1')), { failures: [{ path: 'a', error: 'boom' }] });
    expect(v.failures).toEqual([]);
  });

  it('a file that vanished locally is a warning, not a failure', () => {
    const v = judge(snap(file('a', '1')), snap(file('a', '2')), snap(file('a', '1')), { vanished: new Set(['a']) });
    expect(v.failures).toEqual([]);
    expect(v.warnings).toEqual([expect.stringMatching(/^a disappeared locally/)]);
  });

  it('bytes we sent that a local edit overtook are adopted as the base, not a conflict with itself', () => {
    // The scan saw v2; the send read v3 (edited meanwhile); the verifying scan still says v2.
    const sentHash = file('a', '3').hash!;
    const v = judge(snap(file('a', '1')), snap(file('a', '2')), snap(file('a', '3')), { sent: new Map([['a', sentHash]]) });
    expect(v.failures.map((f) => f.path)).toEqual(['a']);
    expect(v.conflicts).toEqual([]);
    expect(v.base.get('a')?.hash).toBe(sentHash);
  });

  it('adopting bytes we sent leaves the reconciliation it settled from as it was', () => {
    const base = snap(file('a', '1'));
    const local = snap(file('a', '2'));
    const after = snap(file('a', '3'));
    const before = decide({ base, scanned: local, skipped: [], remote: { snapshot: base, symlinks: [] }, options: none });
    const verifying = decide({ base, scanned: local, skipped: [], remote: { snapshot: after, symlinks: [] }, options: none });
    const nextBefore = new Map(verifying.rec.nextBase);
    const v = verify({
      oldBase: base, intended: before.rec.changes, failures: [], vanished: new Set(), held: new Set(), sent: new Map([['a', file('a', '3').hash!]]),
      local: verifying.local, remote: after, rec: verifying.rec, firstConflicts: before.rec.conflicts,
    });
    expect(v.base.get('a')?.hash).toBe(file('a', '3').hash);
    expect(verifying.rec.nextBase).toEqual(nextBefore);
  });

  it('bytes someone else wrote stay a conflict and are never adopted', () => {
    const v = judge(snap(file('a', '1')), snap(file('a', '2')), snap(file('a', 'theirs')), { sent: new Map([['a', file('a', '2').hash!]]) });
    expect(v.conflicts.map((c) => c.path)).toEqual(['a']);
    expect(v.base.get('a')?.hash).toBe(file('a', '1').hash);
  });

  it('a write held back because the deployment changed the file meanwhile is a conflict, not a failure', () => {
    const v = judge(snap(file('a', '1')), snap(file('a', '2')), snap(file('a', 'app')), { held: new Set(['a']) });
    expect(v.failures).toEqual([]);
    expect(v.conflicts.map((c) => [c.path, c.reason])).toEqual([['a', 'both-modified']]);
    expect(v.counts.written).toBe(0);
    expect(v.base.get('a')?.hash).toBe(file('a', '1').hash);
  });

  it('a held write whose remote edit was undone meanwhile is still a failure (it did not land)', () => {
    const v = judge(snap(file('a', '1')), snap(file('a', '2')), snap(file('a', '1')), { held: new Set(['a']) });
    expect(v.failures).toEqual([{ path: 'a', error: expect.stringMatching(/changed on the deployment during the push/) }]);
  });
});
