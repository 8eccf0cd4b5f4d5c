import { describe, expect, it } from 'vitest';
import { addEvents, decide, dueAt, requeue, type Pending, type ScheduleState } from '../../src/watch/schedule.js';

const t = { debounceMs: 40, bulkPaths: 3, bulkQuietMs: 150, maxWaitMs: 400, pollMs: 30_000 };
const pending = (firstAt: number, lastAt: number, paths: string[] = ['a'], full = false): Pending => ({ paths: new Set(paths), full, firstAt, lastAt });
const state = (over: Partial<ScheduleState>): ScheduleState => ({ pending: null, running: false, notBefore: 0, lastSyncAt: 0, ...over });

describe('decide', () => {
  const table: { name: string; s: ScheduleState; now: number; expect: ReturnType<typeof decide> }[] = [
    { name: 'quiet period not over', s: state({ pending: pending(1000, 1000) }), now: 1039, expect: { kind: 'wait', at: 1040 } },
    { name: 'quiet period over', s: state({ pending: pending(1000, 1000) }), now: 1040, expect: { kind: 'run', batch: { paths: ['a'], full: false, poll: false, firstAt: 1000 } } },
    { name: 'a later event extends the quiet period', s: state({ pending: pending(1000, 1030) }), now: 1050, expect: { kind: 'wait', at: 1070 } },
    { name: 'max wait bounds a burst that never goes quiet', s: state({ pending: pending(1000, 1390) }), now: 1400, expect: { kind: 'run', batch: { paths: ['a'], full: false, poll: false, firstAt: 1000 } } },
    { name: 'just before max wait, still in the burst', s: state({ pending: pending(1000, 1390) }), now: 1399, expect: { kind: 'wait', at: 1400 } },
    { name: 'a running cycle holds everything back', s: state({ pending: pending(0, 0), running: true }), now: 99_999, expect: { kind: 'busy' } },
    { name: 'backoff delays a due batch', s: state({ pending: pending(1000, 1000), notBefore: 5000 }), now: 1040, expect: { kind: 'wait', at: 5000 } },
    { name: 'backoff over', s: state({ pending: pending(1000, 1000), notBefore: 5000 }), now: 5000, expect: { kind: 'run', batch: { paths: ['a'], full: false, poll: false, firstAt: 1000 } } },
    { name: 'a full rescan batch waits the bulk quiet period', s: state({ pending: pending(0, 0, [], true) }), now: 149, expect: { kind: 'wait', at: 150 } },
    { name: 'full rescan batch', s: state({ pending: pending(0, 0, [], true) }), now: 150, expect: { kind: 'run', batch: { paths: [], full: true, poll: false, firstAt: 0 } } },
    { name: 'below bulkPaths: the debounce', s: state({ pending: pending(1000, 1000, ['a', 'b']) }), now: 1040, expect: { kind: 'run', batch: { paths: ['a', 'b'], full: false, poll: false, firstAt: 1000 } } },
    { name: 'a bulk batch waits the bulk quiet period after its last event', s: state({ pending: pending(1000, 1000, ['a', 'b', 'c']) }), now: 1040, expect: { kind: 'wait', at: 1150 } },
    { name: 'a bulk batch is still bounded by max wait', s: state({ pending: pending(1000, 1300, ['a', 'b', 'c']) }), now: 1350, expect: { kind: 'wait', at: 1400 } },
    { name: 'idle: poll not due', s: state({ lastSyncAt: 1000 }), now: 30_999, expect: { kind: 'wait', at: 31_000 } },
    { name: 'idle: poll due', s: state({ lastSyncAt: 1000 }), now: 31_000, expect: { kind: 'run', batch: { paths: [], full: false, poll: true, firstAt: null } } },
    { name: 'idle: poll waits for backoff', s: state({ lastSyncAt: 1000, notBefore: 40_000 }), now: 31_000, expect: { kind: 'wait', at: 40_000 } },
  ];
  for (const row of table) {
    it(row.name, () => expect(decide(row.s, row.now, t)).toEqual(row.expect));
  }

  it('never polls when the poll period is 0', () => {
    expect(decide(state({}), 1e12, { ...t, pollMs: 0 })).toEqual({ kind: 'wait', at: Infinity });
  });

  it('dueAt is the earlier of quiet period and max wait', () => {
    expect(dueAt(pending(0, 100), t)).toBe(140);
    expect(dueAt(pending(0, 380), t)).toBe(400);
  });
});

describe('addEvents and requeue', () => {
  it('a new batch starts both clocks at the first event; later events move only the last', () => {
    let p = addEvents(null, ['a'], 10);
    p = addEvents(p, ['b', 'a'], 25);
    expect([...p.paths].sort()).toEqual(['a', 'b']);
    expect(p.firstAt).toBe(10);
    expect(p.lastAt).toBe(25);
  });

  it('a full rescan drops paths and absorbs later ones', () => {
    let p = addEvents(null, ['a'], 0);
    p = addEvents(p, [], 5, true);
    p = addEvents(p, ['b'], 6);
    expect(p.full).toBe(true);
    expect(p.paths.size).toBe(0);
  });

  it('a failed batch comes back merged with what arrived meanwhile, keeping the earliest first event', () => {
    const meanwhile = addEvents(null, ['c'], 500);
    const back = requeue(meanwhile, { paths: ['a', 'b'], full: false, poll: false, firstAt: 100 }, 600);
    expect([...back.paths].sort()).toEqual(['a', 'b', 'c']);
    expect(back.firstAt).toBe(100);
    expect(back.lastAt).toBe(500);
  });

  it('a failed poll comes back as an empty batch that still runs', () => {
    const back = requeue(null, { paths: [], full: false, poll: true, firstAt: null }, 700);
    expect(back.paths.size).toBe(0);
    expect(decide(state({ pending: back, notBefore: 1700 }), 1700, t)).toMatchObject({ kind: 'run' });
  });
});
