/**
 * How long the next watch cycle must wait so the rate budget is spent per unit of work,
 * never in a burst followed by a stall. Pure: the budget view and the clock come in.
 *
 * Two rules, the stricter wins:
 * - A token bucket over what this daemon sends: it refills at `rateShare` of the key's
 *   sustained rate (limit / window) and holds at most `burstShare` of the limit. A cycle
 *   starts when the bucket holds its estimated cost (background work: its cost plus half
 *   the bucket, so saves find tokens first). A bucket of capacity B refilling at r never
 *   puts more than B + r * window requests in any window, so with rateShare + burstShare
 *   below 1 continuous saving never fills the key's window: it settles at one cycle
 *   every cost / r (2.9 s for 4-request cycles at 120/min) instead of spending the window
 *   in seconds and waiting out the rest of it. The pending batch keeps growing meanwhile:
 *   a low budget means longer coalescing.
 * - The window itself (ours plus foreign use from X-RateLimit-Remaining, and a 429's
 *   Retry-After) must have room for the whole cycle, so a cycle never stops halfway
 *   waiting on the client's pacing.
 *
 * Requests of a start-up, rescan or drift-poll cycle are not charged to the bucket
 * (`observe(..., false)`): they read the whole tree, are bounded by the window rule
 * alone, and charging them would make the first save after start-up wait.
 */
import type { BudgetView } from '../remote/client.js';

export interface PaceTunables {
  /** Share of the key's sustained rate the bucket refills at. */
  rateShare: number;
  /** Share of the key's limit the bucket holds (the burst a quiet daemon may spend at once). */
  burstShare: number;
}

export class Pacer {
  private tokens = Number.NaN;
  private at = 0;
  private sent = 0;

  constructor(
    private readonly t: PaceTunables,
    /** Requests an ordinary change cycle costs (read + write, + apply). */
    private readonly cycleCost: number,
  ) {}

  /** Refills the bucket up to `now` and takes out what was sent since the last look (unless `charge` is false). */
  observe(b: BudgetView, now: number, charge = true): void {
    const cap = this.capacity(b);
    if (Number.isNaN(this.tokens)) {
      this.tokens = cap;
      this.at = now;
      this.sent = b.sent;
      return;
    }
    this.tokens = Math.min(cap, this.tokens + this.rate(b) * Math.max(0, now - this.at));
    if (charge) this.tokens -= b.sent - this.sent;
    this.at = now;
    this.sent = b.sent;
  }

  /** ms until a cycle may start (0: now). `background`: a drift poll or an idle verification. */
  waitMs(b: BudgetView, now: number, background: boolean): number {
    this.observe(b, now);
    if (b.pausedMs > 0) return b.pausedMs;
    const cap = this.capacity(b);
    const need = Math.min(cap, background ? this.cycleCost + cap / 2 : this.cycleCost);
    const bucket = this.tokens >= need ? 0 : (need - this.tokens) / this.rate(b);
    return Math.max(bucket, b.roomInMs(Math.min(this.cycleCost, b.limit)));
  }

  /** Tokens now (after the last observe), for tests and `status`. */
  get available(): number {
    return this.tokens;
  }

  private capacity(b: BudgetView): number {
    return Math.max(this.cycleCost, this.t.burstShare * b.limit);
  }

  /** Tokens per ms. */
  private rate(b: BudgetView): number {
    return (this.t.rateShare * b.limit) / b.windowMs;
  }
}
