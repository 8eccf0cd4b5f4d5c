/**
 * The retry policy: one layer around "make one attempt", not code at call sites.
 *
 * Rules (DESIGN.md "Rate limits"):
 * - 429: repeated (the server did nothing). An API call's wait is the queue's shared
 *   pause, so no backoff here; a 429 that carries `retryAfterMs` (signed node URLs,
 *   which must not pause the API queue) is waited out here. Bounded separately, so a
 *   server that never lets up still ends in an error. A 429 marked not retryable (a
 *   Retry-After far beyond the window) is thrown at once.
 * - 5xx and dropped connections: repeated only when the attempt was retryable (the
 *   call is idempotent, or the request never left), with full-jitter exponential
 *   backoff, capped in delay and attempts. Timeouts count against a lower cap
 *   (maxTimeoutAttempts): a service that said nothing for the whole timeout is stuck.
 * - OutcomeUnknownError: never repeated; the caller must re-read and re-plan.
 * - Anything else (4xx): thrown at once.
 * - Cancellation: once `signal` aborts, no further attempt starts and a wait in
 *   progress ends at once (its timer cleared), failing with `cancelled()`.
 */

import { ApiError, CANCELLED_CODE, DEADLINE_CODE, OutcomeUnknownError } from './errors.js';

export interface RetryPolicy {
  /** Attempts in all for 5xx / network failures (1 = no retry). */
  maxAttempts: number;
  baseDelayMs: number;
  maxDelayMs: number;
  /** 429s tolerated for one call before giving up. */
  max429Retries: number;
  /** Attempts in all when they time out (a stuck service): fewer than maxAttempts; default maxAttempts. */
  maxTimeoutAttempts?: number;
}

/** Codes of an attempt that got no answer in its time (the service accepted the request, then said nothing). */
export const TIMEOUT_CODES: ReadonlySet<string> = new Set(['UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT']);

export interface RetryHooks {
  /** Called before each repeat, with the reason (status or network code). */
  onRetry?(reason: string, attempt: number): void;
  random?: () => number;
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  /** Aborting it cancels the call: no new attempt, no further waiting. */
  signal?: AbortSignal;
  /** The error a cancelled call fails with; default: the signal's reason. */
  cancelled?: () => unknown;
}

/** Full jitter (AWS architecture blog): uniform in [0, min(cap, base * 2^n)]; spreads a herd of retries. */
export function backoffDelay(retryIndex: number, policy: RetryPolicy, random: () => number = Math.random): number {
  const ceiling = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** retryIndex);
  return Math.round(random() * ceiling);
}

/** Resolves after `ms`, or rejects with the signal's reason as soon as it aborts (the timer is cleared). */
export function abortableSleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    if (signal?.aborted) {
      reject(signal.reason);
      return;
    }
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(signal!.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/**
 * Runs `attempt(n, isRepeat)` until it succeeds or the policy says stop.
 * `attempt` throws ApiError; status 429 means "rate limited" (an API call's queue is already paused).
 */
export async function withRetry<T>(
  policy: RetryPolicy,
  attempt: (n: number, isRepeat: boolean) => Promise<T>,
  hooks: RetryHooks = {},
): Promise<T> {
  const sleep = hooks.sleep ?? abortableSleep;
  const { signal } = hooks;
  const cancelled = (): unknown => (hooks.cancelled ? hooks.cancelled() : signal?.reason);
  const wait = async (ms: number): Promise<void> => {
    try {
      await sleep(ms, signal);
    } catch (e) {
      if (signal?.aborted) throw cancelled();
      throw e;
    }
  };
  let failures = 0;
  let timeouts = 0;
  let rateLimited = 0;
  for (let n = 1; ; n++) {
    if (signal?.aborted) throw cancelled();
    try {
      return await attempt(n, n > 1);
    } catch (e) {
      if (!(e instanceof ApiError) || e instanceof OutcomeUnknownError) throw e;
      // The attempt's own error already says why it was stopped (cancelled, or the deadline).
      if (signal?.aborted) throw e.code === CANCELLED_CODE || e.code === DEADLINE_CODE ? e : cancelled();
      if (e.status === 429) {
        if (!e.retryable) throw e;
        if (++rateLimited > policy.max429Retries) {
          throw policy.max429Retries > 0 ? e.withNote(`Still limited after ${policy.max429Retries} waits.`) : e;
        }
        hooks.onRetry?.('429', n);
        if (e.retryAfterMs !== undefined) await wait(e.retryAfterMs);
        continue;
      }
      const transient = e.status === 0 || e.status >= 500;
      if (!transient || !e.retryable) throw e;
      const timedOut = e.code !== undefined && TIMEOUT_CODES.has(e.code);
      if (timedOut) timeouts++;
      if (++failures >= policy.maxAttempts || (timedOut && timeouts >= (policy.maxTimeoutAttempts ?? policy.maxAttempts))) {
        throw failures > 1 ? e.withNote(`Gave up after ${failures} attempts.`) : e;
      }
      hooks.onRetry?.(e.status === 0 ? (e.code ?? 'network') : String(e.status), n);
      await wait(backoffDelay(failures - 1, policy, hooks.random));
    }
  }
}
