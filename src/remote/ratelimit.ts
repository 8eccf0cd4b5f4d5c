/**
 * The client's own picture of the server's sliding-window budget, so requests are
 * paced BEFORE the server says no.
 *
 * Model. The server counts a request when it arrives and forgets it `windowMs`
 * later. We cannot see arrival times, so a request occupies one of our slots from
 * the moment it is sent, and is forgotten `windowMs` after its answer came back.
 * Answer time >= arrival time, so our window is never shorter than the server's:
 * pacing on it alone never exceeds the limit.
 *
 * Correction. Other tools may share the key (and the per-user budget). Each answer's
 * `X-RateLimit-Remaining` says how much the server has left; whatever the server has
 * used beyond the requests we ourselves sent up to that one is "foreign" usage. We
 * hold it as phantom slots that expire `windowMs` after we observed them (foreign
 * requests arrived before our observation, so they expire on the server no later).
 * Each newer observation replaces the previous phantoms, so the estimate follows the
 * server up and down.
 *
 * Pause. A 429's Retry-After pauses everything until then; pauses only ever extend.
 *
 * Pure bookkeeping: no timers, the clock is passed in, so it is unit-tested by table.
 */

export interface Slot {
  readonly sentAt: number;
  /** When the answer arrived; undefined while in flight. */
  doneAt: number | undefined;
}

export interface WindowOptions {
  limit: number;
  windowMs: number;
  /** Added to every expiry, for clock granularity between us and the server. */
  marginMs: number;
}

export class SlidingWindow {
  readonly limit: number;
  readonly windowMs: number;
  private readonly marginMs: number;
  /** Our slots still counted: in flight, or answered within the window. Ordered by sentAt. */
  private slots: Slot[] = [];
  private phantom = { count: 0, expiresAt: 0, observedSentAt: -Infinity };
  private pausedUntil = 0;

  constructor(opts: WindowOptions) {
    if (!(opts.limit >= 1) || !(opts.windowMs > 0)) throw new RangeError('rate limit needs limit >= 1 and windowMs > 0');
    this.limit = Math.floor(opts.limit);
    this.windowMs = opts.windowMs;
    this.marginMs = opts.marginMs;
  }

  private expiry(s: Slot): number {
    return s.doneAt === undefined ? Infinity : s.doneAt + this.windowMs + this.marginMs;
  }

  private prune(now: number): void {
    if (this.slots.some((s) => this.expiry(s) <= now)) this.slots = this.slots.filter((s) => this.expiry(s) > now);
    if (this.phantom.count > 0 && this.phantom.expiresAt <= now) this.phantom.count = 0;
  }

  /** Requests we believe the server counts right now (ours plus foreign). */
  used(now: number): number {
    this.prune(now);
    return this.slots.length + this.phantom.count;
  }

  /**
   * Takes a slot if the budget allows one now. Otherwise returns how long to wait:
   * a number of ms, or Infinity when only an in-flight answer can free a slot.
   */
  tryAcquire(now: number): Slot | number {
    const wait = this.roomIn(1, now);
    if (wait > 0) return wait;
    const slot: Slot = { sentAt: now, doneAt: undefined };
    this.slots.push(slot);
    this.taken++;
    return slot;
  }

  /** Slots taken since this window was made (a running count, for pacing by what was spent). */
  taken = 0;

  /**
   * How long until `n` requests could go at once: 0 now, else ms (Infinity when only an
   * answer still in flight can free enough). Takes nothing; a 429 pause counts.
   */
  roomIn(n: number, now: number): number {
    if (now < this.pausedUntil) return this.pausedUntil - now;
    this.prune(now);
    const over = this.slots.length + this.phantom.count - this.limit + n;
    if (over <= 0) return 0;
    // The `over`-th earliest expiry among what will expire frees enough room.
    const expiries: number[] = [];
    for (const s of this.slots) if (s.doneAt !== undefined) expiries.push(this.expiry(s));
    for (let i = 0; i < this.phantom.count; i++) expiries.push(this.phantom.expiresAt);
    if (expiries.length < over) return Infinity;
    expiries.sort((a, b) => a - b);
    return Math.max(1, expiries[over - 1]! - now);
  }

  /** The answer for `slot` arrived (or the attempt failed): its window starts now. */
  release(slot: Slot, now: number): void {
    if (slot.doneAt === undefined) slot.doneAt = now;
  }

  /**
   * The server said `remaining` budget was left after counting `slot`'s request.
   * Observations older than one already applied are ignored (answers can overtake).
   */
  observeRemaining(slot: Slot, remaining: number, now: number): void {
    if (!Number.isFinite(remaining) || remaining < 0) return;
    if (slot.sentAt < this.phantom.observedSentAt) return;
    this.prune(now);
    const serverUsed = this.limit - Math.floor(remaining);
    let ours = 0;
    for (const s of this.slots) if (s.sentAt <= slot.sentAt) ours++;
    // `slot` itself may already have been pruned only if it expired, which cannot happen before its answer.
    this.phantom = {
      count: Math.max(0, serverUsed - ours),
      expiresAt: now + this.windowMs + this.marginMs,
      observedSentAt: slot.sentAt,
    };
  }

  /** Pauses all acquisition until `now + ms`. Returns how much later the pause now ends (for wait accounting). */
  pause(ms: number, now: number): number {
    const until = now + Math.max(0, ms);
    if (until <= this.pausedUntil) return 0;
    const added = until - Math.max(this.pausedUntil, now);
    this.pausedUntil = until;
    return added;
  }

  pausedFor(now: number): number {
    return Math.max(0, this.pausedUntil - now);
  }
}

/**
 * Retry-After is either delta-seconds or an HTTP date (RFC 9110 10.2.3).
 * Returns ms to wait, or undefined when absent or unreadable. A date is measured
 * against the response's own Date header when it has a readable one (both come from
 * the server's clock, so a client clock that is ahead or behind does not matter),
 * else against `wallNowMs`.
 */
export function parseRetryAfter(
  value: string | string[] | undefined,
  wallNowMs: number,
  serverDate?: string | string[],
): number | undefined {
  const v = Array.isArray(value) ? value[0] : value;
  if (v === undefined) return undefined;
  const trimmed = v.trim();
  if (trimmed === '') return undefined;
  if (/^\d+(\.\d+)?$/.test(trimmed)) return Math.round(Number(trimmed) * 1000);
  if (!/[a-z]/i.test(trimmed)) return undefined; // an HTTP date names its month; "-1" is not one
  const date = Date.parse(trimmed);
  if (Number.isNaN(date)) return undefined;
  const d = Array.isArray(serverDate) ? serverDate[0] : serverDate;
  const serverNow = d === undefined ? NaN : Date.parse(d);
  return Math.max(0, date - (Number.isNaN(serverNow) ? wallNowMs : serverNow));
}

/**
 * How long a 429 asks us to wait. A missing, unreadable or zero answer (`Retry-After: 0`,
 * a date already past) waits `fallbackMs`: repeating at once would only meet another 429.
 */
export function retryAfterDelay(
  headers: { 'retry-after'?: string | string[] | undefined; date?: string | string[] | undefined },
  wallNowMs: number,
  fallbackMs: number,
): number {
  const ms = parseRetryAfter(headers['retry-after'], wallNowMs, headers.date);
  return ms === undefined || ms <= 0 ? fallbackMs : ms;
}
