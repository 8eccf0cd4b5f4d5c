/**
 * The shared budget ledger with a fake clock: the pure decision by table, then real
 * ledger files in a temp folder shared by several BudgetLedger instances standing in
 * for processes (distinct pids), whose sleeps advance the fake clock.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BudgetLedger, entryExpiry, keyIdOf, ledgerDecision, ledgerDir, ledgerFile, type LedgerEntry } from '../../src/remote/ledger.js';
import { testKey } from '../helpers/keys.js';

const dirs: string[] = [];
afterEach(async () => {
  for (const d of dirs.splice(0)) await rm(d, { recursive: true, force: true });
});

async function ledgerPath(): Promise<string> {
  const d = await mkdtemp(join(tmpdir(), 'hostsync-ledger-'));
  dirs.push(d);
  return ledgerFile(join(d, 'budget'), 'http://127.0.0.1:4000');
}

/** A clock shared by every "process" of a test; sleeping advances it and is recorded. */
function fakeClock(start = 1_000_000) {
  const c = {
    t: start,
    slept: [] as number[],
    now: () => c.t,
    sleep: async (ms: number, signal?: AbortSignal) => {
      signal?.throwIfAborted();
      c.slept.push(ms);
      c.t += ms;
    },
  };
  return c;
}

const KEY = testKey('ledger');
const WINDOW = 1000;

function processOn(file: string, clock: ReturnType<typeof fakeClock>, pid: number, more: Partial<ConstructorParameters<typeof BudgetLedger>[0]> = {}) {
  return new BudgetLedger({
    file, apiKey: KEY, keyLimit: 3, userLimit: 5, windowMs: WINDOW, marginMs: 0,
    now: clock.now, sleep: clock.sleep, pid, host: 'here', alive: () => true, ...more,
  });
}

describe('ledgerDecision', () => {
  const c = (keyId: string, expiry: number) => ({ keyId, expiry });
  const limits = { keyLimit: 2, userLimit: 3 };
  it.each([
    ['room for the key and the user', [c('a', 500)], { take: true }],
    ['the key full: wait for its earliest expiry', [c('a', 500), c('a', 300), c('b', 100)], { take: false, waitMs: 200 }],
    ['the user full across keys: wait for the earliest of all', [c('b', 400), c('b', 250), c('c', 700)], { take: false, waitMs: 150 }],
    ['both full: wait for the later of the two', [c('a', 600), c('a', 900), c('b', 150)], { take: false, waitMs: 500 }],
    ['full of in-flight answers only: no known wait', [c('a', Infinity), c('a', Infinity)], { take: false, waitMs: undefined }],
    ['another key alone does not fill ours', [c('b', Infinity), c('b', Infinity)], { take: true }],
  ])('%s', (_name, counted, expected) => {
    expect(ledgerDecision(counted, 'a', limits, 100)).toEqual(expected);
  });

  it('an in-flight entry counts until its answer; a dead owner\'s leaves one window after it was sent', () => {
    const e: LedgerEntry = { keyId: 'a', pid: 1, host: 'h', sentAt: 100, windowMs: 1000, expiresAt: null };
    expect(entryExpiry(e, true, 50)).toBe(Infinity);
    expect(entryExpiry(e, false, 50)).toBe(1150);
    expect(entryExpiry({ ...e, expiresAt: 1800 }, false, 50)).toBe(1800);
  });
});

describe('BudgetLedger across processes', () => {
  it('a second process waits (does not fail) until the first one\'s answers leave the window', async () => {
    const file = await ledgerPath();
    const clock = fakeClock();
    const a = processOn(file, clock, 101);
    const b = processOn(file, clock, 102);
    for (let i = 0; i < 3; i++) (await a.reserve()).done();
    await a.flush();
    const t0 = clock.t;
    const r = await b.reserve();
    // The key's 3 answered at t0: room opens exactly one window later.
    expect(clock.t - t0).toBe(WINDOW);
    expect(b.waitedMs).toBe(WINDOW);
    r.done();
    await b.flush();
  });

  it('keys of the same service share the user budget', async () => {
    const file = await ledgerPath();
    const clock = fakeClock();
    const a = processOn(file, clock, 101);
    const other = processOn(file, clock, 102, { apiKey: testKey('same_user') });
    for (let i = 0; i < 3; i++) (await a.reserve()).done();
    for (let i = 0; i < 2; i++) (await other.reserve()).done();
    await a.flush();
    await other.flush();
    const t0 = clock.t;
    await other.reserve(); // its own key has room (2 of 3), the user's 5 are spent
    expect(clock.t - t0).toBe(WINDOW);
  });

  it('holds a live process\'s in-flight request until its answer, polling meanwhile', async () => {
    const file = await ledgerPath();
    const clock = fakeClock();
    const a = processOn(file, clock, 101);
    const b = processOn(file, clock, 102);
    const held = [await a.reserve(), await a.reserve(), await a.reserve()];
    let got = false;
    const waiting = b.reserve().then((r) => {
      got = true;
      return r;
    });
    // b polls while a's answers are outstanding: every sleep is a poll, the clock advances.
    while (clock.slept.length < 3) await new Promise((r) => setImmediate(r));
    expect(got).toBe(false);
    for (const h of held) h.done();
    await a.flush();
    await waiting;
    expect(got).toBe(true);
  });

  it('a killed process\'s in-flight reservations expire one window after they were sent', async () => {
    const file = await ledgerPath();
    const clock = fakeClock();
    const killed = processOn(file, clock, 666);
    for (let i = 0; i < 3; i++) await killed.reserve(); // never answered: the process died
    const sentAt = clock.t;
    const b = processOn(file, clock, 102, { alive: (pid) => pid !== 666 });
    await b.reserve();
    expect(clock.t).toBe(sentAt + WINDOW);
  });

  it('a ledger torn by a crash mid-write reads as empty', async () => {
    const file = await ledgerPath();
    const clock = fakeClock();
    const a = processOn(file, clock, 101);
    (await a.reserve()).done();
    await a.flush();
    await writeFile(file, '{"version":1,"entries":[{"keyId":');
    const b = processOn(file, clock, 102);
    const t0 = clock.t;
    for (let i = 0; i < 3; i++) await b.reserve();
    expect(clock.t).toBe(t0);
  });

  it('never writes the key: entries carry a salted hash of it', async () => {
    const file = await ledgerPath();
    const clock = fakeClock();
    const a = processOn(file, clock, 101);
    (await a.reserve()).done();
    await a.flush();
    const text = await readFile(file, 'utf8');
    expect(text).not.toContain(KEY);
    expect(JSON.parse(text).entries[0].keyId).toBe(keyIdOf(KEY));
    expect(keyIdOf(KEY)).toMatch(/^[0-9a-f]{16}$/);
  });

  it('a wait is cut short by the caller\'s signal', async () => {
    const file = await ledgerPath();
    const clock = fakeClock();
    const a = processOn(file, clock, 101);
    for (let i = 0; i < 3; i++) await a.reserve();
    const ctl = new AbortController();
    const b = processOn(file, clock, 102, { sleep: async () => ctl.abort(new Error('shutting down')) });
    await expect(b.reserve(ctl.signal)).rejects.toThrow('shutting down');
  });

  it('an unusable cache folder drops the ledger once, with a warning, and never blocks', async () => {
    const file = await ledgerPath();
    await writeFile(join(file, '..'), 'a file where the budget folder should be');
    const clock = fakeClock();
    const warnings: unknown[] = [];
    const a = processOn(file, clock, 101, { onUnavailable: (e) => warnings.push(e) });
    for (let i = 0; i < 5; i++) (await a.reserve()).done();
    await a.flush();
    expect(clock.t).toBe(1_000_000);
    expect(warnings).toHaveLength(1);
  });
});

describe('ledgerDir', () => {
  it('HOSTSYNC_CACHE_DIR, else XDG_CACHE_HOME/hostsync, else ~/.cache/hostsync', () => {
    expect(ledgerDir({ HOSTSYNC_CACHE_DIR: '/t/c', XDG_CACHE_HOME: '/x' })).toBe('/t/c/budget');
    expect(ledgerDir({ XDG_CACHE_HOME: '/x' })).toBe('/x/hostsync/budget');
    expect(ledgerDir({ XDG_CACHE_HOME: 'relative' })).toMatch(/\/\.cache\/hostsync\/budget$/);
  });
});

describe('BudgetLedger abort races', () => {
  it('a request cancelled while it waits for its grant leaves no in-flight entry behind', async () => {
    const file = await ledgerPath();
    const clock = fakeClock();
    const a = processOn(file, clock, 101);
    const ctl = new AbortController();
    const first = a.reserve(ctl.signal);
    const second = a.reserve();
    // Aborted in the same tick, while the pass that would grant it waits for the lock.
    ctl.abort(new Error('cancelled'));
    await expect(first).rejects.toThrow('cancelled');
    (await second).done();
    await a.flush();
    const entries = JSON.parse(await readFile(file, 'utf8')).entries as LedgerEntry[];
    expect(entries.every((e) => e.expiresAt !== null)).toBe(true);
  });
});
