import { describe, expect, it } from 'vitest';
import { CycleScheduler, type CycleOutcome } from '../../src/watch/scheduler.js';
import type { Batch } from '../../src/watch/schedule.js';
import { FakeClock, flush } from './fake-clock.js';

function harness(outcomes: (batch: Batch) => CycleOutcome | Promise<CycleOutcome> = () => ({ kind: 'done', reachedService: true })) {
  const clock = new FakeClock();
  const runs: { at: number; batch: Batch }[] = [];
  let release: (() => void) | null = null;
  let hold = false;
  const s = new CycleScheduler({
    tunables: { debounceMs: 40, bulkPaths: 8, bulkQuietMs: 150, maxWaitMs: 400, pollMs: 30_000 },
    stormPaths: 100,
    crashRetryMs: 5_000,
    clock,
    run: async (batch) => {
      runs.push({ at: clock.now(), batch });
      if (hold) await new Promise<void>((r) => (release = r));
      return outcomes(batch);
    },
  });
  return {
    clock,
    s,
    runs,
    holdCycles: (on: boolean) => (hold = on),
    finishCycle: async () => {
      const r = release;
      release = null;
      r?.();
      await flush();
    },
  };
}

describe('CycleScheduler', () => {
  it('coalesces a burst into one cycle after the quiet period', async () => {
    const h = harness();
    h.s.start();
    h.s.touch(['a']);
    await h.clock.advance(20);
    h.s.touch(['b']);
    await h.clock.advance(39);
    expect(h.runs).toHaveLength(0);
    await h.clock.advance(1);
    expect(h.runs).toHaveLength(1);
    expect(h.runs[0]!.at).toBe(60);
    expect(h.runs[0]!.batch.paths.sort()).toEqual(['a', 'b']);
    expect(h.runs[0]!.batch.firstAt).toBe(0);
  });

  it('a save every 10 ms still syncs at the max wait, and again after', async () => {
    const h = harness();
    h.s.start();
    for (let i = 0; i < 100; i++) {
      h.s.touch(['hot.js']);
      await h.clock.advance(10);
    }
    expect(h.runs.map((r) => r.at)).toEqual([400, 800]);
  });

  it('runs one cycle at a time; events during a cycle make the next batch', async () => {
    const h = harness();
    h.holdCycles(true);
    h.s.start();
    h.s.touch(['a']);
    await h.clock.advance(40);
    expect(h.runs).toHaveLength(1);
    h.s.touch(['b']);
    h.s.touch(['c']);
    await h.clock.advance(1000);
    expect(h.runs).toHaveLength(1);
    expect(h.s.running).toBe(true);
    h.holdCycles(false);
    await h.finishCycle();
    // b and c arrived long ago: past their max wait, the next cycle starts at once.
    expect(h.runs).toHaveLength(2);
    expect(h.runs[1]!.batch.paths.sort()).toEqual(['b', 'c']);
    expect(h.runs[1]!.at).toBe(1040);
  });

  it('a retry puts the batch back and waits the backoff', async () => {
    let fail = true;
    const h = harness(() => (fail ? { kind: 'retry', afterMs: 1000 } : { kind: 'done', reachedService: true }));
    h.s.start();
    h.s.touch(['a']);
    await h.clock.advance(40);
    expect(h.runs).toHaveLength(1);
    h.s.touch(['b']);
    fail = false;
    await h.clock.advance(999);
    expect(h.runs).toHaveLength(1);
    await h.clock.advance(1);
    expect(h.runs).toHaveLength(2);
    expect(h.runs[1]!.batch.paths.sort()).toEqual(['a', 'b']);
    expect(h.runs[1]!.batch.firstAt).toBe(0);
    expect(h.s.idle).toBe(true);
  });

  it('a throwing cycle is retried after crashRetryMs, paths kept', async () => {
    let calls = 0;
    const h = harness(() => {
      if (calls++ === 0) throw new Error('boom');
      return { kind: 'done', reachedService: true };
    });
    h.s.start();
    h.s.touch(['x']);
    await h.clock.advance(40);
    await h.clock.advance(4999);
    expect(h.runs).toHaveLength(1);
    await h.clock.advance(1);
    expect(h.runs).toHaveLength(2);
    expect(h.runs[1]!.batch.paths).toEqual(['x']);
  });

  it('polls the remote after the poll period of quiet, and a cycle resets that clock', async () => {
    const h = harness();
    h.s.start();
    await h.clock.advance(29_999);
    expect(h.runs).toHaveLength(0);
    await h.clock.advance(1);
    expect(h.runs).toHaveLength(1);
    expect(h.runs[0]!.batch.poll).toBe(true);
    await h.clock.advance(10_000);
    h.s.touch(['a']);
    await h.clock.advance(40); // change cycle at 40_040
    await h.clock.advance(29_999);
    expect(h.runs.filter((r) => r.batch.poll)).toHaveLength(1);
    await h.clock.advance(1);
    expect(h.runs.filter((r) => r.batch.poll)).toHaveLength(2);
  });

  it('an event storm collapses into one full rescan', async () => {
    const h = harness();
    h.s.start();
    h.s.touch(Array.from({ length: 150 }, (_, i) => `f${i}`));
    // A storm is a bulk change: it waits the bulk quiet period, not the debounce.
    await h.clock.advance(40);
    expect(h.runs).toEqual([]);
    await h.clock.advance(110);
    expect(h.runs[0]!.batch.full).toBe(true);
    expect(h.runs[0]!.batch.paths).toEqual([]);
  });

  it('stop waits for the cycle in flight, or abandons it after the grace period', async () => {
    const h = harness();
    h.holdCycles(true);
    h.s.start();
    h.s.touch(['a']);
    await h.clock.advance(40);
    const stopped = h.s.stop(5000);
    await h.finishCycle();
    expect(await stopped).toBe('finished');
    expect(h.clock.armed).toBe(0);

    const h2 = harness();
    h2.holdCycles(true);
    h2.s.start();
    h2.s.touch(['a']);
    await h2.clock.advance(40);
    const stopped2 = h2.s.stop(5000);
    await h2.clock.advance(5000);
    expect(await stopped2).toBe('abandoned');
    // Nothing starts after stop, whatever arrives.
    h2.s.touch(['b']);
    await h2.finishCycle();
    await h2.clock.advance(60_000);
    expect(h2.runs).toHaveLength(1);
  });

  it('stop when idle returns at once and disarms the poll', async () => {
    const h = harness();
    h.s.start();
    expect(h.clock.armed).toBe(1);
    expect(await h.s.stop(5000)).toBe('idle');
    expect(h.clock.armed).toBe(0);
  });

  it('events before start are kept and run once started', async () => {
    const h = harness();
    h.s.touch(['early']);
    await h.clock.advance(1000);
    expect(h.runs).toHaveLength(0);
    h.s.start();
    await h.clock.advance(0);
    expect(h.runs.map((r) => r.batch.paths)).toEqual([['early']]);
  });
});
