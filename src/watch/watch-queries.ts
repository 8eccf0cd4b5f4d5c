/**
 * The watch answering other commands over its query socket (query-protocol.ts): `status`
 * and `diff` ask what changed instead of walking the tree, and a whole `status` is worked
 * out here on the watch's warm connections. Answers only what the daemon can vouch for:
 * after a probe file's round trip through the watcher, never during a cycle, a rescan owed,
 * or a watcher repairing itself.
 */
import { rm, writeFile } from 'node:fs/promises';
import { setTimeout as delay } from 'node:timers/promises';
import path from 'node:path';
import { watchCookieName } from '../local/temp-names.js';
import type { Watcher } from '../local/watcher.js';
import type { ScopedSync } from '../sync/watch-cycle/scoped-sync.js';
import type { RemoteShelf, Session } from '../sync/session.js';
import type { RemoteCache } from '../state/store.js';
import { queryEndpoint, viewKey, WATCH_QUERY_VERSION, type WatchAnswer, type WatchStatusAnswer } from './query-protocol.js';
import { startQueryServer, type QueryServer } from './query-server.js';
import type { LocalTree } from './local-tree.js';
import type { Batch } from './schedule.js';
import type { CycleScheduler } from './scheduler.js';
import type { WatchOptions } from './daemon-types.js';
import { WATCH_QUERY_COOKIE_TIMEOUT_MS } from './tunables.js';

/** What the answers read of the daemon, at the moment they are asked. */
export interface DaemonState {
  readonly session: Session;
  scheduler(): CycleScheduler;
  readonly tree: LocalTree;
  readonly scoped: ScopedSync;
  /** The file watcher running, and which kind; null while it starts, is replaced or stopped. */
  watcher(): { watcher: Watcher; backend: 'native' | 'chokidar' } | null;
  /** Stopping, or the project vanished: nothing is vouched for. */
  closing(): boolean;
  /** A push has completed since the start. */
  synced(): boolean;
  /** The batch of the cycle running now, or null. */
  runningBatch(): Batch | null;
}

export class WatchQueries {
  /** The last whole-remote read a status made (RemoteShelf): the next status asks with its digest. */
  private statusRemote: RemoteCache | null = null;
  /** Probe files written for a query, each resolved when the watcher reports it. */
  private readonly cookies = new Map<string, () => void>();
  /** Null when the platform gives no endpoint, or before listen(). */
  private server: QueryServer | null = null;

  constructor(
    private readonly d: DaemonState,
    private readonly answer: WatchOptions['answerStatus'],
  ) {}

  /** The watcher reported a probe file (by its root-relative name). */
  onCookie(rel: string): void {
    this.cookies.get(rel)?.();
  }

  /** A cycle changed the deployment: the next status reads the whole remote again. */
  forgetRemote(): void {
    this.statusRemote = null;
  }

  async close(): Promise<void> {
    await this.server?.close().catch(() => undefined);
  }

  /** Serves `status` and `diff` (query-protocol.ts). A socket that cannot be made only means they scan. */
  async listen(): Promise<void> {
    const endpoint = queryEndpoint(this.d.session.stateDir);
    if (endpoint === null) return;
    const status = this.answer ? (config: string) => this.answerStatus(config) : undefined;
    this.server = await startQueryServer(endpoint, { changes: () => this.answerQuery(), ...(status ? { status } : {}) }).catch(() => null);
  }

  /**
   * A whole `status` for a command, its preparation (the configuration, the session, the
   * ignore rules, the watch's record) done while the probe file makes its round trip
   * through the watcher (about 50 ms: @parcel/watcher batches its events), not after it.
   * Invariant: what changed is taken only once the probe is reported (every event before
   * the question is then in), and before any request: a status costs its two requests,
   * never a second set for an answer worked out too early.
   */
  private async answerStatus(config: string): Promise<WatchStatusAnswer> {
    const answer = this.answer!;
    const { client: connections, cache } = this.d.session;
    const remote: RemoteShelf = { get: () => this.statusRemote, set: (c) => void (this.statusRemote = c) };
    // Only the native watcher answers (answerQuery says why): no probe file for the others.
    const running = this.d.watcher();
    if (running === null || running.backend !== 'native') return answer(config, { changed: () => this.answerQuery(), connections, cache, remote });
    const probed = this.probeWatcher();
    const changed = async (): Promise<WatchAnswer> =>
      (await probed) ? this.answerQuery('reported') : { v: WATCH_QUERY_VERSION, ok: false, reason: `its watcher did not report a probe file within ${WATCH_QUERY_COOKIE_TIMEOUT_MS} ms` };
    try {
      return await answer(config, { changed, connections, cache, remote });
    } finally {
      // A status that ended before asking what changed (another configuration) leaves no probe behind.
      await probed;
    }
  }

  /**
   * What differs from the base on disk, for a command that would otherwise walk the tree:
   * after the watcher reported a probe file written now (so every earlier event is in),
   * the paths where the snapshot differs from the base, the events not yet synced, the
   * base entries not yet on disk and the writes not yet verified. No answer while anything
   * could make that incomplete: before the first sync, during a cycle, with a full rescan
   * owed (a watcher error, an event storm, a dropped event) or a watcher repairing itself.
   * `probe`: 'write' (a command asked) writes the probe file and waits for it; 'reported':
   * a status the watch works out itself started the probe and saw it reported.
   */
  private async answerQuery(probe: 'write' | 'reported' = 'write'): Promise<WatchAnswer> {
    const no = (reason: string): WatchAnswer => ({ v: WATCH_QUERY_VERSION, ok: false, reason });
    const running = this.d.watcher();
    if (this.d.closing() || running === null) return no('the watch is starting or stopping');
    // chokidar reads each folder's change asynchronously, so its events are not in order
    // across folders and no probe file can vouch for the ones before it. It runs below
    // WATCH_NATIVE_MIN_FILES files, where a scan costs a tenth of a second anyway.
    if (running.backend !== 'native') return no('its chokidar watcher cannot vouch for the order of its events');
    // A status typed right after a save meets that save's cycle: wait for it (bounded) rather than scan.
    if (this.d.runningBatch() !== null) await Promise.race([this.d.scheduler().settled(), delay(WATCH_QUERY_COOKIE_TIMEOUT_MS, undefined, { ref: false })]);
    if (probe === 'write' && !(await this.probeWatcher())) return no(`its watcher did not report a probe file within ${WATCH_QUERY_COOKIE_TIMEOUT_MS} ms`);
    const state = await this.d.session.store.identity();
    // From here on, nothing awaits: no cycle can change the tree or the base meanwhile.
    const { tree, scoped } = this.d;
    const sched = this.d.scheduler().peek();
    if (!this.d.synced() || tree.snapshot === null || !scoped.ready) return no('its first sync has not finished');
    if (this.d.runningBatch() !== null) return no('a sync cycle is running');
    if (sched.pending?.full) return no('a full rescan is owed (a watcher error or an event storm)');
    const unsettled = this.d.watcher()!.watcher.unsettled();
    if (unsettled === null) return no('its watcher is repairing its watches');
    const skipped = [...tree.skipped];
    const changed = new Set([...scoped.localChanges(tree.snapshot, skipped), ...scoped.notOnDisk(), ...(sched.pending?.paths ?? []), ...unsettled]);
    const { config, matcher } = this.d.session;
    return { v: WATCH_QUERY_VERSION, ok: true, changed: [...changed], skipped, state, view: viewKey({ root: config.root, matcherKey: matcher.key, fs: config.fs }) };
  }

  /** Writes a probe file into the root and waits for the watcher to report it (git's fsmonitor cookie). */
  private async probeWatcher(): Promise<boolean> {
    const name = watchCookieName();
    const file = path.join(this.d.session.config.root, name);
    let timer: NodeJS.Timeout | undefined;
    const seen = new Promise<boolean>((resolve) => {
      this.cookies.set(name, () => resolve(true));
      timer = setTimeout(() => resolve(false), WATCH_QUERY_COOKIE_TIMEOUT_MS);
    });
    try {
      await writeFile(file, '', { flag: 'wx' });
      return await seen;
    } catch {
      return false;
    } finally {
      clearTimeout(timer);
      this.cookies.delete(name);
      await rm(file, { force: true }).catch(() => undefined);
    }
  }
}
