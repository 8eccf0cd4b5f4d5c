/**
 * The one queue every request of a client goes through: p-queue for order, priorities,
 * the in-flight bound, pause()/start() and onIdle, with our rate policy on top.
 *
 * Invariants:
 * - Waiting requests start by priority, FIFO within one priority; a retry re-enters
 *   ahead of everything waiting (PRIORITY.retry). Nothing is let past the head, not even
 *   a request that would need no rate slot: while the head waits for budget, p-queue is
 *   paused, so order is kept.
 * - That orders STARTS, not effects. With several in flight a later request can finish
 *   first, and while a failed call waits out its backoff (outside the queue) requests
 *   scheduled after it start and may complete before its retry. Callers that need B
 *   after A must await A before scheduling B (the engine awaits dependent groups in
 *   sequence); the queue gives no such guarantee.
 * - At most `maxInFlight` requests are running at once (p-queue's concurrency).
 * - A request that counts against the API budget starts only when the sliding window
 *   has room and no 429 pause is in force; its slot is released when it settles.
 *
 * Where a budget shared beyond this process gates a send: inside the job's run(), after
 * the queue gave it its slot (client.ts attempt(): the cross-process ledger's reserve()).
 * An async wait there holds one of the `maxInFlight` places and our slot while the other
 * process spends the budget; the 429 pause still applies to whatever starts meanwhile.
 *
 * What is ours and not p-queue's: the budget is a sliding window corrected by the
 * server's X-RateLimit-Remaining (ratelimit.ts), and a 429's Retry-After pauses every
 * budget-spending start. p-queue's own interval limiter counts start times in fixed
 * windows and can be neither corrected nor told to wait, so it is not used; the head job
 * takes its slot from our window when p-queue starts it, and pauses p-queue until it has one.
 */
import PQueue from 'p-queue';
import { ApiError } from './errors.js';
import type { Slot, SlidingWindow } from './ratelimit.js';

export interface QueueJob<T> {
  /** The operation's name, for the error a job gets when the queue is closed before it starts. */
  operation?: string;
  /** Whether this request spends API budget (signed-URL transfers do not). */
  rateLimited: boolean;
  run(slot: Slot | undefined): Promise<T>;
}

/** p-queue priorities: higher starts first. */
export const PRIORITY = {
  normal: 0,
  /** A repeat of a request already admitted once (after a 429 or a transient failure). */
  retry: 1,
} as const;

interface Waiting {
  job: QueueJob<unknown>;
  resolve(v: unknown): void;
  reject(e: unknown): void;
}

export class RequestQueue {
  private readonly pq: PQueue;
  /** Scheduled, not yet started by p-queue: rejected by close(). */
  private readonly notStarted = new Set<Waiting>();
  /** The job p-queue started that waits for budget while p-queue is paused behind it. */
  private head: { w: Waiting; retry(): void; fail(e: unknown): void } | undefined;
  private timer: NodeJS.Timeout | undefined;
  private resumeTimer: NodeJS.Timeout | undefined;
  private closed = false;
  private closedReason: (operation: string) => Error = closedError;
  /** Since when the head has been held back by our own pacing (not a 429 pause). */
  private pacedSince: number | undefined;
  private pacedTotal = 0;
  private pausedTotal = 0;

  constructor(
    readonly window: SlidingWindow,
    readonly maxInFlight: number,
    private readonly now: () => number,
  ) {
    if (!(maxInFlight >= 1)) throw new RangeError('maxInFlight must be >= 1');
    this.pq = new PQueue({ concurrency: maxInFlight });
  }

  schedule<T>(job: QueueJob<T>, opts: { front?: boolean; priority?: number } = {}): Promise<T> {
    if (this.closed) return Promise.reject(this.closedReason(job.operation ?? 'client'));
    return new Promise<T>((resolve, reject) => {
      const w: Waiting = { job: job as QueueJob<unknown>, resolve: resolve as (v: unknown) => void, reject };
      this.notStarted.add(w);
      const priority = opts.front ? PRIORITY.retry : (opts.priority ?? PRIORITY.normal);
      // Settled through `w`; p-queue's own promise carries nothing.
      void this.pq.add(() => this.begin(w), { priority }).catch(() => undefined);
    });
  }

  /** A 429 said wait: nothing that spends budget starts before `ms` from now. */
  pause(ms: number): void {
    this.pausedTotal += this.window.pause(ms, this.now());
    this.pq.pause();
    this.armResume();
  }

  /** Wall time the queue spent paused by 429s. */
  get waitedMs(): number {
    return Math.round(this.pausedTotal);
  }

  /** Wall time the head of the queue waited on our own window (pacing that avoided a 429). */
  get pacedMs(): number {
    const open = this.pacedSince === undefined ? 0 : this.now() - this.pacedSince;
    return Math.round(this.pacedTotal + open);
  }

  get pending(): number {
    return this.pq.size + this.pq.pending;
  }

  /** Resolves once nothing is waiting or running (p-queue's onIdle). */
  idle(): Promise<void> {
    return this.pq.onIdle();
  }

  resetCounters(): void {
    this.pausedTotal = 0;
    this.pacedTotal = 0;
    if (this.pacedSince !== undefined) this.pacedSince = this.now();
  }

  /**
   * Rejects everything not yet started, and everything scheduled later, with
   * `reason(operation)` (default: "the client was closed"); running requests finish
   * on their own. A second close may name a new reason (close, then destroy).
   */
  close(reason?: (operation: string) => Error): void {
    this.closed = true;
    if (reason) this.closedReason = reason;
    this.pq.clear();
    this.clearTimers();
    for (const w of this.notStarted) w.reject(this.closedReason(w.job.operation ?? 'client'));
    this.notStarted.clear();
    if (this.head) this.head.fail(this.closedReason(this.head.w.job.operation ?? 'client'));
  }

  /** Started by p-queue. Runs synchronously up to the wait, so a pause() here stops p-queue's start loop. */
  private begin(w: Waiting): Promise<void> {
    this.notStarted.delete(w);
    if (!w.job.rateLimited) return this.exec(w, undefined);
    const got = this.take();
    if (typeof got !== 'number') return this.exec(w, got);
    // Out of budget: this job is the head; everything behind it waits in p-queue.
    this.pq.pause();
    return new Promise<void>((resolve) => {
      const retry = (): void => {
        this.clearTimer();
        const r = this.take();
        if (typeof r === 'number') {
          // Infinity: only an in-flight answer frees room, and its settling retries.
          if (Number.isFinite(r)) this.timer = setTimeout(retry, Math.max(1, Math.ceil(r)));
          return;
        }
        this.head = undefined;
        // This job's send starts before p-queue lets anything behind it start.
        const sending = this.exec(w, r);
        this.resume();
        resolve(sending);
      };
      this.head = {
        w,
        retry,
        fail: (e) => {
          this.clearTimer();
          this.head = undefined;
          w.reject(e);
          resolve();
        },
      };
      retry();
    });
  }

  /** A slot if our window allows a send now, else ms to wait (Infinity: until an answer). */
  private take(): Slot | number {
    const now = this.now();
    const paused = this.window.pausedFor(now);
    if (paused > 0) return paused;
    const got = this.window.tryAcquire(now);
    if (typeof got === 'number') {
      if (this.pacedSince === undefined) this.pacedSince = now;
      return got;
    }
    if (this.pacedSince !== undefined) {
      this.pacedTotal += now - this.pacedSince;
      this.pacedSince = undefined;
    }
    return got;
  }

  private async exec(w: Waiting, slot: Slot | undefined): Promise<void> {
    try {
      w.resolve(await w.job.run(slot));
    } catch (e) {
      w.reject(e);
    } finally {
      if (slot) this.window.release(slot, this.now());
      this.head?.retry();
    }
  }

  /** Lets p-queue start jobs again, unless a head still waits or a 429 pause holds. */
  private resume(): void {
    if (this.closed || this.head) return;
    if (this.window.pausedFor(this.now()) > 0) {
      this.armResume();
      return;
    }
    this.pq.start();
  }

  private armResume(): void {
    if (this.resumeTimer) clearTimeout(this.resumeTimer);
    const ms = this.window.pausedFor(this.now());
    this.resumeTimer = setTimeout(() => {
      this.resumeTimer = undefined;
      this.resume();
    }, Math.max(1, Math.ceil(ms)));
  }

  private clearTimer(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
  }

  private clearTimers(): void {
    this.clearTimer();
    if (this.resumeTimer) clearTimeout(this.resumeTimer);
    this.resumeTimer = undefined;
  }
}

function closedError(operation: string): ApiError {
  return new ApiError(`${operation}: the hosting client was closed before this request could start`, {
    operation, status: 0, serverMessage: 'client closed', retryable: false, code: 'ECLIENTCLOSED',
  });
}
