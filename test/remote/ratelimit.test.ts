import { describe, expect, it } from 'vitest';
import { SlidingWindow, parseRetryAfter, retryAfterDelay, type Slot } from '../../src/remote/ratelimit.js';

const win = (limit: number, windowMs = 1000, marginMs = 0) => new SlidingWindow({ limit, windowMs, marginMs });
const isSlot = (x: Slot | number): x is Slot => typeof x !== 'number';

describe('SlidingWindow', () => {
  it('grants up to the limit, then waits on in-flight answers', () => {
    const w = win(3);
    const slots = [w.tryAcquire(0), w.tryAcquire(0), w.tryAcquire(0)];
    expect(slots.every(isSlot)).toBe(true);
    expect(w.tryAcquire(0)).toBe(Infinity);
  });

  it('forgets a request one window after its ANSWER, not after it was sent', () => {
    const w = win(1, 1000);
    const s = w.tryAcquire(0) as Slot;
    w.release(s, 400);
    expect(w.tryAcquire(1000)).toBe(400);
    expect(w.tryAcquire(1399)).toBe(1);
    expect(isSlot(w.tryAcquire(1400))).toBe(true);
  });

  it('waits for the k-th earliest expiry when several slots must free', () => {
    const w = win(3, 1000);
    const a = w.tryAcquire(0) as Slot;
    const b = w.tryAcquire(0) as Slot;
    const c = w.tryAcquire(0) as Slot;
    w.release(a, 100);
    w.release(b, 300);
    w.release(c, 200);
    expect(w.tryAcquire(500)).toBe(600); // earliest expiry: a at 1100
    expect(isSlot(w.tryAcquire(1100))).toBe(true);
    expect(w.tryAcquire(1100)).toBe(100); // next: c at 1200
  });

  it('adds the margin to every expiry', () => {
    const w = win(1, 1000, 50);
    w.release(w.tryAcquire(0) as Slot, 0);
    expect(w.tryAcquire(1000)).toBe(50);
  });

  it('holds foreign usage reported by X-RateLimit-Remaining as phantom slots', () => {
    const w = win(10, 1000);
    const a = w.tryAcquire(0) as Slot;
    const b = w.tryAcquire(0) as Slot;
    w.release(a, 10);
    w.release(b, 10);
    // Seen at t=500: the server has 3 left after our 2, so someone else spent 5.
    w.observeRemaining(b, 3, 500);
    expect(w.used(500)).toBe(7);
    for (let i = 0; i < 3; i++) expect(isSlot(w.tryAcquire(500))).toBe(true);
    // Full now: the earliest expiries are our own two answers at 1010.
    expect(w.tryAcquire(500)).toBe(510);
    // Ours expire one window after their answers, phantoms one window after the observation.
    expect(w.used(1011)).toBe(8);
    expect(w.used(1499)).toBe(8);
    expect(w.used(1500)).toBe(3);
  });

  it('replaces phantoms on each newer observation and ignores older ones', () => {
    const w = win(10, 1000);
    const a = w.tryAcquire(0) as Slot;
    const b = w.tryAcquire(5) as Slot;
    w.release(b, 20);
    w.observeRemaining(b, 2, 20); // used 8 = ours 2 + foreign 6
    expect(w.used(20)).toBe(8);
    w.release(a, 30);
    w.observeRemaining(a, 9, 30); // older request (sent before b): stale, ignored
    expect(w.used(30)).toBe(8);
    const c = w.tryAcquire(40) as Slot;
    w.release(c, 50);
    w.observeRemaining(c, 6, 50); // used 4 = ours 3 + foreign 1
    expect(w.used(50)).toBe(4);
  });

  it('never counts our own requests as foreign', () => {
    const w = win(5, 1000);
    const s = [0, 1, 2].map(() => w.tryAcquire(0) as Slot);
    for (const x of s) w.release(x, 5);
    w.observeRemaining(s[2]!, 2, 5);
    expect(w.used(5)).toBe(3);
  });

  it('pauses acquisition, only ever extending the pause, and reports the added wait', () => {
    const w = win(100);
    expect(w.pause(1000, 0)).toBe(1000);
    expect(w.tryAcquire(200)).toBe(800);
    expect(w.pause(500, 200)).toBe(0); // ends before the current pause
    expect(w.pause(1000, 500)).toBe(500); // extends from 1000 to 1500
    expect(w.pausedFor(600)).toBe(900);
    expect(isSlot(w.tryAcquire(1500))).toBe(true);
  });

  it('keeps a simulated server under its limit whatever the latencies', () => {
    // Discrete-event simulation: 4 in flight, random latency each way, 600 requests.
    let seed = 42;
    const rand = () => ((seed = (seed * 1103515245 + 12345) >>> 0) / 2 ** 32);
    const limit = 20;
    const windowMs = 1000;
    const w = win(limit, windowMs, 0);
    const arrivals: number[] = [];
    const inflight: Array<{ slot: Slot; arrive: number; done: number; remaining?: number }> = [];
    let now = 0;
    let sent = 0;
    let maxSeen = 0;
    const serverCount = (t: number) => arrivals.filter((a) => a > t - windowMs && a <= t).length;
    while (sent < 600 || inflight.length > 0) {
      let wait = Infinity;
      while (sent < 600 && inflight.length < 4) {
        const got = w.tryAcquire(now);
        if (typeof got === 'number') {
          wait = got;
          break;
        }
        const arrive = now + rand() * 60;
        inflight.push({ slot: got, arrive, done: arrive + rand() * 60 });
        sent++;
      }
      const nextArrival = Math.min(...inflight.filter((r) => r.remaining === undefined).map((r) => r.arrive));
      const nextDone = Math.min(...inflight.map((r) => r.done));
      now = Math.min(nextArrival, nextDone, now + wait);
      for (const r of inflight) {
        if (r.remaining === undefined && r.arrive <= now) {
          arrivals.push(r.arrive);
          const c = serverCount(r.arrive);
          maxSeen = Math.max(maxSeen, c);
          r.remaining = limit - c;
        }
      }
      for (const r of inflight.filter((x) => x.done <= now)) {
        w.release(r.slot, r.done);
        w.observeRemaining(r.slot, r.remaining!, r.done);
        inflight.splice(inflight.indexOf(r), 1);
      }
    }
    expect(arrivals.length).toBe(600);
    expect(maxSeen).toBeLessThanOrEqual(limit);
    // And pacing is not wastefully slow: 600 at 20/s needs at least ~29 windows.
    expect(maxSeen).toBe(limit);
  });
});

describe('parseRetryAfter', () => {
  const now = Date.parse('2025-01-01T00:00:00Z');
  it.each([
    ['3', 3000],
    ['0', 0],
    ['1.5', 1500],
    [' 2 ', 2000],
    ['Wed, 01 Jan 2025 00:00:05 GMT', 5000],
    ['Tue, 31 Dec 2024 23:59:00 GMT', 0],
  ])('%j -> %i ms', (v, ms) => {
    expect(parseRetryAfter(v, now)).toBe(ms);
  });
  it.each([[undefined], [''], ['soon'], ['-1']])('%j is unreadable', (v) => {
    expect(parseRetryAfter(v, now)).toBeUndefined();
  });
  it('takes the first of repeated headers', () => {
    expect(parseRetryAfter(['4', '9'], now)).toBe(4000);
  });
  it("measures an HTTP date against the response's own Date header when it has one", () => {
    // The server's clock is an hour behind ours: by our clock the date is long past.
    const serverDate = 'Tue, 31 Dec 2024 23:00:00 GMT';
    expect(parseRetryAfter('Tue, 31 Dec 2024 23:00:03 GMT', now, serverDate)).toBe(3000);
    expect(parseRetryAfter('Tue, 31 Dec 2024 23:00:03 GMT', now, 'garbage')).toBe(0);
    expect(parseRetryAfter('7', now, serverDate)).toBe(7000);
  });
});

describe('retryAfterDelay', () => {
  const now = Date.parse('2025-01-01T00:00:00Z');
  it.each([
    [{ 'retry-after': '0' }, 1000],
    [{ 'retry-after': 'Tue, 31 Dec 2024 23:59:00 GMT' }, 1000],
    [{}, 1000],
    [{ 'retry-after': 'soon' }, 1000],
    [{ 'retry-after': '0.2' }, 200],
    [{ 'retry-after': '3' }, 3000],
    [{ 'retry-after': 'Wed, 01 Jan 2025 00:00:02 GMT', date: 'Wed, 01 Jan 2025 00:00:00 GMT' }, 2000],
  ])('%j -> %i ms (fallback 1000)', (headers, ms) => {
    expect(retryAfterDelay(headers, now, 1000)).toBe(ms);
  });
});
