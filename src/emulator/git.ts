/**
 * Git source: getGit, setAutoPull and sync. The pull itself is git-pull.ts; with autoPull
 * on, every (re)start pulls too (deployment.ts hands the runner that step).
 */
import { depRoute, type Ctx, type Route } from './context.js';
import type { EmulatedDeployment } from './deployment.js';
import { badRequest } from './errors.js';
import { pullInto } from './git-pull.js';
import { optString, type JsonObject } from './validate.js';

function view(dep: EmulatedDeployment): { linked: boolean; repo: string | null; branch: string | null; autoPull: boolean } {
  return { linked: dep.git !== null, repo: dep.git?.repo ?? null, branch: dep.git?.branch ?? null, autoPull: dep.git?.autoPull ?? false };
}

async function setAutoPull(ctx: Ctx, dep: EmulatedDeployment): Promise<unknown> {
  const body: JsonObject = await ctx.body();
  if (typeof body.autoPull !== 'boolean') throw badRequest('autoPull is required and must be a boolean');
  if (!dep.git) throw badRequest('no repository is linked; link one with deployments.sync and repo', 'not_linked');
  dep.git.autoPull = body.autoPull;
  ctx.core.persist();
  return view(dep);
}

async function sync(ctx: Ctx, dep: EmulatedDeployment): Promise<{ ok: boolean; commit: string; repo: string; branch: string }> {
  const body = await ctx.body();
  const repo = optString(body, 'repo') ?? dep.git?.repo;
  if (!repo) throw badRequest('no repository is linked; pass repo (a local path or file:// URL in the emulator)', 'not_linked');
  const wanted = optString(body, 'branch') ?? (optString(body, 'repo') ? undefined : dep.git?.branch);
  const { commit, branch } = await pullInto(dep.volume.root, repo, wanted);
  dep.git = { repo, branch, autoPull: dep.git?.autoPull ?? false };
  ctx.core.persist();
  if (dep.runner.state === 'running' || dep.runner.state === 'starting') await dep.runner.power('restart', 0);
  return { ok: true, commit, repo, branch };
}

export const gitRoutes: Route[] = [
  depRoute('GET', '/deployments/:id/git', 'deployments.getGit', 'deployments:read', async (_ctx, dep) => view(dep)),
  depRoute('PATCH', '/deployments/:id/git', 'deployments.setAutoPull', 'deployments:write', setAutoPull),
  depRoute('POST', '/deployments/:id/sync', 'deployments.sync', 'deployments:write', sync),
];
