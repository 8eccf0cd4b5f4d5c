/**
 * A project that vanished is not a deletion (issue 27, item 4). A root deleted or moved
 * away, replaced by another folder, emptied, or stripped of the hostsync.json that names
 * the deployment reads, to a scan, exactly like the user deleting every file: pushing that
 * deletes the deployment's files for a folder that is simply gone. Such a state stops
 * watch and refuses a push (exit 3) before anything is sent; nothing is deleted.
 *
 * hostsync.json counts only when it names the deployment being synced (top level or a
 * target): then it is what binds this folder to the deployment, and a folder without it
 * is no longer that project. A deployment named by --deployment or HOSTSYNC_DEPLOYMENT
 * (CI) does not depend on the file, so removing it there is an ordinary deletion, under
 * the mass-delete guard like any other.
 */
import { lstat, readdir, stat } from 'node:fs/promises';
import path from 'node:path';
import { CONFIG_FILE, projectRootOf, readConfigFile, type Config } from '../../config/config.js';
import type { IgnoreMatcher } from '../../local/ignore.js';
import { EXIT, HostsyncError } from '../../errors.js';

/** The project as it was when a push or watch began: what "still there" is measured against. */
export interface ProjectMark {
  root: string;
  dev: number;
  ino: number;
  /** Where hostsync.json lives: the root, or above it when a build's output ("dir") is synced. */
  projectRoot: string;
  /** hostsync.json in the project root names the deployment synced (see above). */
  marker: boolean;
  /** The project root's identity, when it is not `root` (a "dir" project): its going is what a vanished project is then. */
  project?: { dev: number; ino: number };
}

/** Refused (exit 3), and for watch a reason to stop rather than retry: the project is gone. */
export class ProjectVanishedError extends HostsyncError {
  constructor(message: string) {
    super(message, EXIT.refused);
    this.name = 'ProjectVanishedError';
  }
}

/** Whether hostsync.json at `root` names `deploymentId`; an unreadable or missing file does not. */
async function namesDeployment(root: string, deploymentId: string): Promise<boolean> {
  try {
    const file = await readConfigFile(root);
    if (file.deployment === deploymentId) return true;
    return Object.values(file.targets ?? {}).some((t) => t.deployment === deploymentId);
  } catch {
    return false;
  }
}

/** Takes the mark; throws ProjectVanishedError when the root is already gone. */
export async function markProject(config: Pick<Config, 'root' | 'projectRoot' | 'deploymentId'>): Promise<ProjectMark> {
  const { root } = config;
  const projectRoot = projectRootOf(config);
  let st;
  try {
    st = await stat(root);
  } catch {
    throw new ProjectVanishedError(vanishedMessage(`${root} is gone`));
  }
  const project = root === projectRoot ? null : await stat(projectRoot).catch(() => null);
  return {
    root, projectRoot, dev: st.dev, ino: st.ino, marker: await namesDeployment(projectRoot, config.deploymentId),
    ...(project ? { project: { dev: project.dev, ino: project.ino } } : {}),
  };
}

/**
 * The emptiness test's input: whether the tree is `empty` now (as the caller found it on
 * disk), and how many files it `tracked` before (the base, or the previous scan).
 */
export interface TreeCount {
  empty: boolean;
  tracked: number;
}

/**
 * Why the project counts as vanished, as a one-line message, or null when it is still
 * there. Looks at the file system itself (a stat or two), not at a snapshot that may lag
 * behind a deletion in progress. `tree` omitted: the emptiness test is left out (a
 * one-shot push leaves an emptied root to the mass-delete guard, which --allow-mass-delete
 * can answer).
 */
export async function vanishedReason(mark: ProjectMark, tree?: TreeCount): Promise<string | null> {
  const { root } = mark;
  let st;
  try {
    st = await stat(root);
  } catch {
    return vanishedMessage(`${root} is gone (deleted, or moved away)`);
  }
  if (!st.isDirectory() || st.dev !== mark.dev || st.ino !== mark.ino) {
    return vanishedMessage(`${root} was replaced by another folder`);
  }
  if (mark.marker) {
    try {
      await lstat(path.join(mark.projectRoot, CONFIG_FILE));
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code === 'ENOENT' || code === 'ENOTDIR') {
        return vanishedMessage(`${CONFIG_FILE}, which names this deployment, is gone from ${mark.projectRoot}`, `put ${CONFIG_FILE} back`);
      }
    }
  }
  // A build's output folder ("dir") is emptied by every rebuild (Vite, webpack): not a vanished
  // project. Its deletions meet watch's mass-delete hold instead.
  if (tree && tree.empty && tree.tracked > 0 && root === mark.projectRoot) return vanishedMessage(`${root} is empty`);
  return null;
}

function vanishedMessage(why: string, fix = 'restore the folder'): string {
  return `the project vanished: ${why}; nothing was deleted on the deployment: ${fix}, then start again (to delete the deployment's files on purpose: hostsync push --allow-mass-delete)`;
}

/**
 * Whether the root, on disk now, still holds anything that is synced (one readdir, top
 * level only: a folder counts as holding something). Watch asks when a cycle's snapshot
 * lost files or holds none: the watcher may have told of only part of an emptying already
 * complete, or not yet of the files a branch switch wrote after its unlinks.
 */
export async function rootHoldsSynced(root: string, matcher: IgnoreMatcher): Promise<boolean> {
  let entries;
  try {
    entries = await readdir(root, { withFileTypes: true });
  } catch {
    return false;
  }
  return entries.some((d) => !matcher.ignores(d.name, d.isDirectory()));
}

/**
 * Where a "dir" project's synced folder is now, its project root being still the one
 * marked: `away` (gone, or not a folder), `back` (a folder again, but another one: a build
 * that ran `rm -rf dist && mkdir dist`), `same`; `null` when the mark is not of a "dir"
 * project or the project root itself went or was replaced (that is a vanished project,
 * whatever the folder does).
 */
export async function syncDirNow(mark: ProjectMark): Promise<{ state: 'away' | 'same' } | { state: 'back'; dev: number; ino: number } | null> {
  if (mark.root === mark.projectRoot || mark.project === undefined) return null;
  const project = await stat(mark.projectRoot).catch(() => null);
  if (project === null || !project.isDirectory() || project.dev !== mark.project.dev || project.ino !== mark.project.ino) return null;
  const st = await stat(mark.root).catch(() => null);
  if (st === null || !st.isDirectory()) return { state: 'away' };
  if (st.dev === mark.dev && st.ino === mark.ino) return { state: 'same' };
  return { state: 'back', dev: st.dev, ino: st.ino };
}

/** Throws ProjectVanishedError when vanishedReason finds one. */
export async function assertProjectThere(mark: ProjectMark, tree?: TreeCount): Promise<void> {
  const reason = await vanishedReason(mark, tree);
  if (reason !== null) throw new ProjectVanishedError(reason);
}
