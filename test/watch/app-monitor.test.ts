import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { AppMonitor, type AppDown } from '../../src/watch/app-monitor.js';

beforeEach(() => vi.useFakeTimers());
afterEach(() => vi.useRealTimers());

describe('AppMonitor', () => {
  it('reports an app that went offline after it came up, once, with its first error line', () => {
    const seen: AppDown[] = [];
    const m = new AppMonitor((e) => seen.push(e), 1000);
    m.cycle('running');
    m.line('Ready! Logged in as Bot');
    m.line('TypeError: x is not a function');
    m.line('    at Timeout._onTimeout (/home/container/index.js:2:9)');
    m.stateChanged('offline');
    vi.advanceTimersByTime(1000);
    expect(seen).toHaveLength(1);
    expect(seen[0]).toMatchObject({ state: 'offline', error: 'TypeError: x is not a function' });
    m.stateChanged('offline');
    vi.advanceTimersByTime(5000);
    expect(seen).toHaveLength(1);
  });

  it('a restart passing through offline and back is not a crash; nor is an app that never came up', () => {
    const seen: AppDown[] = [];
    const m = new AppMonitor((e) => seen.push(e), 1000);
    m.cycle('running');
    m.stateChanged('offline');
    vi.advanceTimersByTime(500);
    m.stateChanged('starting');
    vi.advanceTimersByTime(5000);
    expect(seen).toHaveLength(0);
    const n = new AppMonitor((e) => seen.push(e), 1000);
    n.cycle('offline');
    n.stateChanged('offline');
    vi.advanceTimersByTime(5000);
    expect(seen).toHaveLength(0);
  });
});
