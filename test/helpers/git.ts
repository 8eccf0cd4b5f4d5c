/**
 * Real git repositories for tests of copies (teammates, CI clones, re-runs): made with the
 * `git` command, cloned through file:// (so --depth makes a real shallow clone), with
 * explicit commit dates. No user or system git configuration is read.
 */
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { runDir, writeTree } from './tree.js';

const ENV = {
  GIT_CONFIG_NOSYSTEM: '1',
  GIT_CONFIG_GLOBAL: '/dev/null',
  GIT_AUTHOR_NAME: 'Test',
  GIT_AUTHOR_EMAIL: 'test@example.invalid',
  GIT_COMMITTER_NAME: 'Test',
  GIT_COMMITTER_EMAIL: 'test@example.invalid',
};

/** Runs git in `cwd`; its stdout, trimmed. `date`: the commit's author and committer date. */
export function git(cwd: string, args: string[], date?: string): string {
  const env = { ...process.env, ...ENV, ...(date ? { GIT_AUTHOR_DATE: date, GIT_COMMITTER_DATE: date } : {}) };
  return execFileSync('git', ['-c', 'init.defaultBranch=main', '-c', 'protocol.file.allow=always', '-c', 'advice.detachedHead=false', ...args], { cwd, env, encoding: 'utf8' }).trim();
}

/** Writes `files` (null: deletes), commits everything, returns the commit id. */
export async function commit(dir: string, files: Record<string, string | null>, message: string, date: string): Promise<string> {
  const written: Record<string, string> = {};
  for (const [p, c] of Object.entries(files)) {
    if (c === null) git(dir, ['rm', '-q', '--', p]);
    else written[p] = c;
  }
  await writeTree(dir, written);
  git(dir, ['add', '-A']);
  git(dir, ['commit', '-q', '-m', message], date);
  return git(dir, ['rev-parse', 'HEAD']);
}

/** A new repository (in the run's folder) whose first commit holds `files`; `.hostsync/` is git-ignored, as `init` leaves it. */
export async function repo(prefix: string, files: Record<string, string>, date: string): Promise<{ dir: string; head: string }> {
  const dir = runDir(`${prefix}-`);
  git(dir, ['init', '-q']);
  const head = await commit(dir, { '.gitignore': '.hostsync/\n', ...files }, 'first', date);
  return { dir, head };
}

/** `git clone` of `from` (file://, so `depth` is a real shallow clone), checked out at `ref` when given. */
export function clone(from: string, prefix: string, opts: { depth?: number; branch?: string; ref?: string } = {}): string {
  const dir = path.join(runDir(`${prefix}-`), 'repo');
  const args = ['clone', '-q', ...(opts.depth ? ['--depth', String(opts.depth)] : []), ...(opts.branch ? ['--branch', opts.branch] : []), `file://${from}`, dir];
  git(path.dirname(dir), args);
  if (opts.ref) git(dir, ['checkout', '-q', opts.ref]);
  return dir;
}
