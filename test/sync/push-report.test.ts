import { describe, expect, it } from 'vitest';
import { emptyPushReport, logLineOf } from '../../src/sync/push/push-report.js';

describe('push-report', () => {
  it('an empty report did nothing, owes nothing and judged nothing', () => {
    const r = emptyPushReport();
    expect(r.counts).toEqual({ written: 0, deleted: 0, moved: 0, chmod: 0 });
    expect([r.apply, r.health, r.healthy, r.position, r.positionRefused, r.rolledBack]).toEqual([null, null, null, null, null, null]);
    expect(r.applyPending).toBe(false);
    expect(r.massDelete.refuse).toBe(false);
  });

  it('each empty report is its own: filling one leaves the next empty', () => {
    const a = emptyPushReport();
    a.counts.written = 3;
    a.warnings.push('w');
    expect(emptyPushReport().counts.written).toBe(0);
    expect(emptyPushReport().warnings).toEqual([]);
  });

  it('the audit line counts, never lists: no path of the tree reaches push.log', () => {
    const r = emptyPushReport();
    r.counts.written = 2;
    r.conflicts.push({ path: 'secret/plan.txt', reason: 'both-modified' } as never);
    r.durationMs = 40;
    const line = logLineOf('watch', r, 5);
    expect(line).toEqual({ command: 'watch', written: 2, deleted: 0, moved: 0, chmod: 0, conflicts: 1, failures: 0, requests: 5, healthy: null, ms: 40 });
    expect(JSON.stringify(line)).not.toContain('secret');
  });
});
