/**
 * "Is the local file still what the scan saw?", asked right before a pull replaces or
 * removes it: a save made while the pull was downloading must win over the download
 * (issue 28, item 3). The stat first; the content is hashed again only when the stat
 * cache cannot vouch for it (the stat changed since the scan, or the entry is racy).
 */
import { fileStatOf, isExecutableMode } from './filestat.js';
import { xxh64File } from './hash.js';
import { lstatTarget } from './confine.js';
import type { StatCache } from './statcache.js';
import type { Entry } from '../model/types.js';

/** What a pull expects at a path it is about to replace: the scan's entry (undefined: nothing there). */
export interface Expectation {
  rel: string;
  entry: Entry | undefined;
  cache?: StatCache | undefined;
}

/** A local file changed (or appeared, or went) since the scan: the pull leaves it alone. */
export class EditedMeanwhileError extends Error {
  override name = 'EditedMeanwhileError';
  constructor(readonly rel: string) {
    super(`${rel} changed here while the pull ran: your file was kept`);
  }
}

/** True when `abs` still holds what `expected.entry` says (both absent counts). */
export async function stillAsScanned(abs: string, expected: Expectation): Promise<boolean> {
  const st = lstatTarget(abs);
  const want = expected.entry;
  if (st === null || want === undefined) return st === null && want === undefined;
  if (!st.isFile() || st.size !== want.size || isExecutableMode(st.mode) !== want.executable) return false;
  if (want.hash === null) return false;
  const hit = expected.cache?.lookup(expected.rel, fileStatOf(st));
  if (hit !== undefined) return hit.hash === want.hash;
  try {
    const now = await xxh64File(abs);
    return now.hash === want.hash && now.size === want.size;
  } catch {
    return false;
  }
}

/** Throws EditedMeanwhileError unless `abs` is still as scanned. */
export async function assertAsScanned(abs: string, expected: Expectation | undefined): Promise<void> {
  if (expected !== undefined && !(await stillAsScanned(abs, expected))) throw new EditedMeanwhileError(expected.rel);
}
