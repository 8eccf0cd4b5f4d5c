import { describe, expect, it } from 'vitest';
import { isCI } from '../../src/cli/ci.js';
import { colorEnabled } from '../../src/cli/colors.js';
import { coarseProgress } from '../../src/cli/progress.js';

describe('in CI', () => {
  it('CI=true (or any value but false/0) means CI', () => {
    expect(isCI({ CI: 'true' })).toBe(true);
    expect(isCI({ CI: '1' })).toBe(true);
    expect(isCI({ CI: 'false' })).toBe(false);
    expect(isCI({})).toBe(false);
  });

  it('no colour, even on a terminal, unless forced', () => {
    expect(colorEnabled({ CI: 'true' }, true)).toBe(false);
    expect(colorEnabled({ CI: 'true', FORCE_COLOR: '1' }, true)).toBe(true);
    expect(colorEnabled({}, true)).toBe(true);
    expect(colorEnabled({}, false)).toBe(false);
  });

  it('a big push reports in coarse lines: its size, each quarter once, then verify, apply and health', () => {
    const lines: string[] = [];
    const p = coarseProgress((l) => lines.push(l));
    const total = 4 * 1024 * 1024;
    p.onProgress!({ phase: 'scan', done: 0, total: 0 });
    for (let done = 0; done <= total; done += 256 * 1024) p.onProgress!({ phase: 'transfer', done, total });
    for (const phase of ['verify', 'apply', 'health'] as const) p.onProgress!({ phase, done: 0, total: 1 });
    expect(lines).toEqual([
      'pushing 4.0 MB',
      'pushed 25% (1.0 MB of 4.0 MB)',
      'pushed 50% (2.0 MB of 4.0 MB)',
      'pushed 75% (3.0 MB of 4.0 MB)',
      'pushed 100% (4.0 MB of 4.0 MB)',
      'verifying',
      'applying',
      'waiting for the app to come up',
    ]);
  });

  it('a small push says nothing', () => {
    const lines: string[] = [];
    const p = coarseProgress((l) => lines.push(l));
    p.onProgress!({ phase: 'transfer', done: 10, total: 10 });
    p.onProgress!({ phase: 'apply', done: 0, total: 1 });
    expect(lines).toEqual([]);
  });
});
