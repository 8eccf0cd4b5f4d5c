/**
 * Environment variables (env.list, env.set, env.update, env.delete, env.audit). The user's
 * variables live on the deployment; the runner reads them at every (re)start, so a change
 * applies on the next one ("Changes apply on the next restart"). The node's own variables
 * (SERVER_PORT...) are listed as `system` and cannot be set or deleted.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import type { EnvAuditResult, EnvVariable } from '../api/types.js';
import { depRoute, type Ctx, type Route } from './context.js';
import type { EmulatedDeployment, EnvValue } from './deployment.js';
import { badRequest, conflict, forbidden, notFound } from './errors.js';
import { EMULATOR_AUDIT_MAX_FILE_BYTES, EMULATOR_AUDIT_MAX_FILES, EMULATOR_ENV_KEY_MAX, EMULATOR_ENV_VALUE_MAX } from './tunables.js';
import { optBool, optString, reqString } from './validate.js';

/** What env.list shows instead of a secret's value. */
export const MASK = '********';

const KEY = /^[A-Za-z_][A-Za-z0-9_]*$/;

function checkKey(dep: EmulatedDeployment, key: string, field: string): void {
  if (!KEY.test(key) || key.length > EMULATOR_ENV_KEY_MAX) {
    throw badRequest(`${field} "${key.slice(0, 64)}" must be letters, digits and _ (not starting with a digit), at most ${EMULATOR_ENV_KEY_MAX} characters`, 'invalid_key');
  }
  if (key in dep.runner.systemEnv()) throw forbidden(`${key} is a system variable set by the node; it cannot be changed`, 'system_variable');
}

function checkValue(value: string): void {
  if (value.length > EMULATOR_ENV_VALUE_MAX) throw badRequest(`value is longer than ${EMULATOR_ENV_VALUE_MAX} characters`, 'value_too_long');
}

function list(dep: EmulatedDeployment): { variables: EnvVariable[] } {
  const user = [...dep.env.entries()].map(([key, v]) => ({ key, value: v.secret ? MASK : v.value, secret: v.secret, system: false }));
  const system = Object.entries(dep.runner.systemEnv()).map(([key, value]) => ({ key, value, secret: false, system: true }));
  return { variables: [...user, ...system] };
}

async function set(ctx: Ctx, dep: EmulatedDeployment): Promise<{ ok: boolean; key: string }> {
  const body = await ctx.body();
  const key = reqString(body, 'key');
  const value = reqString(body, 'value', { allowEmpty: true });
  const secret = optBool(body, 'secret');
  checkKey(dep, key, 'key');
  checkValue(value);
  // An update that does not mention `secret` keeps the flag: a secret never turns plain by accident.
  dep.env.set(key, { value, secret: secret ?? dep.env.get(key)?.secret ?? false });
  ctx.core.persist();
  return { ok: true, key };
}

async function update(ctx: Ctx, dep: EmulatedDeployment): Promise<{ ok: boolean; key: string }> {
  const key = ctx.params.key ?? '';
  const current = dep.env.get(key);
  if (key in dep.runner.systemEnv()) throw forbidden(`${key} is a system variable set by the node; it cannot be changed`, 'system_variable');
  if (!current) throw notFound(`no variable ${key} on this deployment`, 'variable_not_found');
  const body = await ctx.body();
  const newKey = optString(body, 'newKey');
  const value = optString(body, 'value');
  const secret = optBool(body, 'secret');
  if (value !== undefined) checkValue(value);
  const next: EnvValue = { value: value ?? current.value, secret: secret ?? current.secret };
  if (newKey !== undefined && newKey !== key) {
    checkKey(dep, newKey, 'newKey');
    if (dep.env.has(newKey)) throw conflict(`a variable ${newKey} exists already: delete it first or pick another name`, 'variable_exists');
    dep.env.delete(key);
    dep.env.set(newKey, next);
    ctx.core.persist();
    return { ok: true, key: newKey };
  }
  dep.env.set(key, next);
  ctx.core.persist();
  return { ok: true, key };
}

async function remove(ctx: Ctx, dep: EmulatedDeployment): Promise<{ ok: boolean }> {
  const key = ctx.params.key ?? '';
  if (key in dep.runner.systemEnv()) throw forbidden(`${key} is a system variable set by the node; only user variables can be deleted`, 'system_variable');
  if (!dep.env.delete(key)) throw notFound(`no variable ${key} on this deployment`, 'variable_not_found');
  ctx.core.persist();
  return { ok: true };
}

/** Source files env.audit reads; vendored and generated folders are skipped like files.tree does. */
const CODE_EXT = new Set(['.js', '.mjs', '.cjs', '.jsx', '.ts', '.mts', '.cts', '.tsx', '.py', '.php', '.rb', '.c', '.cc', '.cpp', '.h', '.lua']);
const SKIP_DIRS = new Set(['node_modules', '.git', 'vendor', '.venv', 'venv', '__pycache__', '.cache', '.npm']);
/** The reads the document names, plus os.environ.get (the same read in Python). Group 1 is the key. */
const READS: readonly RegExp[] = [
  /process\.env\.([A-Za-z_][A-Za-z0-9_]*)/g,
  /process\.env\[\s*['"`]([A-Za-z_][A-Za-z0-9_]*)['"`]\s*\]/g,
  /os\.environ\[\s*['"]([A-Za-z_][A-Za-z0-9_]*)['"]\s*\]/g,
  /os\.environ\.get\(\s*['"]([A-Za-z_][A-Za-z0-9_]*)['"]/g,
  /\bgetenv\(\s*['"]([A-Za-z_][A-Za-z0-9_]*)['"]/g,
];
/** Values nobody means to keep. Compared whole and case-insensitively. */
const PLACEHOLDER = /^(?:|changeme|change[-_ ]?me|change[-_ ]?this|todo|tbd|fixme|xxx+|placeholder|replace[-_ ]?me|example|your[-_ ].*|your[A-Z_].*|<[^>]*>|\.\.\.|\*+)$/i;

/** Every code file of the volume (relative paths, sorted), up to the cap. */
function codeFiles(root: string): { files: string[]; truncated: boolean } {
  const files: string[] = [];
  let truncated = false;
  const walk = (dir: string, rel: string): void => {
    let entries;
    try {
      entries = readdirSync(dir, { withFileTypes: true });
    } catch {
      return;
    }
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const e of entries) {
      if (truncated) return;
      const r = rel ? `${rel}/${e.name}` : e.name;
      if (e.isDirectory()) {
        if (!SKIP_DIRS.has(e.name)) walk(path.join(dir, e.name), r);
      } else if (e.isFile() && CODE_EXT.has(path.extname(e.name).toLowerCase())) {
        if (files.length >= EMULATOR_AUDIT_MAX_FILES) truncated = true;
        else files.push(r);
      }
    }
  };
  walk(root, '');
  return { files, truncated };
}

function audit(dep: EmulatedDeployment): EnvAuditResult {
  const { files, truncated } = codeFiles(dep.volume.root);
  const used = new Map<string, Set<string>>();
  let skipped = 0;
  for (const rel of files) {
    const abs = path.join(dep.volume.root, rel);
    if ((statSync(abs, { throwIfNoEntry: false })?.size ?? 0) > EMULATOR_AUDIT_MAX_FILE_BYTES) {
      skipped++;
      continue;
    }
    const text = readFileSync(abs, 'utf8');
    for (const re of READS) {
      for (const m of text.matchAll(re)) {
        const key = m[1]!;
        if (!used.has(key)) used.set(key, new Set());
        used.get(key)!.add(rel);
      }
    }
  }
  const system = dep.runner.systemEnv();
  const isSet = (k: string): boolean => dep.env.has(k) || k in system;
  const keys = [...used.keys()].sort();
  const notes = [`${files.length} code file${files.length === 1 ? '' : 's'} read`];
  if (truncated) notes.push(`stopped at ${EMULATOR_AUDIT_MAX_FILES} files`);
  if (skipped > 0) notes.push(`${skipped} file(s) over ${EMULATOR_AUDIT_MAX_FILE_BYTES} bytes skipped`);
  return {
    used: keys.map((key) => ({ key, files: [...used.get(key)!].sort() })),
    missing: keys.filter((k) => !isSet(k)),
    unused: [...dep.env.keys()].filter((k) => !used.has(k)).sort(),
    placeholders: [...dep.env.entries()].filter(([, v]) => PLACEHOLDER.test(v.value.trim())).map(([k]) => k).sort(),
    note: `${notes.join('; ')}; keys only, never values`,
  };
}

export const envRoutes: Route[] = [
  depRoute('GET', '/deployments/:id/env', 'env.list', 'env:read', async (_ctx, dep) => list(dep)),
  depRoute('POST', '/deployments/:id/env', 'env.set', 'env:write', set),
  // Before /env/:key, so "audit" is never taken for a key.
  depRoute('GET', '/deployments/:id/env/audit', 'env.audit', 'env:read', async (_ctx, dep) => audit(dep)),
  depRoute('PATCH', '/deployments/:id/env/:key', 'env.update', 'env:write', update),
  depRoute('DELETE', '/deployments/:id/env/:key', 'env.delete', 'env:write', remove, { destructive: true }),
];
