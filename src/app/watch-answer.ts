/**
 * `status` asks the running `hostsync watch` of this folder and deployment what changed
 * instead of walking the tree (watch/query-*.ts, sync/watch-cycle/watched-local.ts), and says which
 * it did and why. Any doubt means a scan: no watch, one on another host, no answer in
 * time, an answer about another view or another base, or `--scan`.
 */
import { hostname } from 'node:os';
import type { StatCache } from '../local/statcache.js';
import type { HostingClient } from '../remote/client.js';
import type { WatchStatus } from '../state/watch-status.js';
import type { RemoteShelf, Session } from '../sync/session.js';
import { localFromWatch, type WatchedLocal } from '../sync/watch-cycle/watched-local.js';
import { askWatch } from '../watch/query-client.js';
import { viewKey, type WatchAnswer } from '../watch/query-protocol.js';

/** How the local side of a command was found; `--json` prints it. */
export interface LocalSource {
  /** 'watch': the running watch named what changed and only that was read; 'scan': every file was looked at. */
  source: 'watch' | 'scan';
  /** With 'watch': how many paths were read again. */
  read: number | null;
  /** With 'scan' while a watch runs here: why its answer was not used. */
  why: string | null;
  /** 'watch': the running watch worked out the whole result and this command printed it; 'command': this command did. */
  by: 'watch' | 'command';
}

export const SCANNED: LocalSource = { source: 'scan', read: null, why: null, by: 'command' };

/** Thrown by withLocalSide with `watchOnly` when the watch cannot say what changed: the asker then works it out itself. */
export class NoWatchAnswer extends Error {}

/** The running watch working out a status itself: its own answer of what changed, asked in-process, its client's warm connections and its stat cache. */
export interface WatchOnly {
  watchOnly: () => Promise<WatchAnswer>;
  connections: HostingClient;
  cache: StatCache;
  /** The watch's shelf for a status's whole-remote read (sync/session.ts RemoteShelf). */
  remote?: RemoteShelf;
}

async function localFromRunningWatch(session: Session, watch: WatchStatus | null, own?: WatchOnly): Promise<WatchedLocal | { reason: string | null }> {
  if (own === undefined && (watch === null || !watch.running)) return { reason: null };
  if (own === undefined && watch?.host !== hostname()) return { reason: 'the watch runs on another host' };
  if (session.matcher.key === undefined) return { reason: 'the ignore rules have no key to compare' };
  const answer = await (own ? own.watchOnly() : askWatch(session.stateDir));
  if (!answer.ok) return { reason: answer.reason };
  const { config, matcher } = session;
  return localFromWatch(session, answer, viewKey({ root: config.root, matcherKey: matcher.key, fs: config.fs }));
}

/**
 * A comparison (`run`) with its local side from the running watch when it can answer,
 * else from a scan (`run()` with nothing), and which it was. A base that changed on disk
 * while the answer was used (a watch cycle saved meanwhile) makes it a scan after all.
 * With `watchOnly` (the watch working out a status for a command) there is no scan:
 * NoWatchAnswer says why, and the command scans in its own process.
 */
export async function withLocalSide<T>(
  session: Session,
  watch: WatchStatus | null,
  scan: boolean | WatchOnly,
  run: (known?: WatchedLocal) => Promise<T>,
): Promise<{ report: T; local: LocalSource }> {
  const own = typeof scan === 'object' ? scan : undefined;
  const watched = scan === true ? { reason: watch?.running ? '--scan' : null } : await localFromRunningWatch(session, watch, own);
  let why = 'reason' in watched ? watched.reason : null;
  if ('local' in watched) {
    const report = await run(watched);
    if ((await session.store.identity()) === watched.state) return { report, local: { source: 'watch', read: watched.read, why: null, by: 'command' } };
    why = 'the base changed during the comparison';
  }
  if (own) throw new NoWatchAnswer(why ?? 'no watch is running');
  return { report: await run(), local: { ...SCANNED, why } };
}
