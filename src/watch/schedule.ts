/**
 * When the watch daemon runs its next sync cycle: a pure function of what is pending,
 * whether a cycle is running, and the clock. No timers and no I/O live here, so every
 * rule is table-tested (test/watch/schedule.test.ts); scheduler.ts drives it with timers.
 *
 * Rules:
 * - Debounce: a batch fires once the tree has been quiet for `debounceMs` after its LAST
 *   event (`bulkQuietMs` once it holds `bulkPaths` paths or is a full rescan: a bulk
 *   change's deletions and additions come late), but never later than `maxWaitMs` after
 *   its FIRST event (a file saved every 100 ms forever still syncs every maxWaitMs: the
 *   last content wins, nothing starves).
 * - One cycle at a time: while one runs, nothing fires; what arrives meanwhile is the
 *   next batch, and its debounce clock started with its own first event.
 * - Backoff: after a transient failure nothing fires before `notBefore`.
 * - Drift poll: with nothing pending, a cycle with no local paths runs `pollMs` after the
 *   last cycle that read the whole remote (scoped cycles read only their paths, so they
 *   do not count).
 * - Budget: a cycle starts no sooner than `paceUntil` (background work: `backgroundPaceUntil`),
 *   set from the rate budget (pacer.ts); meanwhile the batch keeps growing, so a low
 *   budget means longer coalescing, never a cycle stalled halfway by the client's pacing.
 * - Idle verification: a cycle that left writes unverified asks for one check at
 *   `verifyAt`; pending changes go first (their cycle verifies those writes anyway), and
 *   the check comes before a drift poll due at the same time.
 */

export interface ScheduleTunables {
  debounceMs: number;
  /** A batch of at least `bulkPaths` paths, or a full one, waits `bulkQuietMs` of quiet instead. */
  bulkPaths: number;
  bulkQuietMs: number;
  maxWaitMs: number;
  /** 0 or Infinity: never poll. */
  pollMs: number;
}

/** Local changes seen but not yet synced. Times are the scheduler clock's milliseconds. */
export interface Pending {
  /** Touched relative paths (files or directories); empty when `full`. */
  paths: Set<string>;
  /** Rescan the whole tree (watcher error, event storm, start-up). */
  full: boolean;
  /** When the first event of this batch arrived: save-to-live is measured from here. */
  firstAt: number;
  lastAt: number;
}

export interface ScheduleState {
  pending: Pending | null;
  running: boolean;
  /** Earliest time the next cycle may start (backoff after a transient failure); 0 = no limit. */
  notBefore: number;
  /** End of the last cycle that read the whole remote. */
  lastSyncAt: number;
  /** When the idle verification of earlier writes is due; absent or Infinity: none owed. */
  verifyAt?: number;
  /** Budget pacing (pacer.ts): no change cycle before this; absent = no limit. */
  paceUntil?: number;
  /** The same for a drift poll or an idle verification. */
  backgroundPaceUntil?: number;
}

/** What one cycle is asked to do. */
export interface Batch {
  paths: string[];
  full: boolean;
  /** Nothing changed locally: a periodic look at the remote digest. */
  poll: boolean;
  /** Clock time of the batch's first event; null for a poll. */
  firstAt: number | null;
  /** Set (true) only on the idle verification of earlier writes: no local paths, no poll. */
  verify?: true;
}

export type Decision =
  /** A cycle is running: its end re-decides. */
  | { kind: 'busy' }
  /** Come back at `at` (clock time); `at` is Infinity when there is nothing to wait for. */
  | { kind: 'wait'; at: number }
  | { kind: 'run'; batch: Batch };

/** The time a pending batch is due, ignoring backoff. */
export function dueAt(pending: Pending, t: ScheduleTunables): number {
  const quiet = pending.full || pending.paths.size >= t.bulkPaths ? t.bulkQuietMs : t.debounceMs;
  return Math.min(pending.lastAt + quiet, pending.firstAt + t.maxWaitMs);
}

export function decide(state: ScheduleState, now: number, t: ScheduleTunables): Decision {
  if (state.running) return { kind: 'busy' };
  if (state.pending) {
    const at = Math.max(dueAt(state.pending, t), state.notBefore, state.paceUntil ?? 0);
    if (now < at) return { kind: 'wait', at };
    const p = state.pending;
    return { kind: 'run', batch: { paths: [...p.paths], full: p.full, poll: false, firstAt: p.firstAt } };
  }
  const bg = state.backgroundPaceUntil ?? 0;
  const verifyAt = state.verifyAt === undefined || !Number.isFinite(state.verifyAt) ? Infinity : Math.max(state.verifyAt, state.notBefore, bg);
  if (now >= verifyAt) return { kind: 'run', batch: { paths: [], full: false, poll: false, firstAt: null, verify: true } };
  if (!(t.pollMs > 0) || !Number.isFinite(t.pollMs)) return { kind: 'wait', at: verifyAt };
  const at = Math.max(state.lastSyncAt + t.pollMs, state.notBefore, bg);
  if (now < at) return { kind: 'wait', at: Math.min(at, verifyAt) };
  return { kind: 'run', batch: { paths: [], full: false, poll: true, firstAt: null } };
}

/** Adds events seen at `now` to what is pending (a new batch starts its clocks at `now`). */
export function addEvents(pending: Pending | null, paths: readonly string[], now: number, full = false): Pending {
  const next = pending ?? { paths: new Set<string>(), full: false, firstAt: now, lastAt: now };
  next.lastAt = now;
  if (full) markFull(next);
  else if (!next.full) for (const p of paths) next.paths.add(p);
  return next;
}

/**
 * The batch becomes a full rescan. Its paths are dropped: a full rescan finds every
 * change by itself, and a storm's path set must not grow without bound.
 */
export function markFull(pending: Pending): void {
  pending.full = true;
  pending.paths.clear();
}

/**
 * A batch whose cycle failed goes back in front of whatever arrived meanwhile: its paths
 * are still unsynced, and save-to-live keeps counting from its first event. A failed poll
 * comes back as an empty batch, so the retry still looks at the service.
 */
export function requeue(pending: Pending | null, batch: Batch, now: number): Pending | null {
  // A failed idle verification is owed again (the scheduler re-arms verifyAt), not a change.
  if (batch.verify) return pending;
  const firstAt = batch.firstAt ?? now;
  const next = pending ?? { paths: new Set<string>(), full: false, firstAt, lastAt: firstAt };
  next.firstAt = Math.min(next.firstAt, firstAt);
  if (batch.full) markFull(next);
  else if (!next.full) for (const p of batch.paths) next.paths.add(p);
  return next;
}
