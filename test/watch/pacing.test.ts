/**
 * Issue 10, budget-aware scheduling, on fake time: the scheduler spaces cycles by the
 * rate budget (coalescing longer instead of stalling mid-cycle), puts saves before idle
 * work, and waits out a Retry-After pause before starting anything.
 */
import { describe, expect, it } from 'vitest';
import type { BudgetView } from '../../src/remote/client.js';
import { Pacer } from '../../src/watch/pacer.js';
import type { Batch } from '../../src/watch/schedule.js';
import { CycleScheduler } from '../../src/watch/scheduler.js';
import { changeCycleCost } from '../../src/watch/daemon.js';
import { FakeClock } from './fake-clock.js';

const T = { rateShare: 0.7, burstShare: 0.25 };
const LIMIT = 120;
const WINDOW = 60_000;

/** The key's sliding window as the server keeps it: each request counts for WINDOW ms from its send. */
class FakeBudget {
  sends: number[] = [];
  pausedUntil = 0;
  /** Requests someone else (another terminal) spent, as X-RateLimit-Remaining would reveal them. */
  foreign: number[] = [];
  constructor(private readonly now: () => number) {}
  send(n: number): void {
    for (let i = 0; i < n; i++) this.sends.push(this.now());
  }
  used(): number {
    const t = this.now();
    return [...this.sends, ...this.foreign].filter((s) => s > t - WINDOW).length;
  }
  view = (): BudgetView => {
    const t = this.now();
    const live = [...this.sends, ...this.foreign].filter((s) => s > t - WINDOW).sort((a, b) => a - b);
    return {
      used: live.length,
      limit: LIMIT,
      windowMs: WINDOW,
      pausedMs: Math.max(0, this.pausedUntil - t),
      sent: this.sends.length,
      roomInMs: (n) => {
        const over = live.length + n - LIMIT;
        // As the client's window: at least 1 ms, never a sub-ulp wait that float time would round away.
        return over <= 0 ? 0 : Math.max(1, live[over - 1]! + WINDOW - t);
      },
    };
  };
}

describe('Pacer', () => {
  it('a quiet daemon spends a burst at once, then one cycle per cost / (0.7 x 2 per second)', () => {
    let now = 0;
    const b = new FakeBudget(() => now);
    const p = new Pacer(T, 3);
    const starts: number[] = [];
    while (now < 30_000) {
      while (p.waitMs(b.view(), now, false) === 0) {
        starts.push(now);
        b.send(3);
      }
      now += 10;
    }
    // 30 tokens: ten 3-request cycles at once...
    expect(starts.slice(0, 10).every((s) => s === 0)).toBe(true);
    expect(starts[10]).toBeGreaterThan(0);
    // ...then the refill rate: 1.4 tokens a second, a cycle every ~2.14 s.
    const gaps = starts.slice(11).map((s, i) => s - starts[10 + i]!);
    for (const g of gaps) expect(g).toBeGreaterThanOrEqual(2_140);
    for (const g of gaps) expect(g).toBeLessThanOrEqual(2_150);
  });

  it('continuous demand for ten minutes never fills the window, and no gap between cycles exceeds the steady one', () => {
    for (const cost of [2, 3]) {
      let now = 0;
      const b = new FakeBudget(() => now);
      const p = new Pacer(T, cost);
      let last = -1;
      let maxGap = 0;
      let maxUsed = 0;
      while (now < 600_000) {
        if (p.waitMs(b.view(), now, false) === 0) {
          if (last >= 0) maxGap = Math.max(maxGap, now - last);
          b.send(cost);
          last = now;
        }
        maxUsed = Math.max(maxUsed, b.used());
        now += 10;
      }
      expect(maxUsed).toBeLessThanOrEqual(LIMIT * 0.95);
      expect(maxGap).toBeLessThanOrEqual(Math.ceil((cost / ((0.7 * LIMIT) / WINDOW)) / 10) * 10);
    }
  });

  it('background work waits for half a bucket more than a save does', () => {
    const now = 0;
    const b = new FakeBudget(() => now);
    const p = new Pacer(T, 3);
    p.observe(b.view(), now);
    b.send(24); // 6 tokens left of 30
    expect(p.waitMs(b.view(), now, false)).toBe(0);
    // Background needs 3 + 15 = 18 tokens: 12 more at 1.4 per second.
    expect(p.waitMs(b.view(), now, true)).toBeCloseTo(12 / (0.7 * 2 / 1000), 0);
  });

  it('foreign use fills the window: the cycle waits until the whole cycle fits, not just one request', () => {
    const now = 100_000;
    const b = new FakeBudget(() => now);
    b.foreign = Array.from({ length: 119 }, (_, i) => 50_000 + i * 100); // 119 of 120 used by another process
    const p = new Pacer(T, 3);
    // Room for 3 when the 2nd oldest foreign request leaves the window (+ the 3rd needs none: 119 - 2 + 3 = 120).
    expect(p.waitMs(b.view(), now, false)).toBe(50_000 + 100 + WINDOW - now);
  });

  it('a Retry-After pause is waited out first', () => {
    const now = 0;
    const b = new FakeBudget(() => now);
    b.pausedUntil = 7_000;
    expect(new Pacer(T, 3).waitMs(b.view(), now, false)).toBe(7_000);
  });

  it('uncharged requests (a start-up or rescan cycle) leave the bucket full', () => {
    let now = 0;
    const b = new FakeBudget(() => now);
    const p = new Pacer(T, 3);
    p.observe(b.view(), now);
    b.send(25);
    now = 500;
    p.observe(b.view(), now, false);
    expect(p.available).toBe(30);
    expect(p.waitMs(b.view(), now, false)).toBe(0);
  });
});

/**
 * `cost`: what the scheduler budgets a change cycle at; `sends`: what one sends (both 3 in
 * the generic tests; the daemon's real cycle sends CHANGE_CYCLE_SENDS).
 */
function paced(cycleMs = 50, { cost = 3, sends = 3 } = {}) {
  const clock = new FakeClock();
  const budget = new FakeBudget(() => clock.now());
  const runs: { at: number; batch: Batch; used: number }[] = [];
  const s = new CycleScheduler({
    tunables: { debounceMs: 40, bulkPaths: 8, bulkQuietMs: 150, maxWaitMs: 400, pollMs: 30_000 },
    stormPaths: 100,
    crashRetryMs: 5_000,
    clock,
    budget: budget.view,
    cycleCost: cost,
    pace: T,
    run: async (batch) => {
      runs.push({ at: clock.now(), batch, used: budget.used() });
      budget.send(batch.verify ? 1 : sends);
      await new Promise<void>((resolve) => clock.setTimeout(resolve, cycleMs));
      // A change cycle leaves its writes to verify; the verification leaves none.
      if (batch.verify || batch.poll) return { kind: 'done', reachedService: !!batch.poll };
      return { kind: 'done', reachedService: false, verifyInMs: 1000 };
    },
  });
  const kinds = (): string[] => runs.map((r) => (r.batch.verify ? 'verify' : r.batch.poll ? 'poll' : r.batch.paths.join()));
  return { clock, s, runs, budget, kinds };
}

describe('CycleScheduler with a budget', () => {
  it('with budget to spare, saves go at debounce speed', async () => {
    const h = paced();
    h.s.start();
    for (let i = 0; i < 5; i++) {
      h.s.touch([`f${i}`]);
      await h.clock.advance(200);
    }
    expect(h.kinds()).toEqual(['f0', 'f1', 'f2', 'f3', 'f4']);
    expect(h.runs.map((r) => r.at)).toEqual([40, 240, 440, 640, 840]);
  });

  it('as the budget runs low, batches grow instead of cycles multiplying, and every path is delivered', async () => {
    const h = paced();
    h.budget.foreign = Array(60).fill(0); // half the window spent by another process
    h.s.start();
    for (let i = 0; i < 300; i++) {
      h.s.touch([i % 2 === 0 ? 'a.js' : 'b.js', `n${i}`]);
      await h.clock.advance(100);
    }
    // Around 21 s our cycles and the other process's 60 fill the window: nothing starts until
    // those 60 leave it at 60 s, and the batch keeps growing meanwhile.
    await h.clock.advance(35_000);
    const changes = h.runs.filter((r) => r.batch.paths.length > 0);
    const delivered = new Set(changes.flatMap((r) => r.batch.paths));
    expect([...Array(300).keys()].filter((i) => !delivered.has(`n${i}`))).toEqual([]);
    // 30 s of a save every 100 ms: the burst, then one cycle per ~2.1 s, not one per 400 ms.
    expect(changes.length).toBeLessThan(30_000 / 400);
    const sizes = changes.map((r) => r.batch.paths.length);
    expect(Math.max(...sizes.slice(-3))).toBeGreaterThan(Math.max(...sizes.slice(0, 5)));
    expect(changes.at(-1)!.at).toBeGreaterThanOrEqual(60_000);
    // Every cycle started with room for all of its requests: none would stall on the client's pacing.
    for (const r of h.runs) expect(r.used + 3).toBeLessThanOrEqual(LIMIT);
  });

  it('a save goes before an idle verification that is due; the verification follows once quiet', async () => {
    const h = paced();
    h.s.start();
    h.s.touch(['a']);
    await h.clock.advance(100); // cycle 'a' at 40, ends at 90: a verification is due at 1090
    h.s.touch(['b']); // b's cycle is due at 140
    await h.clock.advance(100);
    expect(h.kinds()).toEqual(['a', 'b']);
    await h.clock.advance(1_200);
    expect(h.kinds()).toEqual(['a', 'b', 'verify']);
  });

  it('with the bucket low, a pending save starts before a due verification, which waits for more budget', async () => {
    const h = paced();
    h.s.start();
    h.s.touch(['a']);
    await h.clock.advance(100);
    h.budget.send(22); // someone in this process spent most of the bucket (a health wait, say)
    await h.clock.advance(1_000); // the verification (due at 1090) needs 18 tokens: it waits
    expect(h.kinds()).toEqual(['a']);
    h.s.touch(['b']); // a save needs only 3
    await h.clock.advance(100);
    expect(h.kinds()).toEqual(['a', 'b']);
    await h.clock.advance(20_000);
    expect(h.kinds()).toEqual(['a', 'b', 'verify']);
  });

  it('a Retry-After pause holds the next cycle until it ends, and the batch keeps growing', async () => {
    const h = paced();
    h.s.start();
    h.budget.pausedUntil = 5_000;
    h.s.touch(['a']);
    await h.clock.advance(1_000);
    h.s.touch(['b']);
    await h.clock.advance(3_900);
    expect(h.runs).toHaveLength(0);
    await h.clock.advance(200);
    expect(h.kinds()).toEqual(['a,b']);
    expect(h.runs[0]!.at).toBe(5_000);
  });
});

/**
 * What a one-file change cycle of the daemon sends with apply: the scoped read, the write,
 * the apply; the base record's batch waits for the quiet moment (test/watch/scoped.test.ts
 * counts them against the emulator).
 */
const CHANGE_CYCLE_SENDS = 3;

describe("the daemon's change cycle, as the pacer budgets it", () => {
  it('another process left room for two requests: the three-request cycle waits until all three fit, never stalling before its apply', async () => {
    const h = paced(50, { cost: changeCycleCost(false), sends: CHANGE_CYCLE_SENDS });
    // 118 of 120 spent by another process, one request a second from t = -59 s: the oldest leaves the window at 1 s.
    h.budget.foreign = Array.from({ length: 118 }, (_, i) => -59_000 + i * 1_000);
    h.s.start();
    h.s.touch(['a.js']);
    await h.clock.advance(5_000);
    expect(h.kinds()[0]).toBe('a.js');
    // Budgeted short of what it sends, it would start at once with 118 + 3 > 120: its last
    // request, the apply, would wait in the client's queue.
    expect(h.runs[0]!.used + CHANGE_CYCLE_SENDS).toBeLessThanOrEqual(LIMIT);
    expect(h.runs[0]!.at).toBe(1_000);
  });
});
