/**
 * The shared budget ledger when it cannot move on its own (issue 28, item 5 and the lock
 * item): unanswered entries of a live pid (a killed hostsync whose pid was reused, one
 * stopped with Ctrl-Z) are void past their request's bound, a wait longer than a second
 * is told once, a lock whose mtime lies in the future is stale, and the warning for an
 * unusable ledger names the file.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { mkdir, mkdtemp, readFile, rm, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import {
  BudgetLedger, LedgerUnavailableError, describeWait, entryExpiry, keyIdOf, ledgerFile, type LedgerEntry, type LedgerWait,
} from '../../src/remote/ledger.js';
import { LEDGER_IN_FLIGHT_MAX_MS } from '../../src/remote/tunables.js';
import { testKey } from '../helpers/keys.js';

const dirs: string[] = [];
afterEach(async () => {
  for (const d of dirs.splice(0)) await rm(d, { recursive: true, force: true });
});

async function ledgerPath(): Promise<string> {
  const d = await mkdtemp(join(tmpdir(), 'hostsync-ledger-stuck-'));
  dirs.push(d);
  const file = ledgerFile(join(d, 'budget'), 'http://127.0.0.1:4000');
  await mkdir(dirname(file), { recursive: true });
  return file;
}

function fakeClock(start = 1_000_000) {
  const c = {
    t: start,
    now: () => c.t,
    sleep: async (ms: number, signal?: AbortSignal) => {
      signal?.throwIfAborted();
      c.t += ms;
    },
  };
  return c;
}

const KEY = testKey('ledger_stuck');
const WINDOW = 1000;

const inFlight = (n: number, pid: number, sentAt: number, more: Partial<LedgerEntry> = {}): LedgerEntry[] =>
  Array.from({ length: n }, () => ({ keyId: keyIdOf(KEY), pid, host: 'here', sentAt, windowMs: WINDOW, expiresAt: null, ...more }));

describe('entryExpiry: an unanswered entry of a live owner', () => {
  const e: LedgerEntry = { keyId: 'a', pid: 1, host: 'h', sentAt: 100, windowMs: 1000, expiresAt: null, maxMs: 5000 };
  it.each([
    ['younger than its request\'s bound: counts until its answer', e, 4000, Infinity],
    ['past its bound: void (its owner gave up on it)', e, 5100, 5150],
    ['a bound shorter than the window: counts a window past its send', { ...e, maxMs: 300 }, 500, 1150],
    ['without a bound: LEDGER_IN_FLIGHT_MAX_MS', { ...e, maxMs: undefined }, 100 + LEDGER_IN_FLIGHT_MAX_MS, 100 + LEDGER_IN_FLIGHT_MAX_MS + 50],
  ])('%s', (_name, entry, now, expected) => {
    expect(entryExpiry(entry, true, 50, now)).toBe(expected);
  });
});

describe('a budget held by a live pid\'s unanswered requests', () => {
  it('waits no longer than their bound, and says once, after a second, what it waits for', async () => {
    const file = await ledgerPath();
    const clock = fakeClock();
    // A stopped process (pid 4242, alive) holds the key's 3 slots with requests bounded at 5 s.
    await writeFile(file, JSON.stringify({ version: 1, entries: inFlight(3, 4242, clock.t, { maxMs: 5000 }) }));
    const told: LedgerWait[] = [];
    const ledger = new BudgetLedger({
      file, apiKey: KEY, keyLimit: 3, userLimit: 5, windowMs: WINDOW, marginMs: 0,
      now: clock.now, sleep: clock.sleep, pid: 101, host: 'here', alive: () => true, onWait: (w) => told.push(w),
    });
    const t0 = clock.t;
    const r = await ledger.reserve(undefined, 2000);
    r.done();
    await ledger.flush();
    expect(clock.t - t0).toBeGreaterThanOrEqual(5000);
    expect(told).toHaveLength(1);
    expect(told[0]).toMatchObject({ file, held: 3, limit: 3, owners: [{ pid: 4242, host: null, inFlight: 3, answered: 0 }] });
    // Room opens when the earliest of them is void.
    expect(told[0]!.untilMs).toBe(t0 + 5000);
    // Our own entry carries its bound, for the other processes.
    const saved = JSON.parse(await readFile(file, 'utf8')) as { entries: LedgerEntry[] };
    expect(saved.entries.filter((e) => e.pid === 101).map((e) => e.maxMs)).toEqual([2000]);
    expect(saved.entries.filter((e) => e.pid === 4242)).toEqual([]);
  });

  it('a wait is ended by the caller\'s signal (the command\'s deadline), even before the entries are void', async () => {
    const file = await ledgerPath();
    await writeFile(file, JSON.stringify({ version: 1, entries: inFlight(3, 4242, Date.now()) }));
    const ledger = new BudgetLedger({ file, apiKey: KEY, keyLimit: 3, userLimit: 5, windowMs: WINDOW, marginMs: 0, pid: 101, host: 'here', alive: () => true });
    const deadline = AbortSignal.timeout(300);
    await expect(ledger.reserve(deadline)).rejects.toMatchObject({ name: 'TimeoutError' });
    await ledger.flush();
  });

  it('describes the wait in one line: slots, pids, until when, the file', () => {
    const w: LedgerWait = { file: '/c/budget/x.json', held: 120, limit: 120, owners: [{ pid: 4242, host: null, inFlight: 118, answered: 2 }, { pid: 7, host: 'box', inFlight: 0, answered: 1 }], untilMs: 90_000 };
    expect(describeWait(w, 60_000)).toMatch(
      /^waiting for the rate budget shared with other hostsync processes: 120 of 120 slots are held by pid 4242 \(118 unanswered, 2 answered\), pid 7 on box \(1 answered\); room by \d\d:\d\d:\d\d \(in 30 s\) at the latest \(ledger \/c\/budget\/x\.json\)$/,
    );
  });
});

describe('the ledger\'s lock', () => {
  it('one whose mtime lies in the future is stale: taken over at once, no warning', async () => {
    const file = await ledgerPath();
    const lock = `${file}.lock`;
    await mkdir(lock);
    const future = new Date(Date.now() + 3600_000);
    await utimes(lock, future, future);
    const warnings: unknown[] = [];
    const ledger = new BudgetLedger({ file, apiKey: KEY, keyLimit: 3, userLimit: 5, windowMs: WINDOW, marginMs: 0, onUnavailable: (e) => warnings.push(e) });
    (await ledger.reserve()).done();
    await ledger.flush();
    expect(warnings).toEqual([]);
    const saved = JSON.parse(await readFile(file, 'utf8')) as { entries: LedgerEntry[] };
    expect(saved.entries).toHaveLength(1);
  });

  it('one held too long drops the ledger with a warning that names the lock file', async () => {
    const file = await ledgerPath();
    await mkdir(`${file}.lock`); // fresh: a live holder's, never released
    const warnings: LedgerUnavailableError[] = [];
    const ledger = new BudgetLedger({
      file, apiKey: KEY, keyLimit: 3, userLimit: 5, windowMs: WINDOW, marginMs: 0, lockWaitMs: 300, onUnavailable: (e) => warnings.push(e),
    });
    (await ledger.reserve()).done();
    expect(warnings).toHaveLength(1);
    expect(warnings[0]!.message).toBe(
      `the shared rate-budget ledger cannot be used: its lock ${file}.lock stayed held for 0.3 s (remove it if no hostsync is running)`,
    );
  });
});
