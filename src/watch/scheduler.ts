/**
 * Drives schedule.ts with timers: collects watcher events, starts one sync cycle at a
 * time when decide() says so, re-queues a failed batch with its backoff, and stops
 * cleanly. The clock is injected so tests run it on fake time.
 *
 * Invariants:
 * - At most one cycle runs; `touch` during a cycle only grows the next batch.
 * - A batch leaves `pending` only when its cycle starts, and comes back if that cycle
 *   asks for a retry (or throws): paths are never lost to a failure.
 * - At most one timer is armed; after stop() none is, and no cycle starts.
 */
import type { BudgetView } from '../remote/client.js';
import { Pacer, type PaceTunables } from './pacer.js';
import { addEvents, decide, markFull, requeue, type Batch, type ScheduleState, type ScheduleTunables } from './schedule.js';

export interface Clock {
  now(): number;
  setTimeout(fn: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

export const systemClock: Clock = {
  now: () => performance.now(),
  setTimeout: (fn, ms) => setTimeout(fn, ms),
  clearTimeout: (handle) => clearTimeout(handle as NodeJS.Timeout),
};

export type CycleOutcome =
  /**
   * `reachedService`: the cycle read the whole remote, so the drift poll clock restarts.
   * `verifyInMs`: writes are still unverified; an idle check is due this long after the
   * cycle unless another cycle comes first (and says again).
   */
  | { kind: 'done'; reachedService: boolean; verifyInMs?: number }
  /** Transient failure: the batch comes back, and nothing runs for `afterMs`. */
  | { kind: 'retry'; afterMs: number; verifyInMs?: number };

export interface SchedulerOptions {
  tunables: ScheduleTunables;
  /** Pending paths past this count collapse into one full rescan (an event storm). */
  stormPaths: number;
  /** Runs one cycle. Should not throw; if it does, the batch is retried after `crashRetryMs`. */
  run: (batch: Batch) => Promise<CycleOutcome>;
  crashRetryMs: number;
  onCrash?: (err: unknown) => void;
  clock?: Clock;
  /** The rate budget now (no request): cycles are paced by it (pacer.ts). Absent: never paced. */
  budget?: () => BudgetView;
  /** Requests a typical change cycle costs (read + write, + apply). */
  cycleCost?: number;
  pace?: PaceTunables;
}

export type StopResult = 'idle' | 'finished' | 'abandoned';

export class CycleScheduler {
  private readonly clock: Clock;
  private readonly state: ScheduleState;
  private timer: unknown = null;
  private timerAt = Infinity;
  private current: Promise<void> | null = null;
  private started = false;
  private stopped = false;
  private idleWaiters: (() => void)[] = [];
  private readonly pacer: Pacer | null;

  constructor(private readonly opts: SchedulerOptions) {
    this.clock = opts.clock ?? systemClock;
    this.pacer = opts.budget && opts.pace ? new Pacer(opts.pace, opts.cycleCost ?? 1) : null;
    this.state = { pending: null, running: false, notBefore: 0, lastSyncAt: this.clock.now() };
  }

  /** Starts deciding (and the drift-poll clock). Events touched before this are kept. */
  start(): void {
    if (this.started || this.stopped) return;
    this.started = true;
    this.state.lastSyncAt = this.clock.now();
    this.reschedule();
  }

  /** Paths the watcher reported (relative, files or directories). */
  touch(paths: readonly string[]): void {
    if (this.stopped || paths.length === 0) return;
    const pending = addEvents(this.state.pending, paths, this.clock.now());
    if (pending.paths.size > this.opts.stormPaths) markFull(pending);
    this.state.pending = pending;
    this.reschedule();
  }

  /** The next cycle rescans the whole tree (watcher error, start-up). */
  rescanAll(): void {
    if (this.stopped) return;
    this.state.pending = addEvents(this.state.pending, [], this.clock.now(), true);
    this.reschedule();
  }

  get running(): boolean {
    return this.state.running;
  }

  /** True when no cycle runs and nothing local is pending (a poll may still come). */
  get idle(): boolean {
    return !this.state.running && this.state.pending === null;
  }

  /** What waits (touched paths, a rescan) and the backoff's end, read-only (the status file). */
  peek(): Readonly<ScheduleState> & { now: number } {
    return { ...this.state, now: this.clock.now() };
  }

  /** Resolves the next time the scheduler is idle (at once if it is). */
  whenIdle(): Promise<void> {
    if (this.idle) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  /** Resolves when the cycle in flight (if any) has ended, whatever its outcome. */
  settled(): Promise<void> {
    return this.current ? this.current.then(() => undefined, () => undefined) : Promise.resolve();
  }

  /**
   * No new cycle starts. A running one gets `graceMs` to finish; past that it is left
   * behind (the caller exits; abandoning is safe because the base is only saved after
   * the pushed files were verified).
   */
  async stop(graceMs: number): Promise<StopResult> {
    this.stopped = true;
    this.disarm();
    const current = this.current;
    if (!current) return 'idle';
    let graceTimer: unknown = null;
    const timedOut = new Promise<'abandoned'>((resolve) => {
      graceTimer = this.clock.setTimeout(() => resolve('abandoned'), graceMs);
    });
    const result = await Promise.race([current.then(() => 'finished' as const), timedOut]);
    this.clock.clearTimeout(graceTimer);
    return result;
  }

  private reschedule(): void {
    if (!this.started || this.stopped) return;
    const now = this.clock.now();
    this.pace(now);
    const d = decide(this.state, now, this.opts.tunables);
    if (d.kind === 'busy') return;
    if (d.kind === 'wait') {
      this.arm(d.at, now);
      return;
    }
    this.disarm();
    this.state.pending = null;
    this.state.running = true;
    this.current = this.runCycle(d.batch);
  }

  private async runCycle(batch: Batch): Promise<void> {
    let outcome: CycleOutcome;
    try {
      outcome = await this.opts.run(batch);
    } catch (err) {
      this.opts.onCrash?.(err);
      outcome = { kind: 'retry', afterMs: this.opts.crashRetryMs };
    }
    const now = this.clock.now();
    // A whole-tree cycle (start-up, rescan, drift poll) is bounded by the window alone.
    if (this.pacer && (batch.full || batch.poll)) this.pacer.observe(this.opts.budget!(), now, false);
    this.state.verifyAt = outcome.verifyInMs === undefined ? Infinity : now + outcome.verifyInMs;
    if (outcome.kind === 'retry') {
      this.state.pending = requeue(this.state.pending, batch, now);
      this.state.notBefore = now + outcome.afterMs;
    } else {
      this.state.notBefore = 0;
      if (outcome.reachedService) this.state.lastSyncAt = now;
    }
    this.state.running = false;
    this.current = null;
    if (this.idle) for (const resolve of this.idleWaiters.splice(0)) resolve();
    this.reschedule();
  }

  /** When the budget lets the next change cycle, and the next background one, start. */
  private pace(now: number): void {
    if (!this.pacer) return;
    const b = this.opts.budget!();
    this.state.paceUntil = now + this.pacer.waitMs(b, now, false);
    this.state.backgroundPaceUntil = now + this.pacer.waitMs(b, now, true);
  }

  private arm(at: number, now: number): void {
    if (at === this.timerAt && this.timer !== null) return;
    this.disarm();
    if (!Number.isFinite(at)) return;
    this.timerAt = at;
    this.timer = this.clock.setTimeout(() => {
      this.timer = null;
      this.timerAt = Infinity;
      this.reschedule();
    }, Math.max(0, at - now));
  }

  private disarm(): void {
    if (this.timer !== null) this.clock.clearTimeout(this.timer);
    this.timer = null;
    this.timerAt = Infinity;
  }
}
