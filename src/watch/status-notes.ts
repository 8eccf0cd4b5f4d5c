/**
 * What the status file (.hostsync/<deployment>/watch.json, state/watch-status.ts) says of a
 * running watch: how its last cycle worth showing ended, and the whole record `hostsync
 * status` reads, from what the daemon hands in (no I/O of its own).
 */
import { hostname } from 'node:os';
import type { WatchCycleSummary, WatchStatusRecord } from '../state/watch-status.js';
import type { BudgetView } from '../remote/client.js';
import type { Batch } from './schedule.js';
import type { CycleScheduler } from './scheduler.js';
import type { WatchEvent } from './daemon-types.js';
import { WATCH_STATUS_SAMPLE_PATHS } from './tunables.js';

/** The last cycle worth showing after event `e` (`synced`: a push has completed since the start). */
export function lastCycleAfter(e: WatchEvent, last: WatchCycleSummary | null, synced: boolean): WatchCycleSummary | null {
  const at = e.type === 'cycle' ? e.time.toISOString() : new Date().toISOString();
  const bare = { at, trigger: synced ? 'change' as const : 'start' as const, changed: 0, requests: 0, rateLimited: 0, ms: null, cycleMs: null, healthy: null, state: null };
  switch (e.type) {
    case 'cycle': {
      // A quiet poll or idle check found nothing: the cycle worth showing stays the last one that did something.
      if (e.quiet && last !== null) return last;
      const changed = e.counts.written + e.counts.deleted + e.counts.moved + e.counts.chmod;
      const outcome = e.failures.some((f) => !f.permanent) ? 'failed' : e.conflicts.length > 0 ? 'conflicts' : 'synced';
      return {
        at, trigger: e.trigger, outcome, changed, requests: e.requests, rateLimited: e.rateLimited, ms: e.ms, cycleMs: e.cycleMs,
        healthy: e.healthy, state: e.apply?.state ?? null, message: e.failures[0] ? `${e.failures[0].path}: ${e.failures[0].error}` : null,
      };
    }
    case 'waiting':
    case 'error':
    case 'refused':
    case 'fatal':
      return { ...bare, outcome: e.type, message: e.message };
    default:
      return last;
  }
}

/** What the daemon knows when the status file is written. */
export interface StatusInputs {
  startedAt: Date;
  /** The watcher running, or null while none is. */
  backend: 'native' | 'chokidar' | null;
  apply: boolean;
  sched: ReturnType<CycleScheduler['peek']>;
  /** The batch of the cycle running now, or null. */
  running: Batch | null;
  /** Writes sent and not yet verified. */
  unverified: number;
  budget: BudgetView;
  cycles: number;
  lastCycle: WatchCycleSummary | null;
}

export function statusRecordOf(i: StatusInputs): WatchStatusRecord {
  const { sched } = i;
  const paths = new Set<string>([...(sched.pending?.paths ?? []), ...(i.running?.paths ?? [])]);
  const retryInMs = sched.notBefore - sched.now;
  return {
    version: 1,
    pid: process.pid,
    host: hostname(),
    startedAt: i.startedAt.toISOString(),
    updatedAt: new Date().toISOString(),
    backend: i.backend,
    apply: i.apply,
    pending: {
      paths: paths.size,
      sample: [...paths].sort().slice(0, WATCH_STATUS_SAMPLE_PATHS),
      unverified: i.unverified,
      rescan: (sched.pending?.full ?? false) || (i.running?.full ?? false),
      cycling: i.running !== null,
      retryAt: sched.notBefore > 0 && retryInMs > 0 ? new Date(Date.now() + retryInMs).toISOString() : null,
    },
    budget: (() => {
      const b = i.budget;
      return { limit: b.limit, windowMs: b.windowMs, remaining: Math.max(0, b.limit - b.used) };
    })(),
    cycles: i.cycles,
    lastCycle: i.lastCycle,
  };
}
