/**
 * packages.list/add/remove: edit the manifest in the volume (package.json for npm,
 * requirements.txt for pip). The service pins the registry's current version when
 * `spec` is omitted; the emulator reaches no registry, so it writes `latest` (npm) or
 * leaves the requirement unpinned (pip) — documented in docs/emulator.md's stand-ins table.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { depRoute, type Ctx, type Route } from './context.js';
import type { EmulatedDeployment } from './deployment.js';
import { badRequest, notFound } from './errors.js';
import { optBool, optString, reqString } from './validate.js';

type Manager = 'npm' | 'pip';
interface Pkg { name: string; spec: string; dev: boolean }
interface PackagesAnswer { manager: Manager; file: string; exists: boolean; packages: Pkg[] }

const FILES: Record<Manager, string> = { npm: 'package.json', pip: 'requirements.txt' };
const NPM_NAME = /^(@[a-z0-9][a-z0-9._~-]*\/)?[a-z0-9][a-z0-9._~-]*$/;
const PIP_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]*(\[[A-Za-z0-9,._-]+\])?$/;
/** name, then an optional version clause (==1.2, >=1,<2, ~=1.4); comments and options are kept as they are. */
const PIP_LINE = /^\s*([A-Za-z0-9][A-Za-z0-9._-]*(?:\[[A-Za-z0-9,._-]+\])?)\s*((?:[=<>!~]=?|===)[^#;]*)?/;

function managerOf(raw: string | null | undefined): Manager {
  if (raw === 'npm' || raw === 'pip') return raw;
  throw badRequest('manager must be npm or pip');
}

async function readText(dep: EmulatedDeployment, rel: string): Promise<string | null> {
  try {
    return await readFile(dep.volume.resolve(rel).abs, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw err;
  }
}

function npmPackages(json: Record<string, unknown>): Pkg[] {
  const out: Pkg[] = [];
  for (const [field, dev] of [['dependencies', false], ['devDependencies', true]] as const) {
    const deps = json[field];
    if (deps && typeof deps === 'object') for (const [name, spec] of Object.entries(deps)) out.push({ name, spec: String(spec), dev });
  }
  return out;
}

function parseManifest(text: string): Record<string, unknown> {
  try {
    const v = JSON.parse(text) as unknown;
    if (v && typeof v === 'object' && !Array.isArray(v)) return v as Record<string, unknown>;
  } catch {
    /* fall through */
  }
  throw badRequest('package.json in the deployment is not a JSON object; fix it with files.write first', 'bad_manifest');
}

function pipPackages(text: string): Pkg[] {
  const out: Pkg[] = [];
  for (const line of text.split('\n')) {
    if (/^\s*(#|-)/.test(line)) continue;
    const m = PIP_LINE.exec(line);
    if (m) out.push({ name: m[1]!, spec: (m[2] ?? '').trim(), dev: false });
  }
  return out;
}

const sameName = (a: string, b: string): boolean => a.toLowerCase().replace(/[-_.]+/g, '-') === b.toLowerCase().replace(/[-_.]+/g, '-');

async function answer(dep: EmulatedDeployment, manager: Manager): Promise<PackagesAnswer> {
  const file = FILES[manager];
  const text = await readText(dep, file);
  if (text === null) return { manager, file, exists: false, packages: [] };
  return { manager, file, exists: true, packages: manager === 'npm' ? npmPackages(parseManifest(text)) : pipPackages(text) };
}

async function change(ctx: Ctx, dep: EmulatedDeployment, op: 'add' | 'remove'): Promise<PackagesAnswer> {
  const body = await ctx.body();
  const manager = managerOf(reqString(body, 'manager'));
  const name = reqString(body, 'name');
  if (!(manager === 'npm' ? NPM_NAME : PIP_NAME).test(name)) throw badRequest(`${name} is not a valid ${manager} package name`);
  const spec = op === 'add' ? optString(body, 'spec') : undefined;
  const dev = op === 'add' ? optBool(body, 'dev') ?? false : false;
  const file = FILES[manager];
  const abs = dep.volume.resolve(file).abs;
  const text = await readText(dep, file);
  if (manager === 'npm') {
    const json = text === null ? { name: dep.spec.name.toLowerCase().replace(/[^a-z0-9-]+/g, '-'), version: '1.0.0' } : parseManifest(text);
    const fields = ['dependencies', 'devDependencies'] as const;
    const present = fields.some((f) => (json[f] as Record<string, string> | undefined)?.[name] !== undefined);
    if (op === 'remove' && !present) throw notFound(`${name} is not in package.json`, 'package_not_found');
    for (const f of fields) {
      const deps = json[f] as Record<string, string> | undefined;
      if (deps) delete deps[name];
    }
    if (op === 'add') {
      const field = dev ? 'devDependencies' : 'dependencies';
      const deps = ((json[field] as Record<string, string> | undefined) ??= {});
      deps[name] = spec ?? 'latest';
    }
    await writeFile(abs, `${JSON.stringify(json, null, 2)}\n`);
  } else {
    if (dev) throw badRequest('dev applies to npm only; pip has no dev dependencies in requirements.txt');
    const lines = text === null ? [] : text.replace(/\n$/, '').split('\n');
    const keep = lines.filter((l) => {
      const m = /^\s*(#|-)/.test(l) ? null : PIP_LINE.exec(l);
      return !(m && sameName(m[1]!, name));
    });
    if (op === 'remove' && keep.length === lines.length) throw notFound(`${name} is not in requirements.txt`, 'package_not_found');
    if (op === 'add') keep.push(spec ? `${name}${spec.startsWith('=') || /^[<>!~]/.test(spec) ? spec : `==${spec}`}` : name);
    await writeFile(abs, keep.length ? `${keep.join('\n')}\n` : '');
  }
  return answer(dep, manager);
}

export const packageRoutes: Route[] = [
  depRoute('GET', '/deployments/:id/packages', 'packages.list', 'packages:read', (ctx, dep) => answer(dep, managerOf(ctx.query.get('manager')))),
  depRoute('POST', '/deployments/:id/packages', 'packages.add', 'packages:write', (ctx, dep) => change(ctx, dep, 'add')),
  depRoute('POST', '/deployments/:id/packages/remove', 'packages.remove', 'packages:write', (ctx, dep) => change(ctx, dep, 'remove')),
];
