/**
 * The service's rate limits (hosting-api.md, Limits): N requests per key per
 * sliding window, and M per user across all keys, same window.
 *
 * Invariants: a window holds the timestamps of ADMITTED requests only (a 429 does
 * not consume budget), oldest first; it never holds more than its limit.
 */

export interface RateDecision {
  allowed: boolean;
  /** Budget left after this request: the smaller of the key's and the user's. */
  remaining: number;
  /** Whole seconds until enough of the window has slid for a request to pass; >= 1. Only when refused. */
  retryAfterSeconds: number;
}

class SlidingWindow {
  private readonly stamps: number[] = [];
  constructor(private readonly windowMs: number) {}

  /** Drops what has left the window as of `now`, returns how many remain. */
  count(now: number): number {
    let drop = 0;
    while (drop < this.stamps.length && this.stamps[drop]! <= now - this.windowMs) drop++;
    if (drop) this.stamps.splice(0, drop);
    return this.stamps.length;
  }

  push(now: number): void {
    this.stamps.push(now);
  }

  /** Ms until the count falls below `limit` (the entry that must leave is the (n-limit)th oldest). */
  msUntilBelow(limit: number, now: number): number {
    const idx = this.stamps.length - limit;
    if (idx < 0) return 0;
    return this.stamps[idx]! + this.windowMs - now;
  }
}

export class RateLimiter {
  private readonly perKey = new Map<string, SlidingWindow>();
  private readonly user: SlidingWindow;

  constructor(
    private readonly keyLimit: number,
    private readonly userLimit: number,
    private readonly windowMs: number,
    private readonly now: () => number = Date.now,
  ) {
    this.user = new SlidingWindow(windowMs);
  }

  private windowOf(key: string): SlidingWindow {
    let w = this.perKey.get(key);
    if (!w) this.perKey.set(key, (w = new SlidingWindow(this.windowMs)));
    return w;
  }

  /** Admits (and records) the request or refuses it without recording. */
  take(key: string): RateDecision {
    const now = this.now();
    const kw = this.windowOf(key);
    const kCount = kw.count(now);
    const uCount = this.user.count(now);
    if (kCount >= this.keyLimit || uCount >= this.userLimit) {
      const waitMs = Math.max(
        kCount >= this.keyLimit ? kw.msUntilBelow(this.keyLimit, now) : 0,
        uCount >= this.userLimit ? this.user.msUntilBelow(this.userLimit, now) : 0,
      );
      return { allowed: false, remaining: 0, retryAfterSeconds: Math.max(1, Math.ceil(waitMs / 1000)) };
    }
    kw.push(now);
    this.user.push(now);
    return {
      allowed: true,
      remaining: Math.min(this.keyLimit - kCount - 1, this.userLimit - uCount - 1),
      retryAfterSeconds: 0,
    };
  }

  /**
   * The budget named on an answer to a caller the key check refused (401): it spent
   * nothing and belongs to no user, so a whole key's budget. Tracking unknown tokens
   * would let anyone grow the emulator's memory.
   */
  unauthenticated(): number {
    return this.keyLimit;
  }

  /** Budget left for `key` without consuming any (for answers that bypass `take`, e.g. forced 429s). */
  peek(key: string): number {
    const now = this.now();
    const k = this.windowOf(key).count(now);
    const u = this.user.count(now);
    return Math.max(0, Math.min(this.keyLimit - k, this.userLimit - u));
  }
}
