/**
 * The one queue every request of a client goes through.
 *
 * Invariants:
 * - Waiting requests start in the order they were scheduled (FIFO), and a retry
 *   re-enters at the front; nothing is let past the head, not even a request that
 *   would need no rate slot.
 * - That orders STARTS, not effects. With several in flight a later request can finish
 *   first, and while a failed call waits out its backoff (outside the queue) requests
 *   scheduled after it start and may complete before its retry. Callers that need B
 *   after A must await A before scheduling B (the engine awaits dependent groups in
 *   sequence); the queue gives no such guarantee.
 * - At most `maxInFlight` requests are running at once.
 * - A request that counts against the API budget starts only when the sliding
 *   window has room and no 429 pause is in force; its slot is released when it settles.
 *
 * p-queue is not used: its interval limiter counts start times in a fixed budget and
 * cannot be corrected by the server's X-RateLimit-Remaining or paused for a Retry-After,
 * and those two are the point of this queue.
 */

import { ApiError } from './errors.js';
import type { Slot, SlidingWindow } from './ratelimit.js';

export interface QueueJob<T> {
  /** The operation's name, for the error a job gets when the queue is closed before it starts. */
  operation?: string;
  /** Whether this request spends API budget (signed-URL transfers do not). */
  rateLimited: boolean;
  run(slot: Slot | undefined): Promise<T>;
}

interface Waiting {
  job: QueueJob<unknown>;
  resolve(v: unknown): void;
  reject(e: unknown): void;
}

export class RequestQueue {
  private readonly waiting: Waiting[] = [];
  private inFlight = 0;
  private timer: NodeJS.Timeout | undefined;
  private timerAt = Infinity;
  private closed = false;
  private closedReason: (operation: string) => Error = closedError;
  /** Since when the head of the queue has been held back by our own pacing (not a 429 pause). */
  private pacedSince: number | undefined;
  private pacedTotal = 0;
  private pausedTotal = 0;

  constructor(
    readonly window: SlidingWindow,
    readonly maxInFlight: number,
    private readonly now: () => number,
  ) {
    if (!(maxInFlight >= 1)) throw new RangeError('maxInFlight must be >= 1');
  }

  schedule<T>(job: QueueJob<T>, opts: { front?: boolean } = {}): Promise<T> {
    if (this.closed) return Promise.reject(this.closedReason(job.operation ?? 'client'));
    return new Promise<T>((resolve, reject) => {
      const w: Waiting = { job: job as QueueJob<unknown>, resolve: resolve as (v: unknown) => void, reject };
      if (opts.front) this.waiting.unshift(w);
      else this.waiting.push(w);
      this.pump();
    });
  }

  /** A 429 said wait: nothing that spends budget starts before `ms` from now. */
  pause(ms: number): void {
    this.pausedTotal += this.window.pause(ms, this.now());
    this.pump();
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
    return this.waiting.length + this.inFlight;
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
    this.clearTimer();
    for (const w of this.waiting.splice(0)) w.reject(this.closedReason(w.job.operation ?? 'client'));
  }


  private pump(): void {
    if (this.closed) return;
    while (this.waiting.length > 0 && this.inFlight < this.maxInFlight) {
      const head = this.waiting[0]!;
      let slot: Slot | undefined;
      if (head.job.rateLimited) {
        const now = this.now();
        const got = this.window.tryAcquire(now);
        if (typeof got === 'number') {
          const paused = this.window.pausedFor(now) > 0;
          if (!paused && this.pacedSince === undefined) this.pacedSince = now;
          // Infinity: only an in-flight answer frees room, and its settling pumps again.
          if (Number.isFinite(got)) this.wakeAt(now + got);
          return;
        }
        slot = got;
        if (this.pacedSince !== undefined) {
          this.pacedTotal += now - this.pacedSince;
          this.pacedSince = undefined;
        }
      }
      this.waiting.shift();
      this.start(head, slot);
    }
  }

  private start(w: Waiting, slot: Slot | undefined): void {
    this.inFlight++;
    const settle = (): void => {
      if (slot) this.window.release(slot, this.now());
      this.inFlight--;
      this.pump();
    };
    let p: Promise<unknown>;
    try {
      p = w.job.run(slot);
    } catch (e) {
      p = Promise.reject(e);
    }
    p.then(
      (v) => {
        settle();
        w.resolve(v);
      },
      (e: unknown) => {
        settle();
        w.reject(e);
      },
    );
  }

  private wakeAt(at: number): void {
    if (this.timer && this.timerAt <= at) return;
    this.clearTimer();
    this.timerAt = at;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.timerAt = Infinity;
      this.pump();
    }, Math.max(1, Math.ceil(at - this.now())));
  }

  private clearTimer(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    this.timerAt = Infinity;
  }
}

function closedError(operation: string): ApiError {
  return new ApiError(`${operation}: the hosting client was closed before this request could start`, {
    operation, status: 0, serverMessage: 'client closed', retryable: false, code: 'ECLIENTCLOSED',
  });
}
