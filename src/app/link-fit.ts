/**
 * Whether a deployment `link` would take without being told (the only one the key sees)
 * holds this folder's project or another one: the share of its files that the folder has
 * too (LINK_FIT_MIN_SHARE), and whether its startup runs a file the folder lacks while the
 * folder's own entry is another. Costs one files.index of the candidate (no hashes); the
 * startup comes from the deployments.list record link already read.
 */
import { readdir } from 'node:fs/promises';
import type { Deployment } from '../api/types.js';
import { confinedPath, lstatTarget } from '../local/confine.js';
import type { IgnoreMatcher } from '../local/ignore.js';
import { relPathProblem } from '../model/safe-path.js';
import type { HostingClient } from '../remote/client.js';
import { LINK_FIT_COMMON_NAMES, LINK_FIT_MIN_SHARE, LINK_FIT_SAMPLE } from './tunables.js';

export interface LinkMisfit {
  /** The deployment's files (as judged) the folder does not have, a few shown first. */
  missing: string[];
  /** How many of its files were judged, and how many the folder has too. */
  judged: number;
  shared: number;
  /** The entry its startup runs, when the folder lacks it and names another; else null. */
  entry: { deployment: string; folder: string } | null;
}

/** Files of a folder that do not make it a project (hostsync's own, git's). */
const NOT_PROJECT = new Set(['.hostsync', '.git', 'hostsync.json', '.syncignore', '.gitignore']);

const hasFile = (root: string, rel: string): boolean => {
  try {
    const st = lstatTarget(confinedPath(root, rel, { create: false }));
    return st !== null && !st.isDirectory();
  } catch {
    // A path through a link, or one that leaves the folder: not this folder's file.
    return false;
  }
};

/**
 * Null when the deployment fits (or cannot be told not to: it is empty, or the folder is,
 * as for a clone about to pull); else what does not fit. `folderEntry`: the entry the
 * folder's own files name (init's finding), if any.
 */
export async function linkMisfit(client: HostingClient, listed: Deployment, root: string, matcher: IgnoreMatcher, folderEntry: string | null): Promise<LinkMisfit | null> {
  const local = await readdir(root).catch(() => [] as string[]);
  if (!local.some((n) => !NOT_PROJECT.has(n))) return null;
  const index = await client.files.index({ hashMaxBytes: 0 });
  const common = new Set(LINK_FIT_COMMON_NAMES.map((n) => n.toLowerCase()));
  const files: string[] = [];
  for (const e of index.entries) {
    if (e.type !== 'file') continue;
    const rel = e.path.startsWith('/') ? e.path.slice(1) : e.path;
    if (relPathProblem(rel) !== null || matcher.ignores(rel, false) || common.has(rel.toLowerCase())) continue;
    files.push(rel);
    if (files.length >= LINK_FIT_SAMPLE) break;
  }
  if (files.length === 0) return null;
  const missing = files.filter((rel) => !hasFile(root, rel));
  const shared = files.length - missing.length;
  const remoteEntry = listed.startup?.entryFile || listed.entryFile || '';
  const entry =
    remoteEntry !== '' && folderEntry !== null && folderEntry !== remoteEntry && missing.includes(remoteEntry) ? { deployment: remoteEntry, folder: folderEntry } : null;
  if (shared / files.length >= LINK_FIT_MIN_SHARE && entry === null) return null;
  return { missing, judged: files.length, shared, entry };
}
