/**
 * deployments.updateStartup. A change of type (another runtime, or another kind)
 * reinstalls from scratch and deletes every file, so it is refused unless the body says
 * `wipeFiles: true`, as the document requires. A new runtime brings its own default
 * version, entry file and start command unless the body gives them. Everything applies at
 * the next (re)start; what runs now keeps running.
 */
import { readdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import type { StartupConfig, StartupUpdateResult } from '../api/types.js';
import { CATALOG } from './catalog.js';
import { depRoute, type Ctx, type Route } from './context.js';
import type { EmulatedDeployment } from './deployment.js';
import { badRequest } from './errors.js';
import { optBool, optString } from './validate.js';

const KINDS = ['runtime', 'database', 'service'] as const;
const ENTRIES = [...CATALOG.runtimes, ...CATALOG.services, ...CATALOG.databases];
const kindOf = (runtime: string): string =>
  CATALOG.databases.some((d) => d.id === runtime) ? 'database' : CATALOG.services.some((d) => d.id === runtime) ? 'service' : 'runtime';

/** "install && start" -> "install && exec start": the last step must be the process Stop signals. */
function execLast(command: string): string {
  const steps = command.split('&&');
  const last = steps[steps.length - 1]!;
  if (/^\s*exec\s/.test(last)) return command;
  steps[steps.length - 1] = ` exec ${last.trim()}`;
  return steps.length === 1 ? steps[0]!.trim() : steps.join('&&');
}

function emptyVolume(root: string): void {
  for (const name of readdirSync(root)) rmSync(path.join(root, name), { recursive: true, force: true });
}

async function updateStartup(ctx: Ctx, dep: EmulatedDeployment): Promise<StartupUpdateResult> {
  const body = await ctx.body();
  const runtime = optString(body, 'runtime');
  if (runtime !== undefined && !ENTRIES.some((e) => e.id === runtime)) throw badRequest(`runtime must be one of ${ENTRIES.map((e) => e.id).join(', ')}`);
  const rawVersion = body.runtimeVersion;
  if (rawVersion !== undefined && typeof rawVersion !== 'string' && typeof rawVersion !== 'number') throw badRequest('runtimeVersion must be a string (a bare number is accepted)');
  const kind = optString(body, 'kind');
  if (kind !== undefined && !(KINDS as readonly string[]).includes(kind)) throw badRequest(`kind must be one of ${KINDS.join(', ')}`);
  const entryFile = optString(body, 'entryFile');
  const startCommand = body.startCommand;
  if (startCommand !== undefined && startCommand !== null && typeof startCommand !== 'string') throw badRequest('startCommand must be a string, or null for the runtime default');
  optString(body, 'engine');
  const wipeFiles = optBool(body, 'wipeFiles') ?? false;

  const current = dep.startupConfig();
  const newRuntime = runtime ?? dep.spec.runtime;
  const newKind = kind ?? (runtime !== undefined ? kindOf(runtime) : current.kind);
  const typeChange = newRuntime !== dep.spec.runtime || newKind !== current.kind;
  if (typeChange && !wipeFiles) {
    throw badRequest(
      `changing the type (${dep.spec.runtime} to ${newRuntime}${newKind !== current.kind ? `, ${current.kind} to ${newKind}` : ''}) reinstalls from scratch and deletes every file: send wipeFiles: true to go ahead`,
      'wipe_required',
    );
  }
  const catalog = ENTRIES.find((e) => e.id === newRuntime);
  const warnings: string[] = [];
  if (typeChange) {
    emptyVolume(dep.volume.root);
    warnings.push(`every file was deleted; ${newRuntime} installs from scratch at the next start`);
  }
  const change: Parameters<typeof dep.runner.reconfigure>[0] = { runtime: newRuntime };
  // A new runtime brings its own defaults unless the body gives them.
  const entry = entryFile ?? (typeChange ? (catalog && 'defaultEntry' in catalog ? (catalog.defaultEntry ?? '') : '') : undefined);
  if (entry !== undefined) {
    change.entryFile = entry;
    dep.spec.entryFile = entry;
  }
  if (rawVersion !== undefined) change.runtimeVersion = String(rawVersion);
  else if (typeChange && catalog) change.runtimeVersion = catalog.defaultVersion;
  if (startCommand === null || (typeChange && startCommand === undefined)) change.startCommand = '';
  else if (typeof startCommand === 'string') {
    change.startCommand = startCommand.trim() === '' ? '' : execLast(startCommand.trim());
    if (change.startCommand !== '' && !/\b(npm|pnpm|yarn|pip|bun)\s+(install|i|ci)\b/.test(change.startCommand)) {
      warnings.push('this command only starts the app: dependencies are no longer installed at boot');
    }
  }
  dep.spec.runtime = newRuntime;
  dep.kind = newKind;
  dep.runner.reconfigure(change);
  ctx.core.persist();
  warnings.push('applies at the next (re)start');
  const startup: StartupConfig = dep.startupConfig();
  return { ...startup, warning: warnings.join('; ') };
}

export const startupRoutes: Route[] = [
  depRoute('GET', '/deployments/:id/startup', 'deployments.getStartup', 'deployments:read', async (_ctx, dep) => dep.startupConfig()),
  depRoute('PATCH', '/deployments/:id/startup', 'deployments.updateStartup', 'deployments:write', updateStartup),
];
