/**
 * Deployment and account endpoints: list, get, create (blank), getStartup,
 * diagnose, apply, power, command, logs, searchLogs, account.get. How a
 * deployment behaves when run comes from runner.ts; this file is the API face.
 */
import { EMULATOR_LOGS_DEFAULT_SIZE, EMULATOR_LOGS_MAX_SIZE, SEARCH_LOGS_MAX_MATCHES } from './tunables.js';
import { SEARCH_LOGS_DEFAULT_CONTEXT, SEARCH_LOGS_DEFAULT_LINES, SEARCH_LOGS_MAX_LINES } from '../api/limits.js';
import type { Account, PowerAction } from '../api/types.js';
import { depRoute, type Ctx, type Route } from './context.js';
import { EMULATED_USER, EmulatedDeployment, type DeploymentResources } from './deployment.js';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { ApiError, badRequest } from './errors.js';
import { localRepo, pullInto } from './git-pull.js';
import { templateOf } from './templates.js';
import { EMULATED_POOL, quotaLeft, quotaUsed } from './quota.js';
import { defaultRamMB } from '../api/memory.js';
import { optBool, optInt, optNumber, optString, queryBool, queryInt, queryNumber, reqString, type JsonObject } from './validate.js';

const POWER_ACTIONS: readonly PowerAction[] = ['start', 'stop', 'restart', 'kill'];
/** Runtime values of the document (create's `runtime`). */
const RUNTIMES = new Set([
  'nodejs', 'python', 'java', 'php', 'go', 'rust', 'cpp', 'lua', 'nodemon', 'bun',
  'redis', 'postgresql', 'mongodb', 'mysql', 'static', 'phpweb', 'lavalink', 'uptimekuma',
]);
const ACCOUNT_CREATED = new Date().toISOString();

async function list(ctx: Ctx): Promise<{ deployments: unknown[] }> {
  const name = (ctx.query.get('name') ?? '').toLowerCase();
  const brief = queryBool(ctx.query, 'brief', false);
  const deps = [...ctx.core.deployments.values()].filter((d) => d.spec.name.toLowerCase().includes(name));
  return { deployments: deps.map((d) => (brief ? d.brief() : d.record())) };
}

/**
 * The size asked for; an omitted field is the default, capped by the equal share of the
 * free pool (hosting-api.md: "Default size is an equal share of the free pool"; RAM's
 * default is the document's 256 MB). Refused (400) when the pool cannot grant it.
 */
function sizeOf(ctx: Ctx, body: JsonObject): DeploymentResources {
  const left = quotaLeft(ctx.core);
  if (left.slots < 1) throw badRequest('the plan pool has no free slot: delete a deployment first', 'quota_exceeded');
  const share = (free: number, fallback: number): number => Math.min(fallback, Math.floor(free / left.slots));
  const ramMB = optInt(body, 'ramMB', 1) ?? defaultRamMB(left.ramMB, left.slots);
  const cpuPercent = optInt(body, 'cpuPct', 1) ?? share(left.cpuPercent, EmulatedDeployment.resources.cpuPercent);
  const storageMB = optInt(body, 'storageMB', 1) ?? share(left.storageMB, EmulatedDeployment.resources.storageMB);
  if (ramMB < 1 || cpuPercent < 1 || storageMB < 1) {
    throw badRequest(`the plan pool's free share is too small for a new deployment (${left.ramMB} MB RAM, ${left.cpuPercent}% CPU, ${left.storageMB} MB storage free): resize or delete one first`, 'quota_exceeded');
  }
  if (ramMB > left.ramMB || cpuPercent > left.cpuPercent || storageMB > left.storageMB) {
    throw badRequest(`the plan pool has ${left.ramMB} MB RAM, ${left.cpuPercent}% CPU and ${left.storageMB} MB storage free: ask for less`, 'quota_exceeded');
  }
  return { ramMB, cpuPercent, storageMB };
}

/** create's `env`: the document leaves the map's shape open; {"KEY": "value"} is taken. */
function envOf(body: JsonObject): Array<[string, string]> {
  const env = body.env;
  if (env === undefined) return [];
  if (typeof env !== 'object' || env === null || Array.isArray(env)) throw badRequest('env must be an object of KEY: "value"');
  const out = Object.entries(env as Record<string, unknown>);
  for (const [k, v] of out) {
    if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(k) || typeof v !== 'string') throw badRequest(`env.${k.slice(0, 64)} must be a variable name with a string value`);
  }
  return out as Array<[string, string]>;
}

async function create(ctx: Ctx): Promise<{ deployment: unknown; next: string }> {
  const body = await ctx.body();
  const name = reqString(body, 'name');
  const source = reqString(body, 'source');
  if (!['blank', 'github', 'template'].includes(source)) throw badRequest('source must be blank, github or template');
  const runtime = optString(body, 'runtime') ?? 'nodejs';
  if (!RUNTIMES.has(runtime)) throw badRequest(`runtime must be one of ${[...RUNTIMES].join(', ')}`);
  const githubRepo = source === 'github' ? reqString(body, 'githubRepo') : undefined;
  if (githubRepo !== undefined) localRepo(githubRepo); // refuse an unreachable repository before creating anything
  const template = source === 'template' ? templateOf(reqString(body, 'templateId')) : undefined;
  const size = sizeOf(ctx, body);
  const env = envOf(body);
  const rawVersion = body.runtimeVersion;
  if (rawVersion !== undefined && typeof rawVersion !== 'string' && typeof rawVersion !== 'number') throw badRequest('runtimeVersion must be a string (a bare number is accepted)');
  const dep = ctx.core.createDeployment({ name, runtime: template?.runtime ?? runtime, entryFile: template?.entryFile ?? (runtime === 'nodejs' ? 'index.js' : ''), resources: size });
  if (rawVersion !== undefined) dep.runner.reconfigure({ runtimeVersion: String(rawVersion) });
  for (const [key, value] of env) dep.env.set(key, { value, secret: false });
  if (githubRepo !== undefined) {
    try {
      const { branch } = await pullInto(dep.volume.root, githubRepo, optString(body, 'branch'));
      dep.git = { repo: githubRepo, branch, autoPull: false };
    } catch (err) {
      ctx.core.removeDeployment(dep.id);
      throw err;
    }
  }
  if (template) for (const [file, content] of Object.entries(template.files)) writeFileSync(path.join(dep.volume.root, file), content);
  return { deployment: dep.record(), next: 'write files, then deployments.apply to start it' };
}

/**
 * waitSeconds: the document gives no maximum, so any sane value is accepted and the
 * runner clamps it to EMULATOR_MAX_WAIT_SECONDS; refusing it would fail a client the
 * real service serves.
 */
const WAIT_ACCEPT_MAX_SECONDS = 3600;

function waitOf(ctx: Ctx): number | undefined {
  return queryNumber(ctx.query, 'waitSeconds', 0, WAIT_ACCEPT_MAX_SECONDS);
}

async function power(ctx: Ctx, dep: EmulatedDeployment): Promise<unknown> {
  const body = await ctx.body();
  const action = reqString(body, 'action');
  if (!(POWER_ACTIONS as readonly string[]).includes(action)) throw badRequest(`action must be one of ${POWER_ACTIONS.join(', ')}`);
  const wait = optNumber(body, 'waitSeconds', 0, WAIT_ACCEPT_MAX_SECONDS);
  return dep.runner.power(action as PowerAction, wait);
}

async function apply(ctx: Ctx, dep: EmulatedDeployment): Promise<unknown> {
  const body = await ctx.body();
  const restart = optBool(body, 'restart');
  const waitSeconds = optNumber(body, 'waitSeconds', 0, WAIT_ACCEPT_MAX_SECONDS);
  return dep.runner.apply({
    ...(restart === undefined ? {} : { restart }),
    ...(waitSeconds === undefined ? {} : { waitSeconds }),
  });
}

async function command(ctx: Ctx, dep: EmulatedDeployment): Promise<{ ok: boolean; note: string }> {
  const body = await ctx.body();
  const line = reqString(body, 'command', { allowEmpty: true });
  const ok = dep.runner.command(line);
  return { ok, note: ok ? 'written to the process stdin; read the answer with deployments.logs' : 'the deployment is not running' };
}

async function logs(ctx: Ctx, dep: EmulatedDeployment): Promise<unknown> {
  // The service refuses a size above 500 (its public deploy scripts say so), rather than clamping it.
  const raw = ctx.query.get('size');
  if (raw !== null && /^\d+$/.test(raw) && Number(raw) > EMULATOR_LOGS_MAX_SIZE) {
    throw badRequest(`size must be at most ${EMULATOR_LOGS_MAX_SIZE} lines (got ${raw}); deployments.searchLogs reads further back`, 'size_too_large');
  }
  const size = queryInt(ctx.query, 'size', EMULATOR_LOGS_DEFAULT_SIZE, 1, EMULATOR_LOGS_MAX_SIZE);
  return dep.runner.logs(size, waitOf(ctx));
}

/** A word or a regular expression, case-insensitive; text that is not a valid expression is searched literally. */
function searchPattern(p: string): RegExp {
  try {
    return new RegExp(p, 'i');
  } catch {
    return new RegExp(p.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'), 'i');
  }
}

async function searchLogs(ctx: Ctx, dep: EmulatedDeployment): Promise<unknown> {
  const pattern = ctx.query.get('pattern');
  if (!pattern) throw badRequest('pattern is required');
  const lines = queryInt(ctx.query, 'lines', SEARCH_LOGS_DEFAULT_LINES, 1, SEARCH_LOGS_MAX_LINES);
  const context = queryInt(ctx.query, 'context', SEARCH_LOGS_DEFAULT_CONTEXT, 0, 50);
  const re = searchPattern(pattern);
  const scannedLines = dep.runner.consoleTail(lines);
  const matches: Array<{ line: number; text: string; around: string[] }> = [];
  let truncated = false;
  scannedLines.forEach((text, i) => {
    if (!re.test(text)) return;
    if (matches.length >= SEARCH_LOGS_MAX_MATCHES) {
      truncated = true;
      return;
    }
    matches.push({ line: i + 1, text, around: scannedLines.slice(Math.max(0, i - context), i + context + 1) });
  });
  return { matches, scanned: scannedLines.length, truncated };
}

function account(ctx: Ctx): Account {
  const used = quotaUsed(ctx.core);
  return {
    id: EMULATED_USER.id,
    username: EMULATED_USER.username,
    email: 'emulator@localhost',
    createdAt: ACCOUNT_CREATED,
    creditsCents: 0,
    plan: { tier: 'emulated', name: 'Emulator', source: 'catalog', status: 'active' },
    quota: {
      pool: { ramMB: EMULATED_POOL.ramMB, cpuPct: EMULATED_POOL.cpuPercent, storageMB: EMULATED_POOL.storageMB, slots: EMULATED_POOL.slots },
      used: { ramMB: used.ramMB, cpuPct: used.cpuPercent, storageMB: used.storageMB, slots: used.slots },
    },
  };
}

export const deploymentRoutes: Route[] = [
  { method: 'GET', pattern: '/deployments', op: 'deployments.list', scope: 'deployments:read', handler: list },
  { method: 'POST', pattern: '/deployments', op: 'deployments.create', scope: 'deployments:write', handler: create },
  depRoute('GET', '/deployments/:id', 'deployments.get', 'deployments:read', async (_ctx, dep) => dep.record()),
  depRoute('GET', '/deployments/:id/diagnose', 'deployments.diagnose', 'deployments:read', (ctx, dep) => dep.runner.diagnose(waitOf(ctx))),
  depRoute('POST', '/deployments/:id/apply', 'deployments.apply', 'deployments:write', apply),
  depRoute('POST', '/deployments/:id/power', 'deployments.power', 'deployments:power', power),
  depRoute('POST', '/deployments/:id/command', 'deployments.command', 'deployments:power', command),
  depRoute('GET', '/deployments/:id/logs', 'deployments.logs', 'deployments:read', logs),
  depRoute('GET', '/deployments/:id/logs/search', 'deployments.searchLogs', 'deployments:read', searchLogs),
  { method: 'GET', pattern: '/account', op: 'account.get', scope: 'account:read', handler: async (ctx) => account(ctx) },
];

/**
 * Documented endpoints the emulator does not implement. They still check the key,
 * the scope and the deployment like the rest, then answer 501 naming the operation,
 * so a client that calls one learns it at once instead of seeing a bogus 404.
 */
const NOT_EMULATED: Array<[Route['method'], string, string, string]> = [
];

export const notEmulatedRoutes: Route[] = NOT_EMULATED.map(([method, pattern, op, scope]) => {
  const fail = async (): Promise<never> => {
    throw new ApiError(501, 'not_emulated', `${op} is not implemented by the emulator`);
  };
  return pattern.startsWith('/deployments/:id') ? depRoute(method, pattern, op, scope, fail) : { method, pattern, op, scope, handler: fail };
});
