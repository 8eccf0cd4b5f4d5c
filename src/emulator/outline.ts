/**
 * files.outline: functions, classes, exports and routes with line numbers, no bodies.
 * JavaScript is parsed with acorn; TypeScript with TypeScript's own parser when the
 * `typescript` package is installed (it is a dev dependency here), else by patterns;
 * Python, PHP and Go by patterns; JSON lists its top-level keys. A file that does not
 * parse falls back to patterns, and `note` says which files did.
 */
import { readdir, readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { parse as parseJs } from 'acorn';
import { depRoute, type Ctx, type Route } from './context.js';
import type { EmulatedDeployment } from './deployment.js';
import { fromFsError } from './errors.js';
import { EMULATOR_OUTLINE_MAX_BYTES, EMULATOR_OUTLINE_MAX_FILES } from './tunables.js';

export interface OutlineSymbol { kind: 'function' | 'class' | 'method' | 'export' | 'route' | 'type' | 'key'; name: string; line: number }
export interface OutlineFile { path: string; lines: number; symbols: OutlineSymbol[] }

const LANG: Record<string, 'js' | 'ts' | 'py' | 'php' | 'go' | 'json'> = {
  '.js': 'js', '.mjs': 'js', '.cjs': 'js', '.jsx': 'js', '.ts': 'ts', '.tsx': 'ts', '.mts': 'ts', '.cts': 'ts',
  '.py': 'py', '.php': 'php', '.go': 'go', '.json': 'json',
};
/** Folders files.tree also skips without includeVendor: dependencies, not the project's code. */
const VENDOR = new Set(['node_modules', 'vendor', '.git', '__pycache__', '.venv', 'venv', 'dist', 'build']);
const HTTP_METHODS = new Set(['get', 'post', 'put', 'patch', 'delete', 'all', 'use', 'options', 'head']);

// ---- JavaScript (acorn) ----

type Node = { type: string; start: number; [k: string]: unknown };

function lineAt(lineStarts: number[], offset: number): number {
  let lo = 0;
  let hi = lineStarts.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (lineStarts[mid]! <= offset) lo = mid;
    else hi = mid - 1;
  }
  return lo + 1;
}

/** `app.get('/x', ...)`, `router.post("/y")`: a route wherever it is called. */
function routeOf(node: Node): string | null {
  if (node.type !== 'CallExpression') return null;
  const callee = node.callee as Node;
  const args = node.arguments as Node[];
  if (callee?.type !== 'MemberExpression' || !args?.length) return null;
  const prop = callee.property as Node & { name?: string };
  const first = args[0] as Node & { value?: unknown };
  if (!prop?.name || !HTTP_METHODS.has(prop.name) || first.type !== 'Literal' || typeof first.value !== 'string' || !first.value.startsWith('/')) return null;
  return `${prop.name.toUpperCase()} ${first.value}`;
}

function walk(node: unknown, visit: (n: Node) => void): void {
  if (!node || typeof node !== 'object') return;
  if (Array.isArray(node)) return node.forEach((n) => walk(n, visit));
  const n = node as Node;
  if (typeof n.type !== 'string') return;
  visit(n);
  for (const [k, v] of Object.entries(n)) if (k !== 'loc' && v && typeof v === 'object') walk(v, visit);
}

function jsSymbols(text: string): OutlineSymbol[] {
  let program: Node;
  try {
    program = parseJs(text, { ecmaVersion: 'latest', sourceType: 'module', allowHashBang: true }) as unknown as Node;
  } catch {
    program = parseJs(text, { ecmaVersion: 'latest', sourceType: 'script', allowHashBang: true, allowReturnOutsideFunction: true }) as unknown as Node;
  }
  const starts = lineStartsOf(text);
  const out: OutlineSymbol[] = [];
  const at = (n: Node): number => lineAt(starts, n.start);
  const declare = (decl: Node | undefined, exported: boolean): void => {
    if (!decl) return;
    const id = (decl.id as { name?: string } | undefined)?.name;
    if (decl.type === 'FunctionDeclaration' && id) out.push({ kind: 'function', name: id, line: at(decl) });
    if (decl.type === 'ClassDeclaration' && id) {
      out.push({ kind: 'class', name: id, line: at(decl) });
      for (const m of ((decl.body as Node).body as Node[]) ?? []) {
        const key = (m.key as { name?: string } | undefined)?.name;
        if (m.type === 'MethodDefinition' && key) out.push({ kind: 'method', name: `${id}.${key}`, line: at(m) });
      }
    }
    if (decl.type === 'VariableDeclaration') {
      for (const d of decl.declarations as Node[]) {
        const name = (d.id as { name?: string }).name;
        const init = d.init as Node | null;
        if (name && init && (init.type === 'ArrowFunctionExpression' || init.type === 'FunctionExpression')) out.push({ kind: 'function', name, line: at(d) });
        if (name && exported) out.push({ kind: 'export', name, line: at(d) });
      }
    }
    if (exported && id && decl.type !== 'VariableDeclaration') out.push({ kind: 'export', name: id, line: at(decl) });
  };
  for (const stmt of program.body as Node[]) {
    if (stmt.type === 'ExportNamedDeclaration') {
      declare(stmt.declaration as Node | undefined, true);
      for (const s of (stmt.specifiers as Node[]) ?? []) out.push({ kind: 'export', name: (s.exported as { name?: string; value?: string }).name ?? String((s.exported as { value?: string }).value), line: at(s) });
    } else if (stmt.type === 'ExportDefaultDeclaration') {
      declare(stmt.declaration as Node, false);
      out.push({ kind: 'export', name: 'default', line: at(stmt) });
    } else declare(stmt, false);
  }
  walk(program, (n) => {
    const r = routeOf(n);
    if (r) out.push({ kind: 'route', name: r, line: at(n) });
  });
  return out;
}

// ---- TypeScript (TypeScript's parser, when installed) ----

type TsModule = typeof import('typescript');
let tsModule: Promise<TsModule | null> | null = null;
function loadTs(): Promise<TsModule | null> {
  tsModule ??= import('typescript').then((m) => ((m as { default?: TsModule }).default ?? m) as TsModule).catch(() => null);
  return tsModule;
}

function tsSymbols(ts: TsModule, file: string, text: string): OutlineSymbol[] {
  const sf = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const out: OutlineSymbol[] = [];
  const at = (n: import('typescript').Node): number => sf.getLineAndCharacterOfPosition(n.getStart(sf)).line + 1;
  const exported = (n: import('typescript').Node): boolean => (ts.getCombinedModifierFlags(n as import('typescript').Declaration) & ts.ModifierFlags.Export) !== 0;
  for (const st of sf.statements) {
    if (ts.isFunctionDeclaration(st) && st.name) out.push({ kind: 'function', name: st.name.text, line: at(st) });
    if (ts.isClassDeclaration(st) && st.name) {
      out.push({ kind: 'class', name: st.name.text, line: at(st) });
      for (const m of st.members) if (ts.isMethodDeclaration(m) && m.name && ts.isIdentifier(m.name)) out.push({ kind: 'method', name: `${st.name.text}.${m.name.text}`, line: at(m) });
    }
    if ((ts.isInterfaceDeclaration(st) || ts.isTypeAliasDeclaration(st)) && st.name) out.push({ kind: 'type', name: st.name.text, line: at(st) });
    if (ts.isVariableStatement(st)) {
      for (const d of st.declarationList.declarations) {
        if (!ts.isIdentifier(d.name)) continue;
        if (d.initializer && (ts.isArrowFunction(d.initializer) || ts.isFunctionExpression(d.initializer))) out.push({ kind: 'function', name: d.name.text, line: at(d) });
        if (exported(st)) out.push({ kind: 'export', name: d.name.text, line: at(d) });
      }
    } else if ((ts.isFunctionDeclaration(st) || ts.isClassDeclaration(st) || ts.isInterfaceDeclaration(st) || ts.isTypeAliasDeclaration(st)) && st.name && exported(st)) {
      out.push({ kind: 'export', name: st.name.text, line: at(st) });
    }
    if (ts.isExportAssignment(st)) out.push({ kind: 'export', name: 'default', line: at(st) });
  }
  const visit = (n: import('typescript').Node): void => {
    if (ts.isCallExpression(n) && ts.isPropertyAccessExpression(n.expression) && HTTP_METHODS.has(n.expression.name.text)) {
      const a = n.arguments[0];
      if (a && ts.isStringLiteralLike(a) && a.text.startsWith('/')) out.push({ kind: 'route', name: `${n.expression.name.text.toUpperCase()} ${a.text}`, line: at(n) });
    }
    ts.forEachChild(n, visit);
  };
  visit(sf);
  return out;
}

// ---- patterns (Python, PHP, Go, and JS/TS that would not parse) ----

const PATTERNS: Record<string, Array<[RegExp, OutlineSymbol['kind'], (m: RegExpExecArray) => string]>> = {
  py: [
    [/^class\s+([A-Za-z_]\w*)/, 'class', (m) => m[1]!],
    [/^(?:async\s+)?def\s+([A-Za-z_]\w*)/, 'function', (m) => m[1]!],
    [/^\s+(?:async\s+)?def\s+([A-Za-z_]\w*)/, 'method', (m) => m[1]!],
    [/^\s*@\w+(?:\.\w+)*\.(route|get|post|put|patch|delete)\(\s*['"]([^'"]+)['"]/, 'route', (m) => `${m[1] === 'route' ? 'ANY' : m[1]!.toUpperCase()} ${m[2]}`],
  ],
  php: [
    [/^\s*(?:abstract\s+|final\s+)?class\s+([A-Za-z_]\w*)/, 'class', (m) => m[1]!],
    [/^\s*(?:public\s+|private\s+|protected\s+|static\s+)*function\s+([A-Za-z_]\w*)/, 'function', (m) => m[1]!],
    [/Route::(get|post|put|patch|delete|any)\(\s*['"]([^'"]+)['"]/, 'route', (m) => `${m[1]!.toUpperCase()} ${m[2]}`],
  ],
  go: [
    [/^func\s+\([^)]*\)\s*([A-Za-z_]\w*)/, 'method', (m) => m[1]!],
    [/^func\s+([A-Za-z_]\w*)/, 'function', (m) => m[1]!],
    [/^type\s+([A-Za-z_]\w*)\s+(?:struct|interface)/, 'type', (m) => m[1]!],
    [/HandleFunc\(\s*"([^"]+)"/, 'route', (m) => `ANY ${m[1]}`],
  ],
  js: [
    [/^\s*(?:export\s+)?(?:default\s+)?(?:async\s+)?function\s*\*?\s*([A-Za-z_$][\w$]*)/, 'function', (m) => m[1]!],
    [/^\s*(?:export\s+)?(?:default\s+)?(?:abstract\s+)?class\s+([A-Za-z_$][\w$]*)/, 'class', (m) => m[1]!],
    [/^\s*(?:export\s+)?(?:const|let|var)\s+([A-Za-z_$][\w$]*)\s*(?::[^=]+)?=\s*(?:async\s*)?(?:\([^)]*\)|[A-Za-z_$][\w$]*)\s*(?::[^=]+)?=>/, 'function', (m) => m[1]!],
    [/\.(get|post|put|patch|delete|all|use)\(\s*['"`](\/[^'"`]*)['"`]/, 'route', (m) => `${m[1]!.toUpperCase()} ${m[2]}`],
  ],
};

function patternSymbols(lang: string, text: string): OutlineSymbol[] {
  const out: OutlineSymbol[] = [];
  text.split('\n').forEach((line, i) => {
    // One declaration per line (the first pattern that matches), plus any route on it.
    let declared = false;
    for (const [re, kind, name] of PATTERNS[lang] ?? []) {
      if (declared && kind !== 'route') continue;
      const m = re.exec(line);
      if (!m) continue;
      out.push({ kind, name: name(m), line: i + 1 });
      if (kind !== 'route') declared = true;
    }
  });
  return out;
}

function jsonSymbols(text: string): OutlineSymbol[] {
  const value = JSON.parse(text) as unknown;
  if (!value || typeof value !== 'object' || Array.isArray(value)) return [];
  const lines = text.split('\n');
  return Object.keys(value).map((k) => ({ kind: 'key' as const, name: k, line: Math.max(1, lines.findIndex((l) => l.includes(JSON.stringify(k))) + 1) }));
}

function lineStartsOf(text: string): number[] {
  const starts = [0];
  for (let i = 0; i < text.length; i++) if (text.charCodeAt(i) === 10) starts.push(i + 1);
  return starts;
}

/** The outline of one file's text; `parsed` is false when patterns stood in for a parser. */
export async function outlineText(file: string, text: string): Promise<{ symbols: OutlineSymbol[]; parsed: boolean }> {
  const lang = LANG[path.extname(file).toLowerCase()];
  try {
    if (lang === 'js') return { symbols: jsSymbols(text), parsed: true };
    if (lang === 'ts') {
      const ts = await loadTs();
      if (ts) return { symbols: tsSymbols(ts, file, text), parsed: true };
      return { symbols: patternSymbols('js', text), parsed: false };
    }
    if (lang === 'json') return { symbols: jsonSymbols(text), parsed: true };
  } catch {
    return { symbols: lang === 'json' ? [] : patternSymbols('js', text), parsed: false };
  }
  return { symbols: lang ? patternSymbols(lang, text) : [], parsed: lang !== undefined };
}

async function collect(dep: EmulatedDeployment, rel: string, out: string[], limit: number): Promise<boolean> {
  const abs = dep.volume.resolve(rel).abs;
  const entries = await readdir(abs, { withFileTypes: true });
  entries.sort((a, b) => a.name.localeCompare(b.name));
  for (const e of entries) {
    const child = rel ? `${rel}/${e.name}` : e.name;
    if (e.isDirectory()) {
      if (VENDOR.has(e.name)) continue;
      if (await collect(dep, child, out, limit)) return true;
    } else if (e.isFile() && LANG[path.extname(e.name).toLowerCase()]) {
      if (out.length >= limit) return true;
      out.push(child);
    }
  }
  return false;
}

async function outline(ctx: Ctx, dep: EmulatedDeployment): Promise<{ files: OutlineFile[]; truncated: boolean; note: string }> {
  const shown = ctx.query.get('path') ?? '';
  const { rel, abs } = dep.volume.resolve(shown);
  let st;
  try {
    st = await stat(abs);
  } catch (err) {
    throw fromFsError(err, shown);
  }
  const paths: string[] = [];
  const truncated = st.isDirectory() ? await collect(dep, rel, paths, EMULATOR_OUTLINE_MAX_FILES) : (paths.push(rel), false);
  const files: OutlineFile[] = [];
  const byPattern: string[] = [];
  for (const p of paths) {
    const fileAbs = dep.volume.resolve(p).abs;
    if ((await stat(fileAbs)).size > EMULATOR_OUTLINE_MAX_BYTES) continue;
    const text = await readFile(fileAbs, 'utf8');
    const { symbols, parsed } = await outlineText(p, text);
    if (!parsed) byPattern.push(p);
    files.push({ path: p, lines: text === '' ? 0 : text.split('\n').length - (text.endsWith('\n') ? 1 : 0), symbols });
  }
  const notes = [truncated ? `first ${EMULATOR_OUTLINE_MAX_FILES} files only; outline a subfolder for the rest` : '', byPattern.length ? `outlined by patterns (no parser, or it did not parse): ${byPattern.slice(0, 5).join(', ')}` : ''];
  return { files, truncated, note: notes.filter(Boolean).join('; ') };
}

export const outlineRoutes: Route[] = [depRoute('GET', '/deployments/:id/files/outline', 'files.outline', 'files:read', outline)];
