/**
 * One rate budget per key across processes: a `watch` and a `push` from another
 * terminal (or two watches) share the key's 120/min and the user's 300/min, so they
 * must not 429 each other. Each process's own window (ratelimit.ts) only learns about
 * the others from `X-RateLimit-Remaining`, one answer late, which is too late when
 * both burst at once. So every metered request first reserves a slot in a small
 * ledger file shared by every hostsync process of this OS user on this machine.
 *
 * The file: `<cache>/hostsync/budget/<hash of the service origin>.json`, one per
 * service (the user budget is the service's), holding one entry per request still
 * counted: the key's id, the owner's pid and host, when it was sent, its window, and
 * when it stops counting (`null` while in flight).
 *
 * Invariants:
 * - The key is never written: entries carry `keyId`, a truncated salted sha256.
 * - Every read-modify-write happens under the file's lock (proper-lockfile) and the
 *   write is atomic (temp file, rename), so a kill at any instant leaves the old or
 *   the new ledger, never a torn one; a torn one reads as empty.
 * - Crash-safe: an answered entry expires `window` after its answer (as our own
 *   window does); an in-flight entry whose owner (same host) is dead expires `window`
 *   after it was sent, so a killed process's reservations leave with the sliding
 *   window; a lock left by a killed process is taken over once stale, and one whose
 *   mtime lies in the future (a clock set back, a copied folder) at once.
 * - No entry counts forever: an unanswered one whose owner still runs (or whose pid was
 *   reused, or which was stopped with Ctrl-Z) is void once older than the longest its
 *   request may take (`maxMs`, the owner's bound for it; LEDGER_IN_FLIGHT_MAX_MS when
 *   absent), and counts a window past its send at most as long as that.
 * - A full window waits, never fails, and says so once a wait passes LEDGER_WAIT_TELL_MS
 *   (`onWait`: how many slots, which pids, until when); the wait ends with the caller's
 *   signal (the command's deadline). A ledger that cannot be used (unwritable cache, a
 *   lock never released) is dropped with one warning naming the file: the budget header
 *   and 429 pause still protect us.
 *
 * The decision (`ledgerDecision`) is pure and takes the clock, for table tests.
 */

import { createHash } from 'node:crypto';
import { readFile, rename, writeFile } from 'node:fs/promises';
import { homedir, hostname } from 'node:os';
import path from 'node:path';
import { processAlive } from '../state/lock.js';
import { LockedFile } from '../local/locked-file.js';
import { abortableSleep } from './retry.js';
import {
  LEDGER_ANSWER_WRITE_MS, LEDGER_IN_FLIGHT_MAX_MS, LEDGER_LOCK_RETRY_MAX_MS, LEDGER_LOCK_STALE_MS, LEDGER_LOCK_WAIT_MAX_MS,
  LEDGER_MAX_SLEEP_MS, LEDGER_POLL_MS, LEDGER_WAIT_TELL_MS,
} from './tunables.js';



/** Why the ledger was dropped, naming its file (the lock's, when the lock was the trouble). */
export class LedgerUnavailableError extends Error {
  constructor(readonly file: string, override readonly cause: unknown, lockWaitMs = LEDGER_LOCK_WAIT_MAX_MS) {
    const code = (cause as NodeJS.ErrnoException | undefined)?.code;
    const why = code === 'ELOCKED'
      ? `its lock ${file}.lock stayed held for ${Math.round(lockWaitMs / 100) / 10} s (remove it if no hostsync is running)`
      : `${file}: ${cause instanceof Error ? cause.message : String(cause)}`;
    super(`the shared rate-budget ledger cannot be used: ${why}`);
  }
}

export interface LedgerEntry {
  /** keyIdOf(key): never the key. */
  keyId: string;
  pid: number;
  host: string;
  /** Wall-clock ms when the slot was reserved (just before the send). */
  sentAt: number;
  /** The window this entry counts in (ms), so a crashed owner's entry can expire without it. */
  windowMs: number;
  /** Wall-clock ms when it stops counting; null while the request is in flight. */
  expiresAt: number | null;
  /** The longest its request may take (its owner gives up then): unanswered past it, the entry is void. */
  maxMs?: number;
}

export interface LedgerLimits {
  keyLimit: number;
  userLimit: number;
}

/** hostsync's cache folder: HOSTSYNC_CACHE_DIR, else $XDG_CACHE_HOME/hostsync, else ~/.cache/hostsync. */
export function cacheDir(env: NodeJS.ProcessEnv = process.env): string {
  if (env.HOSTSYNC_CACHE_DIR) return env.HOSTSYNC_CACHE_DIR;
  const base = env.XDG_CACHE_HOME && path.isAbsolute(env.XDG_CACHE_HOME) ? env.XDG_CACHE_HOME : path.join(homedir(), '.cache');
  return path.join(base, 'hostsync');
}

/** Where budget ledgers live: `budget/` in the cache folder. */
export function ledgerDir(env: NodeJS.ProcessEnv = process.env): string {
  return path.join(cacheDir(env), 'budget');
}

/** 64 bits of a salted sha256: enough to tell keys apart, useless for recovering one. */
export function keyIdOf(apiKey: string): string {
  return createHash('sha256').update('hostsync budget ledger v1\0').update(apiKey).digest('hex').slice(0, 16);
}

export function ledgerFile(dir: string, origin: string): string {
  return path.join(dir, `${createHash('sha256').update(origin).digest('hex').slice(0, 16)}.json`);
}

/** How long an unanswered entry may be in flight before it is void. */
export function inFlightCapMs(e: LedgerEntry): number {
  return e.maxMs ?? LEDGER_IN_FLIGHT_MAX_MS;
}

/**
 * When an entry stops counting, given whether its owner still runs, at `now`: Infinity
 * for a live owner's in-flight one younger than its cap (its answer may come any moment).
 * Past the cap its owner has given up on it, so it is treated as a dead owner's: one
 * window past its send, and no later than the cap (plus the margin) says.
 */
export function entryExpiry(e: LedgerEntry, ownerAlive: boolean, marginMs: number, now = -Infinity): number {
  if (e.expiresAt !== null) return e.expiresAt;
  if (!ownerAlive) return e.sentAt + e.windowMs + marginMs;
  const cap = inFlightCapMs(e);
  return now < e.sentAt + cap ? Infinity : e.sentAt + Math.max(e.windowMs, cap) + marginMs;
}

/** The latest an entry can stop counting: an in-flight one of a live owner once its cap passed. */
export function latestExpiry(e: LedgerEntry, ownerAlive: boolean, marginMs: number): number {
  if (e.expiresAt !== null || !ownerAlive) return entryExpiry(e, ownerAlive, marginMs);
  return e.sentAt + Math.max(e.windowMs, inFlightCapMs(e)) + marginMs;
}

/** What a reservation waits for (LedgerOptions.onWait). */
export interface LedgerWait {
  file: string;
  /** The entries counted, and the limit of the set that is full (the key's, else the user's). */
  held: number;
  limit: number;
  /** Per owner: pid, host (ours: null), answered and unanswered entries. */
  owners: Array<{ pid: number; host: string | null; answered: number; inFlight: number }>;
  /** Wall-clock ms by which room opens even if no unanswered request is ever answered. */
  untilMs: number;
}

/** One line for a person: what the wait is for, whose requests hold the budget, until when. */
export function describeWait(w: LedgerWait, now: number): string {
  const owners = w.owners
    .map((o) => {
      const parts = [o.inFlight > 0 ? `${o.inFlight} unanswered` : null, o.answered > 0 ? `${o.answered} answered` : null].filter(Boolean);
      return `pid ${o.pid}${o.host === null ? '' : ` on ${o.host}`} (${parts.join(', ')})`;
    })
    .join(', ');
  const at = new Date(w.untilMs);
  const two = (n: number): string => String(n).padStart(2, '0');
  const clock = `${two(at.getHours())}:${two(at.getMinutes())}:${two(at.getSeconds())}`;
  const secs = Math.max(1, Math.ceil((w.untilMs - now) / 1000));
  return `waiting for the rate budget shared with other hostsync processes: ${w.held} of ${w.limit} slots are held by ${owners}; ` +
    `room by ${clock} (in ${secs} s) at the latest (ledger ${w.file})`;
}

export type LedgerDecision = { take: true } | { take: false; waitMs: number | undefined };

/**
 * Whether `keyId` may send now, given the entries still counted (each with its expiry).
 * When not: how long until enough expire (undefined when only in-flight answers can free room).
 */
export function ledgerDecision(
  counted: ReadonlyArray<{ keyId: string; expiry: number }>, keyId: string, limits: LedgerLimits, now: number,
): LedgerDecision {
  const mine = counted.filter((c) => c.keyId === keyId);
  const waits: Array<number | undefined> = [];
  for (const [set, limit] of [[mine, limits.keyLimit], [counted, limits.userLimit]] as const) {
    const over = set.length - limit + 1;
    if (over <= 0) continue;
    const finite = set.map((c) => c.expiry).filter(Number.isFinite).sort((a, b) => a - b);
    waits.push(finite.length < over ? undefined : Math.max(1, finite[over - 1]! - now));
  }
  if (waits.length === 0) return { take: true };
  if (waits.includes(undefined)) return { take: false, waitMs: undefined };
  return { take: false, waitMs: Math.max(...(waits as number[])) };
}

export interface LedgerOptions extends LedgerLimits {
  file: string;
  apiKey: string;
  windowMs: number;
  marginMs: number;
  now?: () => number;
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  alive?: (pid: number) => boolean;
  pid?: number;
  host?: string;
  /** Told once when the ledger cannot be used and is dropped (a LedgerUnavailableError). */
  onUnavailable?: (err: LedgerUnavailableError) => void;
  /** Told once per wait, when a reservation has waited LEDGER_WAIT_TELL_MS for room. */
  onWait?: (wait: LedgerWait) => void;
  /** How long to wait for the file's lock (default LEDGER_LOCK_WAIT_MAX_MS; tests). */
  lockWaitMs?: number;
}

export interface Reservation {
  /** The request's answer arrived (or it failed): its slot now expires one window from now. */
  done(): void;
}

const NO_RESERVATION: Reservation = { done: () => undefined };

interface Waiter {
  resolve(r: Reservation): void;
  reject(e: unknown): void;
  signal: AbortSignal | undefined;
  aborted: boolean;
  maxMs: number | undefined;
}

export class BudgetLedger {
  private readonly keyId: string;
  private readonly now: () => number;
  private readonly sleep: (ms: number, signal?: AbortSignal) => Promise<void>;
  private readonly alive: (pid: number) => boolean;
  private readonly pid: number;
  private readonly host: string;
  /** The file, its lock, and this process's updates one at a time; broken after a failure. */
  private readonly locked: LockedFile;
  /** Reservations asked for and not yet granted, oldest first: one pass grants as many as fit. */
  private waiters: Waiter[] = [];
  /** Answers not yet written: [sentAt, expiresAt]. Until written they count as in flight (the safe side). */
  private finished: Array<[number, number]> = [];
  /** Writes pending answers when no reservation's pass does it first. */
  private answerTimer: NodeJS.Timeout | null = null;
  /** The pump's run while it has work; null when idle. */
  private pumpRun: Promise<void> | null = null;
  private again = false;
  /** Liveness of other processes' pids, probed once per pass. */
  private readonly aliveCache = new Map<number, boolean>();
  /** Wall time the pump slept on a full window (waits of concurrent requests counted once). */
  private waited = 0;
  /** When the current wait for room began (undefined: not waiting), and whether it was told. */
  private waitingSince: number | undefined;
  private waitTold = false;

  constructor(private readonly opts: LedgerOptions) {
    this.locked = new LockedFile(
      opts.file,
      { staleMs: LEDGER_LOCK_STALE_MS, waitMs: opts.lockWaitMs ?? LEDGER_LOCK_WAIT_MAX_MS, minRetryMs: 2, maxRetryMs: LEDGER_LOCK_RETRY_MAX_MS },
      (err) => opts.onUnavailable?.(new LedgerUnavailableError(opts.file, err, opts.lockWaitMs)),
    );
    this.keyId = keyIdOf(opts.apiKey);
    this.now = opts.now ?? Date.now;
    this.sleep = opts.sleep ?? abortableSleep;
    this.alive = opts.alive ?? processAlive;
    this.pid = opts.pid ?? process.pid;
    this.host = opts.host ?? hostname();
  }

  /** Wall time reservations spent waiting for room in the shared budget. */
  get waitedMs(): number {
    return Math.round(this.waited);
  }

  resetCounters(): void {
    this.waited = 0;
  }

  /**
   * Waits until the shared budget has room, then holds one slot until `done()`.
   * `maxMs`: the longest the request may take; other processes void its slot after it.
   */
  reserve(signal?: AbortSignal, maxMs?: number): Promise<Reservation> {
    if (this.locked.broken) return Promise.resolve(NO_RESERVATION);
    if (signal?.aborted) return Promise.reject(signal.reason);
    return new Promise<Reservation>((resolve, reject) => {
      const w: Waiter = { resolve, reject, signal, aborted: false, maxMs };
      const onAbort = (): void => {
        w.aborted = true;
        const i = this.waiters.indexOf(w);
        if (i >= 0) this.waiters.splice(i, 1);
        reject(signal!.reason);
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      w.resolve = (r) => {
        signal?.removeEventListener('abort', onAbort);
        resolve(r);
      };
      this.waiters.push(w);
      this.kick();
    });
  }

  /** Resolves once every answer so far is written and no reservation waits (a closing client; tests). */
  async flush(): Promise<void> {
    this.kick();
    while (this.pumpRun) await this.pumpRun;
  }

  private finish(sentAt: number): void {
    this.finished.push([sentAt, this.now() + this.opts.windowMs + this.opts.marginMs]);
    // Written by the next pass, which is usually the next reservation of the same cycle a
    // few ms later: one locked pass per request instead of two, and a reservation never
    // waits behind an answer's pass. Until written the answer counts as in flight (the
    // safe side), and a timer writes it before long when no reservation comes.
    if (this.answerTimer !== null) return;
    this.answerTimer = setTimeout(() => {
      this.answerTimer = null;
      this.kick();
    }, LEDGER_ANSWER_WRITE_MS);
    this.answerTimer.unref();
  }

  private kick(): void {
    if (this.locked.broken) return;
    if (this.pumpRun) {
      this.again = true;
      return;
    }
    // pump() clears pumpRun in its finally, which runs after this assignment (it awaits first).
    this.pumpRun = this.pump();
  }

  /**
   * Grants what fits, writes pending answers, and sleeps while the window is full; each
   * pass is one locked read-modify-write however many requests it serves.
   */
  private async pump(): Promise<void> {
    try {
      await this.pumpLoop();
    } finally {
      this.pumpRun = null;
      // Work that arrived while the loop was ending (its kick() saw the pump still running).
      if (!this.locked.broken && (this.waiters.length > 0 || this.finished.length > 0)) this.kick();
    }
  }

  private async pumpLoop(): Promise<void> {
    for (;;) {
      this.again = false;
      // Nobody waits (granted, or given up): the next wait is a new one, told anew.
      if (this.waiters.length === 0) this.noteWait(false, undefined, 0);
      if (this.waiters.length === 0 && this.finished.length === 0) return;
      // Taken out of the queue inside the locked pass, so an abort meanwhile cannot shift the queue under us.
      let taken: Waiter[] = [];
      const got = await this.update((entries, now) => {
        let granted = 0;
        let waitMs: number | undefined;
        let blocked: LedgerWait | undefined;
        while (granted < this.waiters.length) {
          const decision = ledgerDecision(entries.map((e) => ({ keyId: e.keyId, expiry: this.expiryOf(e, now) })), this.keyId, this.opts, now);
          if (!decision.take) {
            waitMs = decision.waitMs ?? LEDGER_POLL_MS;
            if (this.opts.onWait && !this.waitTold) blocked = this.waitFor(entries, now);
            break;
          }
          const maxMs = this.waiters[granted]!.maxMs;
          entries.push({
            keyId: this.keyId, pid: this.pid, host: this.host, sentAt: this.uniqueSentAt(entries, now), windowMs: this.opts.windowMs, expiresAt: null,
            ...(maxMs !== undefined && Number.isFinite(maxMs) ? { maxMs: Math.ceil(maxMs) } : {}),
          });
          granted++;
        }
        taken = this.waiters.splice(0, granted);
        return { entries, result: { sentAts: entries.slice(entries.length - granted).map((e) => e.sentAt), waitMs, blocked, now } };
      });
      if (got === undefined) {
        // The ledger broke: everyone goes on without it.
        for (const w of [...taken, ...this.waiters.splice(0)]) w.resolve(NO_RESERVATION);
        return;
      }
      taken.forEach((w, i) => {
        const sentAt = got.sentAts[i]!;
        // Aborted after it was granted: nothing will be sent, so its slot is answered at once.
        if (w.aborted) this.finish(sentAt);
        else w.resolve({ done: () => this.finish(sentAt) });
      });
      this.noteWait(got.waitMs !== undefined && this.waiters.length > 0, got.blocked, got.now);
      if (this.waiters.length > 0 && got.waitMs !== undefined && !this.again) {
        const t0 = this.now();
        await this.sleep(Math.min(got.waitMs, LEDGER_MAX_SLEEP_MS)).catch(() => undefined);
        this.waited += this.now() - t0;
      }
    }
  }

  /** Starts, tells (once, past LEDGER_WAIT_TELL_MS) or ends the current wait for room. */
  private noteWait(waiting: boolean, blocked: LedgerWait | undefined, now: number): void {
    if (!waiting) {
      this.waitingSince = undefined;
      this.waitTold = false;
      return;
    }
    this.waitingSince ??= now;
    if (this.waitTold || blocked === undefined || now - this.waitingSince < LEDGER_WAIT_TELL_MS) return;
    this.waitTold = true;
    this.opts.onWait?.(blocked);
  }

  /** What a reservation waits for: the full set's entries by owner, and when room opens at the latest. */
  private waitFor(entries: LedgerEntry[], now: number): LedgerWait {
    const mine = entries.filter((e) => e.keyId === this.keyId);
    const keyFull = mine.length >= this.opts.keyLimit;
    const set = keyFull ? mine : entries;
    const byOwner = new Map<string, LedgerWait['owners'][number]>();
    for (const e of set) {
      const k = `${e.pid}@${e.host}`;
      let o = byOwner.get(k);
      if (!o) byOwner.set(k, (o = { pid: e.pid, host: e.host === this.host ? null : e.host, answered: 0, inFlight: 0 }));
      if (e.expiresAt === null) o.inFlight++;
      else o.answered++;
    }
    const latest = ledgerDecision(entries.map((e) => ({ keyId: e.keyId, expiry: latestExpiry(e, this.ownerAlive(e), this.opts.marginMs) })), this.keyId, this.opts, now);
    return {
      file: this.opts.file,
      held: set.length,
      limit: keyFull ? this.opts.keyLimit : this.opts.userLimit,
      owners: [...byOwner.values()].sort((a, b) => b.inFlight + b.answered - (a.inFlight + a.answered)),
      untilMs: now + (latest.take ? 0 : (latest.waitMs ?? 0)),
    };
  }

  /** When an entry stops counting; an owner is probed once per pass. */
  private expiryOf(e: LedgerEntry, now: number): number {
    return entryExpiry(e, this.ownerAlive(e), this.opts.marginMs, now);
  }

  private ownerAlive(e: LedgerEntry): boolean {
    if (e.pid === this.pid && e.host === this.host) return true;
    // Another host's process cannot be probed: its in-flight entry is held for a window past its send time.
    if (e.host !== this.host) return false;
    if (e.expiresAt !== null) return true; // answered: its expiry does not depend on its owner
    let alive = this.aliveCache.get(e.pid);
    if (alive === undefined) this.aliveCache.set(e.pid, (alive = this.alive(e.pid)));
    return alive;
  }

  /** Our entries are found again by sentAt, so each gets a distinct one. */
  private uniqueSentAt(entries: LedgerEntry[], now: number): number {
    let t = now;
    const ours = new Set(entries.filter((e) => e.pid === this.pid && e.host === this.host).map((e) => e.sentAt));
    while (ours.has(t)) t += 0.001;
    return t;
  }

  /**
   * One locked read-modify-write. Pending answers are applied and expired entries
   * dropped on every pass. Returns `mutate`'s result, or undefined once the ledger broke.
   */
  private update<R>(mutate: (entries: LedgerEntry[], now: number) => { entries: LedgerEntry[]; result: R }): Promise<R | undefined> {
    return this.locked.update(async () => {
      const now = this.now();
      this.aliveCache.clear();
      const entries = this.applyFinished(await this.load());
      const live = entries.filter((e) => this.expiryOf(e, now) > now);
      const { entries: next, result } = mutate(live, now);
      await this.save(next);
      return result;
    });
  }

  private applyFinished(entries: LedgerEntry[]): LedgerEntry[] {
    if (this.finished.length === 0) return entries;
    const byStart = new Map(this.finished.splice(0));
    for (const e of entries) {
      if (e.pid !== this.pid || e.host !== this.host) continue;
      const exp = byStart.get(e.sentAt);
      if (exp !== undefined) e.expiresAt = exp;
    }
    return entries;
  }

  private async load(): Promise<LedgerEntry[]> {
    let text: string;
    try {
      text = await readFile(this.opts.file, 'utf8');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return [];
      throw err;
    }
    try {
      const data = JSON.parse(text) as { entries?: unknown };
      return Array.isArray(data.entries) ? data.entries.filter(isEntry) : [];
    } catch {
      return []; // torn by a crash mid-write (cannot happen with rename, but never fatal)
    }
  }

  private async save(entries: LedgerEntry[]): Promise<void> {
    const tmp = `${this.opts.file}.${this.pid}.tmp`;
    await writeFile(tmp, JSON.stringify({ version: 1, entries }), { mode: 0o600 });
    await rename(tmp, this.opts.file);
  }
}

function isEntry(v: unknown): v is LedgerEntry {
  const e = v as LedgerEntry;
  return typeof e === 'object' && e !== null && typeof e.keyId === 'string' && typeof e.pid === 'number'
    && typeof e.host === 'string' && typeof e.sentAt === 'number' && typeof e.windowMs === 'number'
    && (e.expiresAt === null || typeof e.expiresAt === 'number')
    && (e.maxMs === undefined || (typeof e.maxMs === 'number' && e.maxMs >= 0));
}
