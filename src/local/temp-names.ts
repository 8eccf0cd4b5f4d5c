/**
 * The names of hostsync's own temporary files in the project tree, in one place: a file
 * placed by pull or resolve is written beside its target and renamed over it, and a
 * download streams into a part file first. A process killed in between (kill -9, power
 * cut) leaves them behind, so:
 *   - the ignore matcher never syncs them (OWN_TEMP_PATTERNS, enforced: no `!` brings
 *     them back), here or on the deployment;
 *   - the next pull or push removes the ones it meets (sync/temp-cleanup.ts), recognised
 *     by the exact shape these functions make (isOwnTemp), never a look-alike.
 */
import { randomBytes } from 'node:crypto';
import path from 'node:path';

const suffix = (): string => randomBytes(4).toString('hex');

/** A temp path beside `abs`: same directory, so the final rename never crosses file systems. */
export function tempBeside(abs: string): string {
  return path.join(path.dirname(abs), `.${path.basename(abs)}.hostsync-${suffix()}.tmp`);
}

/** Where a download into `target` streams before it is complete. */
export function partOf(target: string): string {
  return `${target}.hostsync-${suffix()}.part`;
}

/** Exactly the names tempBeside and partOf make (a part of a temp file included). */
const OWN_TEMP = /^(?:\..+\.hostsync-[0-9a-f]{8}\.tmp|.+\.hostsync-[0-9a-f]{8}\.part)$/;

export function isOwnTemp(name: string): boolean {
  return OWN_TEMP.test(name);
}

/** The same names in gitignore syntax, for the matcher and files.index (a little wider: any 8 characters, any case). */
export const OWN_TEMP_PATTERNS: readonly string[] = Object.freeze(['.*.hostsync-????????.tmp', '*.hostsync-????????.part']);

/**
 * True for every name OWN_TEMP_PATTERNS can match (and a few more): lets the matcher's
 * name pre-check (ignore-names.ts) stay on, since it does not read `?`.
 */
const MAY_BE_OWN_TEMP = /\.hostsync-.{8}\.(?:tmp|part)$/i;

export function mayBeOwnTemp(name: string): boolean {
  // Shorter than ".hostsync-" + 8 + ".part", or no "-" and "." where "-XXXXXXXX.tmp" or
  // "-XXXXXXXX.part" would have them: not ours, and no regular expression run (the usual
  // case, once per file in a scan).
  const n = name.length;
  const at = (i: number): number => name.charCodeAt(n - i);
  return n >= 23 && ((at(4) === 0x2e && at(13) === 0x2d) || (at(5) === 0x2e && at(14) === 0x2d)) && MAY_BE_OWN_TEMP.test(name);
}

/**
 * The probe file a running watch writes into the root when `status` asks it what changed
 * (watch/query-server.ts): once the watcher reports it, every event before it has been
 * handed over (git's fsmonitor "cookie"). Shaped as a temp name, so no scan, push or index
 * ever takes it for a project file, and a leftover is cleaned like one.
 */
export function watchCookieName(): string {
  return `.watch-cookie.hostsync-${suffix()}.tmp`;
}

const WATCH_COOKIE = /^\.watch-cookie\.hostsync-[0-9a-f]{8}\.tmp$/;

/** A root-level path (POSIX, relative) that watchCookieName made. */
export function isWatchCookie(rel: string): boolean {
  return WATCH_COOKIE.test(rel);
}
