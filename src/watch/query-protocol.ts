/**
 * What `status` and `diff` ask a running `hostsync watch` instead of walking the tree, and
 * where (git's fsmonitor protocol is the anchor): one request, one answer, one line of
 * JSON each, over a Unix socket in the deployment's state folder (a named pipe on
 * Windows). Shared by the daemon (query-server.ts) and the commands (query-client.ts).
 * Two questions: `changes` (which paths may differ from the base: the asker works out the
 * rest) and `status` (the whole status, worked out by the watch, which has everything
 * loaded: the asker only prints it).
 *
 * The answer is trusted only when it is about the same view of the same base the asking
 * process holds: `view` (root, ignore rules, file system kind) and `state` (state.bin's
 * and the journal's identities, StateStore.identity) must equal the asker's, before and
 * after it loads the base. Otherwise the asker scans.
 */
import { createHash } from 'node:crypto';
import path from 'node:path';

export const WATCH_QUERY_VERSION = 1;

/**
 * The requests: "what differs from the base, now", and "the status, now" from a command
 * whose resolved configuration has the digest `config` (config/config-digest.ts): the
 * watch answers only when its own configuration, resolved again as it answers, has the
 * same one, so the answer is the one the asker would have worked out itself.
 */
export type WatchQuery = { v: typeof WATCH_QUERY_VERSION; op: 'changes' } | { v: typeof WATCH_QUERY_VERSION; op: 'status'; config: string };

/** The answer to `status`: the command's result as its --json would print it, or why not. */
export type WatchStatusAnswer = { v: typeof WATCH_QUERY_VERSION; ok: true; result: unknown } | { v: typeof WATCH_QUERY_VERSION; ok: false; reason: string };

export type WatchAnswer =
  | {
      v: typeof WATCH_QUERY_VERSION;
      ok: true;
      /**
       * Every path (file or folder, relative POSIX) where the tree may differ from the base
       * on disk: the daemon's known differences, the events not yet synced, the writes not
       * yet verified. Anything else is as the base holds it.
       */
      changed: string[];
      /** Paths the daemon's scan could not read (unknown, not absent). */
      skipped: string[];
      /** StateStore.identity() when the daemon answered. */
      state: string;
      view: string;
    }
  | { v: typeof WATCH_QUERY_VERSION; ok: false; reason: string };

/** Longest Unix socket path that every platform accepts (sun_path is 104 bytes on macOS). */
const MAX_SOCKET_PATH = 100;

/**
 * Where the daemon of `stateDir` listens; null when a Unix socket path there would be too
 * long (the commands then always scan). Not in a shared temp folder: another user could
 * plant an answer there.
 */
export function queryEndpoint(stateDir: string, platform: NodeJS.Platform = process.platform): string | null {
  if (platform === 'win32') return `\\\\.\\pipe\\hostsync-${createHash('sha256').update(path.resolve(stateDir)).digest('hex').slice(0, 32)}`;
  const socket = path.join(stateDir, 'watch.sock');
  return Buffer.byteLength(socket) <= MAX_SOCKET_PATH ? socket : null;
}

/** What decides which files a scan sees and how: the same key on both sides, or no answer is used. */
export function viewKey(view: { root: string; matcherKey: string | undefined; fs: string | undefined }): string {
  return createHash('sha256').update(JSON.stringify([path.resolve(view.root), view.matcherKey ?? null, view.fs ?? null])).digest('hex').slice(0, 32);
}
