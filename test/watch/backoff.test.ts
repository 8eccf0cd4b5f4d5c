import { describe, expect, it } from 'vitest';
import { Backoff } from '../../src/watch/backoff.js';

describe('Backoff', () => {
  it('doubles from the minimum, caps at the maximum, and starts over after a success', () => {
    const b = new Backoff(1000, 30_000);
    expect([b.next(), b.next(), b.next(), b.next(), b.next(), b.next(), b.next()]).toEqual([1000, 2000, 4000, 8000, 16_000, 30_000, 30_000]);
    expect(b.attempts).toBe(7);
    b.reset();
    expect(b.attempts).toBe(0);
    expect(b.next()).toBe(1000);
  });

  it('stays at the cap however long the outage lasts', () => {
    const b = new Backoff(1000, 30_000);
    for (let i = 0; i < 200; i++) b.next();
    expect(b.next()).toBe(30_000);
  });
});
