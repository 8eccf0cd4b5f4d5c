/**
 * What git knows of the synced folder, asked of the `git` command (never parsed from .git/
 * by hand: worktrees, packed refs, shallow files and alternates are git's business). Every
 * question answers null when the folder is not in a git work tree, git is not installed or
 * refuses the repository (`safe.directory`): the copy is then "without git", never an error.
 *
 * Paths git prints are relative to the synced root (git runs there: `ls-files` lists what is
 * below its working folder, relative to it), as hostsync's own paths are.
 */
import { execFile } from 'node:child_process';
import { GIT_ABBREV } from '../state/base-record.js';
import { GIT_ANCESTORS, GIT_BATCH_PATHSPECS, GIT_MAX_OUTPUT_BYTES } from './tunables.js';

export interface GitHead {
  /** The HEAD commit. */
  head: string;
  /** Its committer time (seconds). */
  time: number;
  /** The newest ancestors git can see here (abbreviated), HEAD excluded. */
  anc: string[];
  /** A shallow clone: ancestors past its depth are unknown, not absent. */
  shallow: boolean;
  /** HEAD's subject line (git's %s), as git printed it: untrusted text, escaped where shown. */
  subject: string;
}

/** git's answer, or null for any failure (not a repository, no git, refused): never thrown. */
function git(root: string, args: string[], okCodes: readonly number[] = [0]): Promise<{ code: number; out: string } | null> {
  return new Promise((resolve) => {
    execFile(
      'git',
      args,
      {
        cwd: root,
        maxBuffer: GIT_MAX_OUTPUT_BYTES,
        // No index refresh written by a status beside the user's own git, paths as bytes, C messages.
        env: { ...process.env, GIT_OPTIONAL_LOCKS: '0', GIT_LITERAL_PATHSPECS: '1', LC_ALL: 'C', GIT_TERMINAL_PROMPT: '0' },
        windowsHide: true,
      },
      (err, stdout) => {
        const code = err ? (typeof (err as { code?: unknown }).code === 'number' ? ((err as { code: number }).code) : -1) : 0;
        resolve(okCodes.includes(code) ? { code, out: String(stdout) } : null);
      },
    );
  });
}

/** HEAD, its time and ancestry; null without git or without a commit. */
export async function gitHead(root: string): Promise<GitHead | null> {
  const [log, shallow] = await Promise.all([
    git(root, ['log', `--max-count=${GIT_ANCESTORS + 1}`, '--format=%H %ct %s', 'HEAD', '--']),
    git(root, ['rev-parse', '--is-shallow-repository']),
  ]);
  if (log === null || shallow === null) return null;
  // %s never holds a newline (git folds the subject's lines): one row per commit.
  const rows = log.out.split('\n').filter((l) => l !== '').map((l) => l.split(' '));
  const [first] = rows;
  if (!first || !/^[0-9a-f]{40,64}$/.test(first[0] ?? '')) return null;
  const isShallow = shallow.out.trim() === 'true';
  const anc = rows.slice(1).map((r) => r[0]!);
  if (isShallow && rows.length <= GIT_ANCESTORS) {
    // History stops at the clone's depth, but the oldest commit it holds still names its
    // parents (a CI checkout of depth 1 names HEAD's): enough for a re-run of that parent to
    // find itself behind.
    const oldest = rows[rows.length - 1]![0]!;
    const raw = await git(root, ['cat-file', 'commit', oldest]);
    for (const m of (raw?.out.split('\n\n')[0] ?? '').matchAll(/^parent ([0-9a-f]{40,64})$/gm)) anc.push(m[1]!);
  }
  return { head: first[0]!, time: Number(first[1]), anc: anc.slice(0, GIT_ANCESTORS).map((a) => a.slice(0, GIT_ABBREV)), shallow: isShallow, subject: first.slice(2).join(' ') };
}

/**
 * Whether the synced folder holds exactly its commit: no tracked file changed and no
 * untracked file git would list (hostsync's own `.hostsync/` aside). Costs a `git status`
 * of the folder: a push that records asks it while it scans.
 */
export async function gitClean(root: string): Promise<boolean | null> {
  const st = await git(root, ['status', '--porcelain', '-z', '--', '.', ':(exclude,top).hostsync', ':(exclude).hostsync']);
  return st === null ? null : st.out === '';
}

/**
 * The files git tracks below the synced root, as a membership test; only `paths` are
 * asked when they are few (a watch's batch), the whole index otherwise.
 */
export async function gitTracked(root: string, paths: readonly string[] | null): Promise<((path: string) => boolean) | null> {
  const few = paths !== null && paths.length <= GIT_BATCH_PATHSPECS;
  if (few && paths.length === 0) return () => false;
  const ls = await git(root, ['ls-files', '-z', '--', ...(few ? paths : [])]);
  if (ls === null) return null;
  const tracked = new Set(ls.out.split('\0').filter((p) => p !== ''));
  return (p) => tracked.has(p);
}

/**
 * The paths below the synced root that differ from HEAD (modified, added, deleted, or
 * untracked and not ignored), relative to the root; null without git.
 */
export async function gitChanged(root: string): Promise<Set<string> | null> {
  const st = await git(root, ['status', '--porcelain', '-z', '--untracked-files=all', '--no-renames', '--', '.']);
  if (st === null) return null;
  const prefix = await git(root, ['rev-parse', '--show-prefix']);
  const under = prefix?.out.trim() ?? '';
  const out = new Set<string>();
  // Each record: XY, a space, the path from the repository's top (-z: no quoting).
  for (const rec of st.out.split('\0')) {
    if (rec.length < 4) continue;
    const p = rec.slice(3);
    if (p.startsWith(under)) out.add(p.slice(under.length));
  }
  return out;
}

/** Does this repository hold `commit`? (A shallow clone or one not fetched lately may not.) */
export async function hasCommit(root: string, commit: string): Promise<boolean> {
  return (await git(root, ['cat-file', '-e', `${commit}^{commit}`])) !== null;
}

/** Is `a` an ancestor of `b` (or the same commit)? Both must be in the repository; null when git could not say. */
export async function isAncestor(root: string, a: string, b: string): Promise<boolean | null> {
  const r = await git(root, ['merge-base', '--is-ancestor', a, b], [0, 1]);
  return r === null ? null : r.code === 0;
}
