/**
 * How a project starts, read from its own conventions the way Heroku and Railway read
 * them, so that `hostsync init` can write hostsync.json "startup", "size" and "hotPaths":
 * package.json `main`, `scripts.start`, `engines.node`; a Procfile; requirements.txt /
 * pyproject.toml and the usual Python entry names; index.html for a static site. Pure:
 * texts and the names that exist in, a finding out.
 */
import type { DeclaredSize, DeclaredStartup } from './deploy-settings.js';
import { npmPackages, pipPackages } from './project-kind.js';

export interface ProjectFiles {
  packageJson: string | null;
  requirements: string | null;
  pyproject: string | null;
  procfile: string | null;
  /** runtime.txt ("python-3.11.4") or .python-version ("3.11.4"). */
  pythonVersion: string | null;
  /** Which of the candidate paths (ENTRY_CANDIDATES, `main`, the start script's file, static folders) exist. */
  exists: (relPath: string) => boolean;
  /** The text of a file of the project, or null (for the entry file's static folder). */
  read: (relPath: string) => string | null;
}

export interface ProjectStart {
  startup: DeclaredStartup;
  /** Empty when nothing needs more than the default (a static site, a script without dependencies). */
  size: DeclaredSize;
  /** Paths the running app does not read at start-up (the static folder it serves); [] when hostsync cannot tell. */
  hotPaths: string[];
  /** What decided each value, for init's report. */
  notes: string[];
}

export const NODE_ENTRIES = ['index.js', 'server.js', 'app.js', 'bot.js', 'main.js', 'index.mjs', 'server.mjs', 'src/index.js'];
export const PYTHON_ENTRIES = ['main.py', 'app.py', 'bot.py', 'run.py', 'server.py'];

/**
 * The API document's memory guidance: 512 MB or more for npm install of a modern stack,
 * 1024 MB or more for a Svelte/Next build; the 256 MB default is killed with exit 137.
 */
export const RAM_MODERN_STACK_MB = 512;
export const RAM_FRONTEND_BUILD_MB = 1024;
/** Packages whose install or build needs the larger size (a Svelte/Next-class build). */
const FRONTEND_BUILDS = ['next', '@sveltejs/kit', 'svelte', 'vite', 'nuxt', 'astro', '@remix-run/dev', 'react-scripts', '@angular/core', 'gatsby'];

interface PackageJson {
  main?: unknown;
  scripts?: Record<string, unknown>;
  engines?: Record<string, unknown>;
}

const parseJson = (text: string): PackageJson | null => {
  try {
    const v = JSON.parse(text.replace(/^\uFEFF/, '')) as unknown;
    return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as PackageJson) : null;
  } catch {
    return null;
  }
};

const clean = (p: string): string => p.replace(/^\.\//, '');

/** `node bot.js`, `node ./src/index.js`: the file; null for anything else (tsx, next start, flags). */
function nodeTarget(command: string): string | null {
  const m = /^\s*node\s+((?:\.\/)?[\w./-]+\.(?:js|mjs|cjs))\s*$/.exec(command);
  return m ? clean(m[1]!) : null;
}

/** `python bot.py`, `python3 -u main.py`: the file; null otherwise. */
function pythonTarget(command: string): string | null {
  const m = /^\s*python3?\s+(?:-u\s+)?((?:\.\/)?[\w./-]+\.py)\b/.exec(command);
  return m ? clean(m[1]!) : null;
}

/** The first Procfile process (web before worker before anything else): its command. */
function procfileCommand(procfile: string | null): string | null {
  if (procfile === null) return null;
  const entries = procfile.split(/\r?\n/).map((l) => /^([\w-]+)\s*:\s*(.+)$/.exec(l.trim())).filter((m): m is RegExpExecArray => m !== null);
  const pick = entries.find((m) => m[1] === 'web') ?? entries.find((m) => m[1] === 'worker') ?? entries[0];
  return pick ? pick[2]!.trim() : null;
}

/** engines.node ">=20", "20.x", "^18.17.0": the major version as the API takes it ("20"). */
function nodeMajor(engines: unknown): string | null {
  if (typeof engines !== 'string') return null;
  const m = /(\d+)/.exec(engines);
  return m ? m[1]! : null;
}

/** "python-3.11.4" or "3.11.4": "3.11". */
function pythonMinor(text: string | null): string | null {
  if (text === null) return null;
  const m = /(\d+\.\d+)/.exec(text);
  return m ? m[1]! : null;
}

/**
 * The folder an Express-style server serves as static files (`express.static('public')`,
 * `serveStatic(path.join(__dirname, 'assets'))`, fastify-static's `root`): read per
 * request, never at start-up, so a change there needs no restart.
 */
export function servedStaticFolders(source: string): string[] {
  const out = new Set<string>();
  const call = /(?:express\.static|serveStatic|serve_static|root\s*:)\s*\(?\s*(?:path\.(?:join|resolve)\(\s*(?:__dirname|import\.meta\.dirname|process\.cwd\(\))\s*,\s*)?['"`](?:\.\/)?([\w.-]+(?:\/[\w.-]+)*)\/?['"`]/g;
  for (const m of source.matchAll(call)) {
    const dir = m[1]!;
    if (dir !== '.' && dir !== '..' && !dir.startsWith('..')) out.add(dir);
  }
  return [...out];
}

/** Flask's static folder: `static_folder="..."` when the app names one, else `static`. */
function flaskStatic(source: string | null): string {
  const m = source ? /static_folder\s*=\s*['"](?:\.\/)?([\w.-]+(?:\/[\w.-]+)*)\/?['"]/.exec(source) : null;
  return m ? m[1]! : 'static';
}

export function detectProjectStart(files: ProjectFiles): ProjectStart | null {
  const notes: string[] = [];
  if (files.packageJson !== null) {
    const pkg = parseJson(files.packageJson) ?? {};
    const scripts = pkg.scripts ?? {};
    const start = typeof scripts.start === 'string' ? scripts.start : null;
    const procfile = procfileCommand(files.procfile);
    const fromStart = start ? nodeTarget(start) : null;
    const fromProcfile = procfile ? nodeTarget(procfile) : null;
    const main = typeof pkg.main === 'string' ? clean(pkg.main) : null;
    const startup: DeclaredStartup = { runtime: 'nodejs' };
    const entry = [fromStart, fromProcfile, main].find((p): p is string => p !== null && files.exists(p)) ?? NODE_ENTRIES.find((p) => files.exists(p));
    if (entry) {
      startup.entryFile = entry;
      notes.push(`entry ${entry} (${entry === fromStart ? 'scripts.start' : entry === fromProcfile ? 'Procfile' : entry === main ? 'package.json "main"' : 'the file found'})`);
    }
    // A start script that is more than `node <entry>` is the start command; it keeps the install the default would do.
    if (start && !fromStart) {
      startup.startCommand = 'npm install && npm start';
      notes.push(`start command: npm start (scripts.start is "${start}")`);
    }
    const version = nodeMajor(pkg.engines?.node);
    if (version) {
      startup.runtimeVersion = version;
      notes.push(`Node ${version} (engines.node)`);
    }
    const deps = npmPackages(files.packageJson);
    const size: DeclaredSize = {};
    const heavy = deps.find((d) => FRONTEND_BUILDS.includes(d));
    if (heavy) {
      size.ramMB = RAM_FRONTEND_BUILD_MB;
      notes.push(`${RAM_FRONTEND_BUILD_MB} MB RAM (${heavy}: a front-end build needs it)`);
    } else if (deps.length > 0) {
      size.ramMB = RAM_MODERN_STACK_MB;
      notes.push(`${RAM_MODERN_STACK_MB} MB RAM (npm install of ${deps.length} package${deps.length === 1 ? '' : 's'}; less is killed with exit 137)`);
    }
    const source = entry ? files.read(entry) : null;
    const hotPaths = source ? servedStaticFolders(source).filter((d) => files.exists(d)).map((d) => `${d}/**`) : [];
    return { startup, size, hotPaths, notes };
  }
  const python = files.requirements !== null || files.pyproject !== null || PYTHON_ENTRIES.some((p) => files.exists(p));
  if (python) {
    const startup: DeclaredStartup = { runtime: 'python' };
    const procfile = procfileCommand(files.procfile);
    const fromProcfile = procfile ? pythonTarget(procfile) : null;
    const entry = (fromProcfile && files.exists(fromProcfile) ? fromProcfile : null) ?? PYTHON_ENTRIES.find((p) => files.exists(p));
    if (entry) {
      startup.entryFile = entry;
      notes.push(`entry ${entry} (${entry === fromProcfile ? 'Procfile' : 'the file found'})`);
    }
    if (procfile && !fromProcfile) {
      startup.startCommand = files.requirements !== null ? `pip install -r requirements.txt && ${procfile}` : procfile;
      notes.push(`start command from the Procfile (${procfile})`);
    }
    const version = pythonMinor(files.pythonVersion);
    if (version) {
      startup.runtimeVersion = version;
      notes.push(`Python ${version}`);
    }
    const reqs = files.requirements === null ? [] : pipPackages(files.requirements);
    const size: DeclaredSize = reqs.length > 0 || files.pyproject !== null ? { ramMB: RAM_MODERN_STACK_MB } : {};
    if (size.ramMB) notes.push(`${RAM_MODERN_STACK_MB} MB RAM (pip install)`);
    // Flask serves its static folder per request; templates are read (and cached) by the running app.
    const flask = reqs.some((r) => r.toLowerCase() === 'flask');
    const folder = flask ? flaskStatic(entry ? files.read(entry) : null) : null;
    const hotPaths = folder && files.exists(folder) ? [`${folder}/**`] : [];
    return { startup, size, hotPaths, notes };
  }
  if (files.exists('index.html')) {
    notes.push('a static site (index.html)');
    return { startup: { runtime: 'static', entryFile: 'index.html' }, size: {}, hotPaths: [], notes };
  }
  return null;
}
