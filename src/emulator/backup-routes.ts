/** backups.list/get/restore: the routes over the deployment's restore points (backups.ts keeps them). */
import { depRoute, type Ctx, type Route } from './context.js';
import type { BackupOperation } from './backups.js';
import type { EmulatedDeployment } from './deployment.js';
import { badRequest } from './errors.js';
import { optString, optStringArray } from './validate.js';

async function restore(ctx: Ctx, dep: EmulatedDeployment): Promise<{ ok: boolean; operation: BackupOperation }> {
  const body = await ctx.body();
  const raw = optString(body, 'mode') ?? 'subfolder';
  if (raw !== 'replace' && raw !== 'subfolder') throw badRequest('mode must be replace or subfolder');
  const paths = optStringArray(body, 'paths');
  if (paths !== undefined && raw !== 'subfolder') throw badRequest('paths goes with mode subfolder only');
  const operation = await ctx.core.backups.restore(dep, ctx.params.backupId ?? '', raw, paths);
  return { ok: true, operation };
}

export const backupRoutes: Route[] = [
  depRoute('GET', '/deployments/:id/backups', 'backups.list', 'backups:read', (ctx, dep) => ctx.core.backups.list(dep)),
  depRoute('GET', '/deployments/:id/backups/:backupId', 'backups.get', 'backups:read', (ctx, dep) => ctx.core.backups.get(dep, ctx.params.backupId ?? '')),
  depRoute('POST', '/deployments/:id/backups/:backupId/restore', 'backups.restore', 'backups:write', restore, { destructive: true }),
];
