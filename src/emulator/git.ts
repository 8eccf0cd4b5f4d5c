/**
 * Git source: getGit, setAutoPull, sync, and the clone behind deployments.create
 * with source `github`. The emulator reaches no git host, so a repository is a local
 * path or a file:// URL (a local stand-in for "owner/repo"); anything else is a 400
 * that says so. A pull copies the repository's files over the volume (the `.git`
 * folder excluded) and never deletes files the app wrote.
 */
import { execFile } from 'node:child_process';
import { cp, mkdtemp, readdir, rm, stat } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { depRoute, type Ctx, type Route } from './context.js';
import type { EmulatedDeployment } from './deployment.js';
import { badRequest } from './errors.js';
import { EMULATOR_GIT_TIMEOUT_MS } from './tunables.js';
import { optString, type JsonObject } from './validate.js';

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
export async function pullInto(dep: EmulatedDeployment, repo: string, branch: string | undefined): Promise<{ commit: string; branch: string }> {
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
      await cp(path.join(tmp, name), path.join(dep.volume.root, name), { recursive: true, force: true });
    }
    return { commit, branch: actual };
  } finally {
    await rm(tmp, { recursive: true, force: true });
  }
}

function view(dep: EmulatedDeployment): { linked: boolean; repo: string | null; branch: string | null; autoPull: boolean } {
  return { linked: dep.git !== null, repo: dep.git?.repo ?? null, branch: dep.git?.branch ?? null, autoPull: dep.git?.autoPull ?? false };
}

async function setAutoPull(ctx: Ctx, dep: EmulatedDeployment): Promise<unknown> {
  const body: JsonObject = await ctx.body();
  if (typeof body.autoPull !== 'boolean') throw badRequest('autoPull is required and must be a boolean');
  if (!dep.git) throw badRequest('no repository is linked; link one with deployments.sync and repo', 'not_linked');
  dep.git.autoPull = body.autoPull;
  return view(dep);
}

async function sync(ctx: Ctx, dep: EmulatedDeployment): Promise<{ ok: boolean; commit: string; repo: string; branch: string }> {
  const body = await ctx.body();
  const repo = optString(body, 'repo') ?? dep.git?.repo;
  if (!repo) throw badRequest('no repository is linked; pass repo (a local path or file:// URL in the emulator)', 'not_linked');
  const wanted = optString(body, 'branch') ?? (optString(body, 'repo') ? undefined : dep.git?.branch);
  const { commit, branch } = await pullInto(dep, repo, wanted);
  dep.git = { repo, branch, autoPull: dep.git?.autoPull ?? false };
  if (dep.runner.state === 'running' || dep.runner.state === 'starting') await dep.runner.power('restart', 0);
  return { ok: true, commit, repo, branch };
}

export const gitRoutes: Route[] = [
  depRoute('GET', '/deployments/:id/git', 'deployments.getGit', 'deployments:read', async (_ctx, dep) => view(dep)),
  depRoute('PATCH', '/deployments/:id/git', 'deployments.setAutoPull', 'deployments:write', setAutoPull),
  depRoute('POST', '/deployments/:id/sync', 'deployments.sync', 'deployments:write', sync),
];
