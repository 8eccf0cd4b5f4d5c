/** What a watch cycle reports, worked out from the push reports and client counts it made. Pure. */
import type { ClientStats } from '../remote/client.js';
import type { ChangeCounts, PushReport } from '../sync/push/push-report.js';

/** Requests per operation a cycle sent: the client's counts after it less those before. */
export function diffOps(before: ClientStats, after: ClientStats): Record<string, number> {
  const out: Record<string, number> = {};
  for (const [op, n] of Object.entries(after.byOperation)) {
    const d = n - (before.byOperation[op] ?? 0);
    if (d > 0) out[op] = d;
  }
  return out;
}

/** A push report that also tells what the cycle's verification step (a scoped cycle before it) sent. */
export function withEarlier(report: PushReport, earlier: PushReport): PushReport {
  const counts = { ...report.counts };
  for (const k of Object.keys(counts) as (keyof ChangeCounts)[]) counts[k] += earlier.counts[k];
  const known = new Set(report.conflicts.map((c) => c.path));
  return {
    ...report,
    counts,
    changes: [...earlier.changes, ...report.changes],
    conflicts: [...report.conflicts, ...earlier.conflicts.filter((c) => !known.has(c.path))],
    failures: [...earlier.failures, ...report.failures],
    warnings: [...earlier.warnings, ...report.warnings],
  };
}

/** Identifies the set of conflicts and drift, to tell a human only when it changes. */
export function remoteSignature(report: Pick<PushReport, 'conflicts' | 'drift'>): string {
  return JSON.stringify([report.conflicts.map((c) => [c.path, c.reason]), report.drift.map((d) => [d.path, d.kind])]);
}
