/**
 * Pulling a linked repository into a volume: the clone behind deployments.sync, create
 * with source `github`, and the autoPull of every (re)start. The emulator reaches no git
 * host, so a repository is a local path or a file:// URL (a local stand-in for
 * "owner/repo"); anything else is a 400 that says so. A pull copies the repository's
 * files over the volume (the `.git` folder excluded) and never deletes files the app wrote.
 */
import { execFile } from 'node:child_process';
import { cp, mkdtemp, readdir, rm, stat } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { badRequest } from './errors.js';
import { EMULATOR_GIT_TIMEOUT_MS } from './tunables.js';

const run = promisify(execFile);

/** A repository the emulator can reach: an absolute local path or a file:// URL. */
export function localRepo(repo: string): string {
  if (repo.startsWith('file://')) return new URL(repo).pathname;
  if (path.isAbsolute(repo)) return repo;
  throw badRequest(`the emulator reaches no git host: link a local repository by absolute path or file:// URL instead of ${repo}`, 'repo_unreachable');
}

async function git(args: string[], cwd?: string): Promise<string> {
  try {
    const { stdout } = await run('git', args, { cwd, timeout: EMULATOR_GIT_TIMEOUT_MS, env: { PATH: process.env.PATH ?? '', HOME: os.tmpdir(), GIT_TERMINAL_PROMPT: '0' } });
    return stdout.trim();
  } catch (err) {
    const msg = ((err as { stderr?: string }).stderr ?? (err as Error).message).trim().split('\n').pop() ?? 'git failed';
    throw badRequest(`git: ${msg}`, 'git_failed');
  }
}

/** Clones `repo` at `branch` (its default when omitted) and copies its files into the volume. */
export async function pullInto(volumeRoot: string, repo: string, branch: string | undefined): Promise<{ commit: string; branch: string }> {
  const src = localRepo(repo);
  try {
    await stat(src);
  } catch {
    throw badRequest(`repository ${repo} does not exist`, 'repo_not_found');
  }
  const tmp = await mkdtemp(path.join(os.tmpdir(), 'hostsync-emu-git-'));
  try {
    await git(['clone', '--quiet', '--depth', '1', ...(branch ? ['--branch', branch] : []), src, tmp]);
    const commit = await git(['rev-parse', 'HEAD'], tmp);
    const actual = branch ?? (await git(['rev-parse', '--abbrev-ref', 'HEAD'], tmp));
    for (const name of await readdir(tmp)) {
      if (name === '.git') continue;
      await cp(path.join(tmp, name), path.join(volumeRoot, name), { recursive: true, force: true });
    }
    return { commit, branch: actual };
  } finally {
    await rm(tmp, { recursive: true, force: true });
  }
}
