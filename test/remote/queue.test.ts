import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { RequestQueue } from '../../src/remote/queue.js';
import { SlidingWindow } from '../../src/remote/ratelimit.js';

function deferred<T = void>() {
  let resolve!: (v: T) => void;
  const promise = new Promise<T>((r) => (resolve = r));
  return { promise, resolve };
}

const mkQueue = (limit: number, windowMs: number, maxInFlight: number) =>
  new RequestQueue(new SlidingWindow({ limit, windowMs, marginMs: 0 }), maxInFlight, () => Date.now());

describe('RequestQueue', () => {
  beforeEach(() => void vi.useFakeTimers({ now: 0 }));
  afterEach(() => void vi.useRealTimers());

  it('starts jobs in the order scheduled, retries at the front', async () => {
    const q = mkQueue(1000, 60_000, 1);
    const started: string[] = [];
    const gate = deferred();
    const job = (name: string, wait?: Promise<void>) => ({
      rateLimited: true,
      run: async () => {
        started.push(name);
        await wait;
        return name;
      },
    });
    const all = [q.schedule(job('a', gate.promise)), q.schedule(job('b')), q.schedule(job('c'))];
    all.push(q.schedule(job('retry-of-x'), { front: true }));
    gate.resolve();
    await Promise.all(all);
    expect(started).toEqual(['a', 'retry-of-x', 'b', 'c']);
  });

  it('never runs more than maxInFlight at once', async () => {
    const q = mkQueue(1000, 60_000, 3);
    let running = 0;
    let peak = 0;
    const gates = Array.from({ length: 10 }, () => deferred());
    const jobs = gates.map((g) =>
      q.schedule({
        rateLimited: true,
        run: async () => {
          running++;
          peak = Math.max(peak, running);
          await g.promise;
          running--;
        },
      }),
    );
    await vi.advanceTimersByTimeAsync(0);
    expect(running).toBe(3);
    for (const g of gates) {
      g.resolve();
      await vi.advanceTimersByTimeAsync(0);
    }
    await Promise.all(jobs);
    expect(peak).toBe(3);
  });

  it('holds budget-spending jobs until the window frees, measured from each answer', async () => {
    const q = mkQueue(2, 1000, 4);
    const startedAt: number[] = [];
    const run = async () => void startedAt.push(Date.now());
    const jobs = [0, 1, 2, 3].map(() => q.schedule({ rateLimited: true, run }));
    await vi.advanceTimersByTimeAsync(0);
    expect(startedAt).toEqual([0, 0]);
    await vi.advanceTimersByTimeAsync(999);
    expect(startedAt).toHaveLength(2);
    await vi.advanceTimersByTimeAsync(1);
    await Promise.all(jobs);
    expect(startedAt).toEqual([0, 0, 1000, 1000]);
    expect(q.pacedMs).toBe(1000);
  });

  it('a 429 pause stops every budget-spending start until it ends, and is counted', async () => {
    const q = mkQueue(100, 1000, 4);
    q.pause(1500);
    const startedAt: number[] = [];
    const jobs = [0, 1].map(() => q.schedule({ rateLimited: true, run: async () => void startedAt.push(Date.now()) }));
    await vi.advanceTimersByTimeAsync(1499);
    expect(startedAt).toEqual([]);
    await vi.advanceTimersByTimeAsync(1);
    await Promise.all(jobs);
    expect(startedAt).toEqual([1500, 1500]);
    expect(q.waitedMs).toBe(1500);
  });

  it('lets a job that spends no budget through when it is at the head', async () => {
    const q = mkQueue(1, 1000, 4);
    await q.schedule({ rateLimited: true, run: async () => 1 });
    const upload = await q.schedule({ rateLimited: false, run: async (slot) => slot });
    expect(upload).toBeUndefined();
  });

  it('passes a job failure to its caller and keeps going', async () => {
    const q = mkQueue(10, 1000, 1);
    const a = q.schedule({ rateLimited: true, run: async () => { throw new Error('boom'); } });
    const b = q.schedule({ rateLimited: true, run: async () => 'ok' });
    await expect(a).rejects.toThrow('boom');
    await expect(b).resolves.toBe('ok');
  });

  it('close rejects what has not started', async () => {
    const q = mkQueue(1, 1000, 1);
    await q.schedule({ rateLimited: true, run: async () => 1 });
    const waiting = q.schedule({ rateLimited: true, run: async () => 2 });
    q.close();
    await expect(waiting).rejects.toMatchObject({ code: 'ECLIENTCLOSED' });
    await expect(q.schedule({ rateLimited: false, run: async () => 3 })).rejects.toMatchObject({ code: 'ECLIENTCLOSED' });
  });
});

describe('RequestQueue on p-queue', () => {
  beforeEach(() => void vi.useFakeTimers({ now: 0 }));
  afterEach(() => void vi.useRealTimers());

  it('a higher priority starts first; equal priorities stay in order', async () => {
    const q = mkQueue(1000, 60_000, 1);
    const started: string[] = [];
    const gate = deferred();
    const job = (name: string, wait?: Promise<void>) => ({ rateLimited: true, run: async () => { started.push(name); await wait; } });
    const all = [q.schedule(job('first', gate.promise)), q.schedule(job('low1'), { priority: -1 }), q.schedule(job('n1')), q.schedule(job('low2'), { priority: -1 }), q.schedule(job('n2'))];
    gate.resolve();
    await Promise.all(all);
    expect(started).toEqual(['first', 'n1', 'n2', 'low1', 'low2']);
  });

  it('while the head waits for budget, nothing behind it starts, not even a transfer that needs no slot', async () => {
    const q = mkQueue(1, 1000, 4);
    const started: string[] = [];
    const a = q.schedule({ rateLimited: true, run: async () => void started.push(`a@${Date.now()}`) });
    const b = q.schedule({ rateLimited: true, run: async () => void started.push(`b@${Date.now()}`) });
    const upload = q.schedule({ rateLimited: false, run: async () => void started.push(`upload@${Date.now()}`) });
    await vi.advanceTimersByTimeAsync(999);
    expect(started).toEqual(['a@0']);
    await vi.advanceTimersByTimeAsync(1);
    await Promise.all([a, b, upload]);
    expect(started).toEqual(['a@0', 'b@1000', 'upload@1000']);
  });

  it('a Retry-After pause set while a request runs holds what is queued, then starts it', async () => {
    const q = mkQueue(100, 1000, 1);
    const startedAt: number[] = [];
    const first = q.schedule({ rateLimited: true, run: async () => { startedAt.push(Date.now()); q.pause(2_000); } });
    const second = q.schedule({ rateLimited: true, run: async () => void startedAt.push(Date.now()) });
    await vi.advanceTimersByTimeAsync(1_999);
    expect(startedAt).toEqual([0]);
    await vi.advanceTimersByTimeAsync(1);
    await Promise.all([first, second]);
    expect(startedAt).toEqual([0, 2_000]);
  });

  it('idle() resolves once what runs has finished; close() rejects the head waiting for budget', async () => {
    const q = mkQueue(1, 60_000, 2);
    const gate = deferred();
    let done = false;
    const running = q.schedule({ rateLimited: true, run: async () => { await gate.promise; done = true; } });
    const waiting = q.schedule({ operation: 'files.index', rateLimited: true, run: async () => 'never' });
    await vi.advanceTimersByTimeAsync(0);
    q.close();
    await expect(waiting).rejects.toMatchObject({ code: 'ECLIENTCLOSED', message: expect.stringContaining('files.index') });
    const idle = q.idle().then(() => done);
    gate.resolve();
    await running;
    await expect(idle).resolves.toBe(true);
  });
});
