import { readFile, rm } from 'node:fs/promises';
import { hostname } from 'node:os';
import path from 'node:path';
import { writeFileAtomic } from '../local/atomic-write.js';
import { processAlive } from './lock.js';

/**
 * What a running `hostsync watch` tells `hostsync status`, without a request:
 * `.hostsync/<deployment>/watch.json`, rewritten atomically (temp file, rename) as the
 * daemon's picture changes, removed when it stops. A daemon killed with SIGKILL leaves
 * it behind; its pid is then dead, and the reader calls it stale.
 */
export const WATCH_STATUS_FILE = 'watch.json';

export interface WatchCycleSummary {
  /** ISO time the cycle ended. */
  at: string;
  trigger: 'start' | 'change' | 'rescan' | 'poll' | 'verify';
  /**
   * synced: it pushed and verified (or found nothing to do); conflicts: it left some
   * alone; failed: some files did not land; waiting: the service was unreachable;
   * error / refused / fatal: the cycle stopped with `message`.
   */
  outcome: 'synced' | 'conflicts' | 'failed' | 'waiting' | 'error' | 'refused' | 'fatal';
  /** Files written, deleted, moved or chmod-ed. */
  changed: number;
  requests: number;
  rateLimited: number;
  /** Save to live (null for start-up and polls), and the cycle alone. */
  ms: number | null;
  cycleMs: number | null;
  healthy: boolean | null;
  /** The deployment's state after the apply, when there was one. */
  state: string | null;
  message: string | null;
}

export interface WatchStatusRecord {
  version: 1;
  pid: number;
  host: string;
  startedAt: string;
  updatedAt: string;
  backend: 'native' | 'chokidar' | null;
  apply: boolean;
  /** Local changes not yet on the deployment. */
  pending: {
    /** Touched paths waiting for a cycle, plus those of the cycle running now. */
    paths: number;
    /** The first few of them, sorted. */
    sample: string[];
    /** Writes sent but not yet verified by a read (the next cycle's, or the idle check). */
    unverified: number;
    /** A full rescan is due (start-up, a watcher error, an event storm). */
    rescan: boolean;
    /** A cycle is running now. */
    cycling: boolean;
    /** After a failure, the next cycle waits until then (ISO); null when not backing off. */
    retryAt: string | null;
  };
  /** The daemon's picture of the key's budget when it wrote this (its window, corrected by X-RateLimit-Remaining). */
  budget: { limit: number; windowMs: number; remaining: number };
  cycles: number;
  /** The last cycle that did or found something (a quiet drift poll or idle check does not replace it). */
  lastCycle: WatchCycleSummary | null;
}

/** The record as `status` reads it: `running` is false when the writer is gone (then `stale`). */
export interface WatchStatus extends WatchStatusRecord {
  running: boolean;
  stale: boolean;
}

export function watchStatusFile(stateDir: string): string {
  return path.join(stateDir, WATCH_STATUS_FILE);
}

export async function writeWatchStatus(stateDir: string, record: WatchStatusRecord): Promise<void> {
  // Not durable: a live view rewritten on every event, removed on stop; an fsync here would
  // compete with the cycle's own I/O for the thread pool and the disk.
  await writeFileAtomic(watchStatusFile(stateDir), `${JSON.stringify(record)}\n`, { durable: false });
}

export async function removeWatchStatus(stateDir: string): Promise<void> {
  await rm(watchStatusFile(stateDir), { force: true });
}

/**
 * The watch daemon's record, or null when none runs (no file, or one that does not
 * parse). A record whose process is gone (same host, pid dead) comes back with
 * running false and stale true; one written on another host cannot be checked and is
 * taken as running.
 */
export async function readWatchStatus(
  stateDir: string, alive: (pid: number) => boolean = processAlive, host: string = hostname(),
): Promise<WatchStatus | null> {
  let record: WatchStatusRecord;
  try {
    record = JSON.parse(await readFile(watchStatusFile(stateDir), 'utf8')) as WatchStatusRecord;
  } catch {
    return null;
  }
  if (typeof record !== 'object' || record === null || record.version !== 1 || typeof record.pid !== 'number') return null;
  const running = record.host !== host || alive(record.pid);
  return { ...record, running, stale: !running };
}
