import { describe, expect, it } from 'vitest';
import { ApiError, OutcomeUnknownError } from '../../src/remote/errors.js';
import { abortableSleep, backoffDelay, withRetry, type RetryPolicy } from '../../src/remote/retry.js';

const policy: RetryPolicy = { maxAttempts: 4, baseDelayMs: 100, maxDelayMs: 1000, max429Retries: 3 };
const err = (status: number, retryable = true, code?: string) =>
  new ApiError(`e${status}`, { operation: 'files.index', status, serverMessage: '', retryable, code });

function harness(failures: Array<ApiError | Error>) {
  const sleeps: number[] = [];
  const repeats: boolean[] = [];
  const reasons: string[] = [];
  let calls = 0;
  const run = () =>
    withRetry(
      policy,
      async (_n, isRepeat) => {
        repeats.push(isRepeat);
        const f = failures[calls++];
        if (f) throw f;
        return 'done';
      },
      { sleep: async (ms) => void sleeps.push(ms), random: () => 1, onRetry: (r) => void reasons.push(r) },
    );
  return { run, sleeps, repeats, reasons, calls: () => calls };
}

describe('withRetry', () => {
  it('repeats a timed-out attempt only up to maxTimeoutAttempts: a stuck service is not waited out five times', async () => {
    const timeout = () => err(0, true, 'UND_ERR_HEADERS_TIMEOUT');
    const attempts: number[] = [];
    const run = (failures: ApiError[]) => {
      let calls = 0;
      return withRetry({ ...policy, maxTimeoutAttempts: 2 }, async () => {
        const f = failures[calls++];
        if (f) throw f;
        return calls;
      }, { sleep: async () => {} }).then((n) => attempts.push(n), (e: ApiError) => {
        attempts.push(calls);
        return e;
      });
    };
    const e = await run([timeout(), timeout(), timeout()]);
    expect((e as ApiError).message).toBe('e0. Gave up after 2 attempts.');
    // Other failures keep the full budget, and one timeout among them counts once.
    await run([err(503), timeout(), err(503)]);
    expect(attempts).toEqual([2, 4]);
  });

  it('repeats retryable 5xx and network failures with growing, capped backoff', async () => {
    const h = harness([err(500), err(0, true, 'ECONNRESET'), err(503)]);
    await expect(h.run()).resolves.toBe('done');
    expect(h.calls()).toBe(4);
    expect(h.sleeps).toEqual([100, 200, 400]);
    expect(h.reasons).toEqual(['500', 'ECONNRESET', '503']);
    expect(h.repeats).toEqual([false, true, true, true]);
  });

  it('gives up after maxAttempts with the last error, saying how many attempts were made', async () => {
    const last = err(502);
    const h = harness([err(500), err(500), err(500), last, err(500)]);
    const e = (await h.run().catch((x: unknown) => x)) as ApiError;
    expect(e).toBeInstanceOf(ApiError);
    expect(e).toMatchObject({ status: 502, operation: 'files.index', retryable: true });
    expect(e.message).toBe('e502. Gave up after 4 attempts.');
    expect(h.calls()).toBe(4);
  });

  it('throws a 4xx at once', async () => {
    const e = err(404, false);
    const h = harness([e]);
    await expect(h.run()).rejects.toBe(e);
    expect(h.calls()).toBe(1);
  });

  it('never repeats an outcome-unknown call', async () => {
    const e = new OutcomeUnknownError('x', { operation: 'files.move', status: 0, serverMessage: '' });
    const h = harness([e]);
    await expect(h.run()).rejects.toBe(e);
    expect(h.calls()).toBe(1);
  });

  it('does not repeat a transient failure marked not retryable', async () => {
    const e = err(0, false, 'ENOTFOUND');
    const h = harness([e]);
    await expect(h.run()).rejects.toBe(e);
  });

  it('repeats 429s without its own backoff (the queue pauses), bounded apart from failures', async () => {
    const h = harness([err(429), err(429), err(500), err(429)]);
    await expect(h.run()).resolves.toBe('done');
    expect(h.sleeps).toEqual([100]);
    const h2 = harness([err(429), err(429), err(429), err(429)]);
    await expect(h2.run()).rejects.toMatchObject({ status: 429, message: 'e429. Still limited after 3 waits.' });
    expect(h2.calls()).toBe(4);
  });

  it('waits out a 429 that carries its own Retry-After (a signed node URL)', async () => {
    const limited = new ApiError('e429', { operation: 'files.upload', status: 429, serverMessage: '', retryable: true, retryAfterMs: 1500 });
    const h = harness([limited, err(500)]);
    await expect(h.run()).resolves.toBe('done');
    expect(h.sleeps).toEqual([1500, 100]);
  });

  it('throws a 429 marked not retryable at once (a wait far beyond the window)', async () => {
    const e = err(429, false);
    const h = harness([e]);
    await expect(h.run()).rejects.toBe(e);
    expect(h.calls()).toBe(1);
  });


  it('passes non-API errors straight through', async () => {
    const e = new TypeError('bug');
    const h = harness([e]);
    await expect(h.run()).rejects.toBe(e);
  });
});

describe('withRetry cancellation', () => {
  it('an abort ends a backoff wait at once, clears its timer and starts no further attempt', async () => {
    const ac = new AbortController();
    let calls = 0;
    const cancelled = new ApiError('cancelled', { operation: 'files.index', status: 0, serverMessage: '', retryable: false, code: 'ECANCELLED' });
    const run = withRetry(
      { ...policy, baseDelayMs: 3_600_000, maxDelayMs: 3_600_000 },
      async () => {
        calls++;
        throw err(503);
      },
      { signal: ac.signal, cancelled: () => cancelled, random: () => 1 },
    );
    const outcome = run.catch((x: unknown) => x);
    while (calls === 0) await new Promise((r) => setImmediate(r));
    ac.abort();
    expect(await outcome).toBe(cancelled);
    expect(calls).toBe(1);
  });

  it('an already aborted signal makes no attempt', async () => {
    const ac = new AbortController();
    ac.abort(new Error('gone'));
    let calls = 0;
    await expect(withRetry(policy, async () => ++calls, { signal: ac.signal })).rejects.toThrow('gone');
    expect(calls).toBe(0);
  });

  it('abortableSleep rejects with the reason and keeps no timer alive', async () => {
    const ac = new AbortController();
    const p = abortableSleep(3_600_000, ac.signal);
    ac.abort(new Error('stop'));
    await expect(p).rejects.toThrow('stop');
    await expect(abortableSleep(1)).resolves.toBeUndefined();
  });
});

describe('backoffDelay', () => {
  it('is full jitter under min(cap, base * 2^n)', () => {
    expect(backoffDelay(0, policy, () => 0)).toBe(0);
    expect(backoffDelay(0, policy, () => 0.5)).toBe(50);
    expect(backoffDelay(3, policy, () => 1)).toBe(800);
    expect(backoffDelay(10, policy, () => 1)).toBe(1000);
    for (let i = 0; i < 50; i++) {
      const d = backoffDelay(2, policy);
      expect(d).toBeGreaterThanOrEqual(0);
      expect(d).toBeLessThanOrEqual(400);
    }
  });
});
