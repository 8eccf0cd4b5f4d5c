import { describe, expect, it } from 'vitest';
import { DeleteWindow } from '../../src/watch/delete-window.js';
import { diffOps, remoteSignature, withEarlier } from '../../src/watch/cycle-report.js';
import { lastCycleAfter } from '../../src/watch/status-notes.js';
import { WATCH_DELETE_WINDOW_MS } from '../../src/watch/tunables.js';
import { emptyPushReport } from '../../src/sync/push/push-report.js';
import type { CycleEvent } from '../../src/watch/daemon-types.js';
import type { ClientStats } from '../../src/remote/client.js';

const report = (deleted: number, heldDeletes: string[] = []) => {
  const r = emptyPushReport();
  r.counts.deleted = deleted;
  r.heldDeletes = heldDeletes;
  return r;
};

describe('DeleteWindow: the mass-delete guard across cycles', () => {
  it('deletions within the window count with the next cycle, older ones drop out', () => {
    const w = new DeleteWindow();
    w.after(report(3), false, 0);
    w.after(report(2), false, 10);
    expect(w.guard(20).holdMassDelete.recentDeletes).toBe(5);
    expect(w.guard(WATCH_DELETE_WINDOW_MS + 5).holdMassDelete.recentDeletes).toBe(2);
  });

  it('held deletions are news once; the window stops sliding while they are held; confirming lets them through and starts afresh', () => {
    const w = new DeleteWindow();
    expect(w.after(report(4, ['a', 'b']), false, 0)).toEqual(['a', 'b']);
    expect(w.after(report(0, ['a', 'b']), false, 1)).toBeNull();
    expect(w.guard(WATCH_DELETE_WINDOW_MS * 3).holdMassDelete.recentDeletes).toBe(4);
    expect(w.confirm()).toEqual(['a', 'b']);
    expect(w.guard(0).allowMassDelete).toBe(true);
    w.after(report(2), true, 2);
    expect(w.guard(3)).toEqual({ holdMassDelete: { recentDeletes: 0 }, allowMassDelete: false });
    expect(w.confirm()).toBeNull();
  });
});

describe('cycle-report', () => {
  it('a cycle after its verification step reports both, a conflict once', () => {
    const earlier = emptyPushReport();
    earlier.counts.written = 1;
    earlier.conflicts.push({ path: 'x', reason: 'both-modified' } as never);
    const now = emptyPushReport();
    now.counts.written = 2;
    now.conflicts.push({ path: 'x', reason: 'both-modified' } as never);
    const merged = withEarlier(now, earlier);
    expect(merged.counts.written).toBe(3);
    expect(merged.conflicts).toHaveLength(1);
  });

  it('requests per operation are the difference of two counts, zeros left out', () => {
    const stats = (byOperation: Record<string, number>) => ({ byOperation }) as unknown as ClientStats;
    expect(diffOps(stats({ 'files.index': 2, 'files.write': 1 }), stats({ 'files.index': 3, 'files.write': 1 }))).toEqual({ 'files.index': 1 });
  });

  it('the remote signature changes with the conflicts and drift, not their order of arrival within one report', () => {
    const a = emptyPushReport();
    expect(remoteSignature(a)).toBe(remoteSignature(emptyPushReport()));
    a.drift.push({ path: 'p', kind: 'modified' } as never);
    expect(remoteSignature(a)).not.toBe(remoteSignature(emptyPushReport()));
  });
});

describe('status-notes: the last cycle worth showing', () => {
  const cycle = (over: Partial<CycleEvent>): CycleEvent => ({
    type: 'cycle', time: new Date(0), trigger: 'change', changes: [], counts: { written: 1, deleted: 0, moved: 0, chmod: 0 }, requests: 3,
    byOperation: {}, rateLimited: 0, apply: null, healthy: null, conflicts: [], drift: [], failures: [], warnings: [], ms: 5, cycleMs: 4, quiet: false, ...over,
  });

  it('a quiet poll keeps the last cycle that did something', () => {
    const first = lastCycleAfter(cycle({}), null, true);
    expect(first).toMatchObject({ outcome: 'synced', changed: 1 });
    expect(lastCycleAfter(cycle({ quiet: true, counts: { written: 0, deleted: 0, moved: 0, chmod: 0 } }), first, true)).toBe(first);
  });

  it('a failure that retrying may fix is "failed", a refusal is said as such, other events change nothing', () => {
    expect(lastCycleAfter(cycle({ failures: [{ path: 'a', error: 'e' }] }), null, true)).toMatchObject({ outcome: 'failed', message: 'a: e' });
    expect(lastCycleAfter({ type: 'refused', message: 'no' }, null, false)).toMatchObject({ outcome: 'refused', trigger: 'start', message: 'no' });
    expect(lastCycleAfter({ type: 'rescan', reason: 'r' }, null, true)).toBeNull();
  });
});
