/**
 * The retry policy: one layer around "make one attempt", not code at call sites.
 *
 * Rules (DESIGN.md "Rate limits"):
 * - 429: always repeated (the server did nothing); the wait itself is the queue's
 *   shared pause, so no backoff here. Bounded separately, so a server that never
 *   lets up still ends in an error.
 * - 5xx and dropped connections: repeated only when the attempt was retryable (the
 *   call is idempotent, or the request never left), with full-jitter exponential
 *   backoff, capped in delay and attempts.
 * - OutcomeUnknownError: never repeated; the caller must re-read and re-plan.
 * - Anything else (4xx): thrown at once.
 */

import { ApiError, OutcomeUnknownError } from './errors.js';

export interface RetryPolicy {
  /** Attempts in all for 5xx / network failures (1 = no retry). */
  maxAttempts: number;
  baseDelayMs: number;
  maxDelayMs: number;
  /** 429s tolerated for one call before giving up. */
  max429Retries: number;
}

export interface RetryHooks {
  /** Called before each repeat, with the reason (status or network code). */
  onRetry?(reason: string, attempt: number): void;
  random?: () => number;
  sleep?: (ms: number) => Promise<void>;
}

/** Full jitter (AWS architecture blog): uniform in [0, min(cap, base * 2^n)]; spreads a herd of retries. */
export function backoffDelay(retryIndex: number, policy: RetryPolicy, random: () => number = Math.random): number {
  const ceiling = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** retryIndex);
  return Math.round(random() * ceiling);
}

const defaultSleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/**
 * Runs `attempt(n, isRepeat)` until it succeeds or the policy says stop.
 * `attempt` throws ApiError; status 429 means "rate limited, the queue is paused".
 */
export async function withRetry<T>(
  policy: RetryPolicy,
  attempt: (n: number, isRepeat: boolean) => Promise<T>,
  hooks: RetryHooks = {},
): Promise<T> {
  const sleep = hooks.sleep ?? defaultSleep;
  let failures = 0;
  let rateLimited = 0;
  for (let n = 1; ; n++) {
    try {
      return await attempt(n, n > 1);
    } catch (e) {
      if (!(e instanceof ApiError) || e instanceof OutcomeUnknownError) throw e;
      if (e.status === 429) {
        if (++rateLimited > policy.max429Retries) throw e;
        hooks.onRetry?.('429', n);
        continue;
      }
      const transient = e.status === 0 || e.status >= 500;
      if (!transient || !e.retryable) throw e;
      if (++failures >= policy.maxAttempts) throw e;
      hooks.onRetry?.(e.status === 0 ? (e.code ?? 'network') : String(e.status), n);
      await sleep(backoffDelay(failures - 1, policy, hooks.random));
    }
  }
}
