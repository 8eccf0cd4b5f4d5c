/**
 * Follows a deployment's console: `logs --follow` and `watch --logs`. Each read is one
 * deployments.logs long poll (waitSeconds), at most one per LOGS_FOLLOW_INTERVAL_MS, and
 * only the lines not shown before are passed on, so every line appears once. The
 * console is one append-only stream across restarts (the node writes its start marker
 * into it), so following it needs nothing special when the app restarts; the state is
 * reported when it changes.
 *
 * Invariants: never two reads in flight; a transient failure (network, 5xx, 429) is
 * waited out with backoff, reported once per outage; a refused key ends the follow.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { DeploymentState } from '../api/types.js';
import type { HostingClient } from '../remote/client.js';
import { newLines } from '../sync/console-lines.js';
import { classifyFailure, type Failure } from './failure.js';
import { LOGS_FOLLOW_INTERVAL_MS, LOGS_FOLLOW_RETRY_MAX_MS, LOGS_FOLLOW_RETRY_MIN_MS, LOGS_FOLLOW_SIZE } from './tunables.js';

export type FollowEvent =
  | { type: 'line'; line: string }
  /** The deployment's state at the first read and whenever it changes. */
  | { type: 'state'; state: DeploymentState; hint: string }
  /** More lines arrived between two reads than one read holds: some were not shown. */
  | { type: 'gap' }
  /** `message`: what failed, without a closing full stop. */
  | { type: 'waiting'; message: string; retryInMs: number }
  | { type: 'recovered' };

export interface FollowOptions {
  /** Lines of the current tail to show before following (0: new lines only). */
  initialLines: number;
  /** Only lines matching this are passed on. */
  grep?: RegExp | undefined;
  signal: AbortSignal;
  /** Called when the next read should come now rather than at the interval (watch mode, after an apply). */
  onPokeReady?: (poke: () => void) => void;
  apiKey?: string;
  /** Time between reads (and each long poll's wait); default LOGS_FOLLOW_INTERVAL_MS. Watch's app monitor reads less often. */
  intervalMs?: number;
}

/** Resolves when `signal` aborts (exit 0), or with the failure that ended the follow (a refused key). */
export async function followLogs(client: HostingClient, emit: (e: FollowEvent) => void, opts: FollowOptions): Promise<Failure | null> {
  let seen: string[] | null = null;
  let state: DeploymentState | null = null;
  let retryMs = LOGS_FOLLOW_RETRY_MIN_MS;
  let outage = false;
  let poked: (() => void) | null = null;
  opts.onPokeReady?.(() => poked?.());
  const pass = (line: string): void => {
    if (opts.grep === undefined || opts.grep.test(line)) emit({ type: 'line', line });
  };

  while (!opts.signal.aborted) {
    const began = performance.now();
    const interval = opts.intervalMs ?? LOGS_FOLLOW_INTERVAL_MS;
    let pause = interval;
    try {
      // The first read answers at once (the tail as it is); later ones wait for output to pause or the app to die.
      const r = await client.deployments.logs(LOGS_FOLLOW_SIZE, seen === null ? 0 : interval / 1000);
      if (opts.signal.aborted) break;
      if (outage) {
        outage = false;
        emit({ type: 'recovered' });
      }
      retryMs = LOGS_FOLLOW_RETRY_MIN_MS;
      if (seen === null) {
        for (const line of opts.initialLines > 0 ? r.lines.slice(-opts.initialLines) : []) pass(line);
      } else {
        const fresh = newLines(seen, r.lines);
        if (seen.length > 0 && fresh.length === r.lines.length && r.lines.length >= LOGS_FOLLOW_SIZE) emit({ type: 'gap' });
        for (const line of fresh) pass(line);
      }
      seen = r.lines;
      if (r.state !== state) {
        state = r.state;
        emit({ type: 'state', state: r.state, hint: r.hint });
      }
    } catch (err) {
      if (opts.signal.aborted) break;
      const failure = classifyFailure(err, opts.apiKey);
      if (failure.kind === 'fatal') return failure;
      // A clause, not a sentence: the reader goes on "; retrying in 2 s", which a full stop would break.
      if (!outage) emit({ type: 'waiting', message: failure.message.replace(/\.+$/, ''), retryInMs: retryMs });
      outage = true;
      pause = retryMs;
      retryMs = Math.min(retryMs * 2, LOGS_FOLLOW_RETRY_MAX_MS);
    }
    const rest = pause - (performance.now() - began);
    if (rest > 0) await pauseFor(rest, opts.signal, (wake) => (poked = wake));
    poked = null;
  }
  return null;
}

/** Sleeps `ms`, or less when aborted or poked. */
async function pauseFor(ms: number, signal: AbortSignal, onWake: (wake: () => void) => void): Promise<void> {
  const early = new AbortController();
  onWake(() => early.abort());
  const both = AbortSignal.any([signal, early.signal]);
  await sleep(ms, undefined, { signal: both }).catch(() => undefined);
}
