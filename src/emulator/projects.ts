/**
 * Projects, and the deployment endpoints that change a deployment's place or size:
 * projects.list/create/delete, deployments.update/delete/move/resize/sftp.
 * The emulator has one user, who owns every project it creates; a project seeded
 * as shared (owner another user) exists so that "only the owner may delete" is real.
 */
import { randomBytes } from 'node:crypto';
import type { Deployment } from '../api/types.js';
import { depRoute, type Ctx, type ProjectRecord, type Route } from './context.js';
import { EMULATED_USER, type EmulatedDeployment } from './deployment.js';
import { ApiError, forbidden, notFound } from './errors.js';
import { quotaLeft } from './quota.js';
import { optString, reqString, type JsonObject } from './validate.js';

/** The records update/move/resize return: the full record up to and including `ports` (hosting-api.md). */
function shortRecord(dep: EmulatedDeployment): Omit<Deployment, 'startup' | 'connection'> {
  const { startup: _s, connection: _c, ...rest } = dep.record();
  return rest;
}

function projectView(p: ProjectRecord): { id: string; name: string; isOwner: boolean; createdAt: string } {
  return { id: p.id, name: p.name, isOwner: p.ownerId === EMULATED_USER.id, createdAt: p.createdAt };
}

function projectOf(ctx: Ctx, id: string): ProjectRecord {
  const p = ctx.core.projects.get(id);
  if (!p) throw notFound(`project not found: ${id}`, 'project_not_found');
  return p;
}

async function createProject(ctx: Ctx): Promise<unknown> {
  const name = reqString(await ctx.body(), 'name');
  const p: ProjectRecord = { id: `prj_${randomBytes(6).toString('hex')}`, name, ownerId: EMULATED_USER.id, createdAt: new Date().toISOString() };
  ctx.core.projects.set(p.id, p);
  return projectView(p);
}

async function deleteProject(ctx: Ctx): Promise<{ ok: boolean }> {
  const p = projectOf(ctx, ctx.params.id ?? '');
  if (p.ownerId !== EMULATED_USER.id) throw forbidden(`only the owner may delete project ${p.id}`, 'not_owner');
  for (const dep of [...ctx.core.deployments.values()]) if (dep.projectId === p.id) ctx.core.removeDeployment(dep.id);
  ctx.core.projects.delete(p.id);
  return { ok: true };
}

async function update(ctx: Ctx, dep: EmulatedDeployment): Promise<unknown> {
  const name = optString(await ctx.body(), 'name');
  if (name !== undefined) {
    if (name.trim() === '') throw new ApiError(400, 'bad_request', 'name must not be empty');
    dep.spec.name = name;
  }
  return shortRecord(dep);
}

async function move(ctx: Ctx, dep: EmulatedDeployment): Promise<unknown> {
  const to = reqString(await ctx.body(), 'toProjectId');
  projectOf(ctx, to);
  dep.projectId = to;
  return shortRecord(dep);
}

function reqPositive(body: JsonObject, field: string, min: number): number {
  const v = body[field];
  if (v === undefined || v === null) throw new ApiError(400, 'bad_request', `${field} is required`);
  if (typeof v !== 'number' || !Number.isInteger(v) || v < min) throw new ApiError(400, 'bad_request', `${field} must be a whole number >= ${min}`);
  return v;
}

/** Draws the new size from the pool (what this deployment holds now is given back first), then restarts it. */
async function resize(ctx: Ctx, dep: EmulatedDeployment): Promise<unknown> {
  const body = await ctx.body();
  const want = { ramMB: reqPositive(body, 'ramMB', 64), cpuPercent: reqPositive(body, 'cpuPct', 1), storageMB: reqPositive(body, 'storageMB', 64) };
  const left = quotaLeft(ctx.core, dep.id);
  const over = (['ramMB', 'cpuPercent', 'storageMB'] as const).filter((k) => want[k] > left[k]);
  if (over.length) {
    throw new ApiError(400, 'quota_exceeded', `not enough left in the plan pool for ${over.map((k) => `${k} ${want[k]} (free ${left[k]})`).join(', ')}; resize smaller or free resources`);
  }
  dep.resize(want);
  ctx.core.persist();
  if (dep.runner.state === 'running' || dep.runner.state === 'starting') await dep.runner.power('restart', 0);
  return shortRecord(dep);
}

/**
 * The emulator serves no SFTP, so no password is ever set: `password` is null, which the
 * document says means "none set yet". The two-scope rule is enforced by the route.
 */
async function sftp(ctx: Ctx, dep: EmulatedDeployment): Promise<unknown> {
  const port = new URL(ctx.core.baseUrl).port;
  return { host: '127.0.0.1', port: Number(port), username: `emulator.${dep.id}`, password: null };
}

export const projectRoutes: Route[] = [
  { method: 'GET', pattern: '/projects', op: 'projects.list', scope: 'projects:read', handler: async (ctx) => ({ projects: [...ctx.core.projects.values()].map(projectView) }) },
  { method: 'POST', pattern: '/projects', op: 'projects.create', scope: 'projects:write', handler: createProject },
  { method: 'DELETE', pattern: '/projects/:id', op: 'projects.delete', scope: 'projects:write', destructive: true, handler: deleteProject },
  depRoute('PATCH', '/deployments/:id', 'deployments.update', 'deployments:write', update),
  depRoute('DELETE', '/deployments/:id', 'deployments.delete', 'deployments:write', async (ctx, dep) => {
    ctx.core.removeDeployment(dep.id);
    return { ok: true };
  }, { destructive: true }),
  depRoute('POST', '/deployments/:id/move', 'deployments.move', 'deployments:write', move),
  depRoute('PATCH', '/deployments/:id/resize', 'deployments.resize', 'deployments:write', resize),
  depRoute('GET', '/deployments/:id/sftp', 'deployments.sftp', 'deployments:read', sftp, { alsoScopes: ['deployments:write'] }),
];
