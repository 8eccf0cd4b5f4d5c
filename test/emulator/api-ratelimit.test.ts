import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RateLimiter } from '../../src/emulator/ratelimit.js';
import { call, startTestEmulator, type TestEmulator } from './api-client.js';

describe('rate limit over HTTP (document defaults: 120 per key, 300 per user, 60 s)', () => {
  let t: TestEmulator;
  beforeAll(async () => {
    t = await startTestEmulator();
  });
  afterAll(() => t.close());

  it('answers request 121 inside one window with 429 and Retry-After, and X-RateLimit-Remaining on every answer', async () => {
    const remaining: number[] = [];
    for (let i = 0; i < 120; i++) {
      const a = await call(t.emu, 'GET', '~/files');
      expect(a.status).toBe(200);
      remaining.push(Number(a.headers.get('x-ratelimit-remaining')));
    }
    expect(remaining[0]).toBe(119);
    expect(remaining[119]).toBe(0);
    const over = await call(t.emu, 'GET', '~/files');
    expect(over.status).toBe(429);
    const retry = Number(over.headers.get('retry-after'));
    expect(Number.isInteger(retry)).toBe(true);
    expect(retry).toBeGreaterThanOrEqual(1);
    expect(retry).toBeLessThanOrEqual(60);
    expect(over.headers.get('x-ratelimit-remaining')).toBe('0');
    expect(over.json.code).toBe('rate_limited');
    expect(t.emu.stats().rateLimited).toBe(1);
  });
});

describe('per-user limit across keys', () => {
  let t: TestEmulator;
  beforeAll(async () => {
    t = await startTestEmulator({ rateLimit: 5, userRateLimit: 8, keys: ['k2:files:read'] });
  });
  afterAll(() => t.close());

  it('refuses a second key once the user budget is spent, and a 429 consumes nothing', async () => {
    for (let i = 0; i < 5; i++) expect((await call(t.emu, 'GET', '~/files')).status).toBe(200);
    expect((await call(t.emu, 'GET', '~/files')).status).toBe(429);
    expect((await call(t.emu, 'GET', '~/files')).status).toBe(429);
    // k2 has its own 5, but the user only 3 left (the two 429s consumed nothing).
    const seen: number[] = [];
    for (let i = 0; i < 3; i++) {
      const a = await call(t.emu, 'GET', '~/files', { key: 'k2' });
      expect(a.status).toBe(200);
      seen.push(Number(a.headers.get('x-ratelimit-remaining')));
    }
    expect(seen).toEqual([2, 1, 0]);
    const a = await call(t.emu, 'GET', '~/files', { key: 'k2' });
    expect(a.status).toBe(429);
    expect(Number(a.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
  });
});

describe('RateLimiter (sliding window, injected clock)', () => {
  it('slides: a slot frees exactly when the oldest request leaves the window', () => {
    let now = 1_000_000;
    const rl = new RateLimiter(3, 100, 60_000, () => now);
    expect(rl.take('k')).toMatchObject({ allowed: true, remaining: 2 });
    now += 10_000;
    rl.take('k');
    now += 10_000;
    expect(rl.take('k')).toMatchObject({ allowed: true, remaining: 0 });
    now += 1_000;
    const refused = rl.take('k');
    expect(refused.allowed).toBe(false);
    // Oldest at t0 leaves at t0+60 s; now is t0+21 s: 39 s to wait.
    expect(refused.retryAfterSeconds).toBe(39);
    now = 1_000_000 + 59_999;
    expect(rl.take('k').allowed).toBe(false);
    now = 1_000_000 + 60_000;
    expect(rl.take('k')).toMatchObject({ allowed: true, remaining: 0 });
  });

  it('rounds Retry-After up and never below 1', () => {
    let now = 0;
    const rl = new RateLimiter(1, 100, 1_000, () => now);
    rl.take('k');
    now = 999;
    expect(rl.take('k').retryAfterSeconds).toBe(1);
    now = 100;
    const rl2 = new RateLimiter(1, 100, 2_500, () => now);
    rl2.take('k');
    expect(rl2.take('k').retryAfterSeconds).toBe(3);
  });

  it('keeps keys apart but counts the user across them', () => {
    const rl = new RateLimiter(2, 3, 60_000, () => 0);
    expect(rl.take('a').allowed).toBe(true);
    expect(rl.take('a').allowed).toBe(true);
    expect(rl.take('a').allowed).toBe(false);
    expect(rl.take('b')).toMatchObject({ allowed: true, remaining: 0 });
    expect(rl.take('b').allowed).toBe(false);
    expect(rl.peek('c')).toBe(0);
  });
});
