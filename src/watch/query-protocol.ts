/**
 * What `status` and `diff` ask a running `hostsync watch` instead of walking the tree, and
 * where (git's fsmonitor protocol is the anchor): one request, one answer, one line of
 * JSON each, over a Unix socket in the deployment's state folder (a named pipe on
 * Windows). Shared by the daemon (query-server.ts) and the commands (query-client.ts).
 *
 * The answer is trusted only when it is about the same view of the same base the asking
 * process holds: `view` (root, ignore rules, file system kind) and `state` (state.bin's
 * and the journal's identities, StateStore.identity) must equal the asker's, before and
 * after it loads the base. Otherwise the asker scans.
 */
import { createHash } from 'node:crypto';
import path from 'node:path';

export const WATCH_QUERY_VERSION = 1;

/** The request: "what differs from the base, now". */
export interface WatchQuery {
  v: typeof WATCH_QUERY_VERSION;
  op: 'changes';
}

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
