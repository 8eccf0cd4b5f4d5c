/**
 * What `init` and `link` write into hostsync.json from the project's own files: the start
 * settings, the size and the hot paths (config/project-start.ts), and (init) the app's data
 * (config/app-data.ts). Only keys the file lacks are written: a value the user wrote is
 * never replaced.
 */
import { existsSync, readFileSync, statSync } from 'node:fs';
import { readdir, readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import type { ConfigFile } from '../config/config.js';
import { appDataPatterns, type AppDataFinding, type SourceFile } from '../config/app-data.js';
import { detectProjectStart, type ProjectStart } from '../config/project-start.js';
import { APP_DATA_SCAN_DEPTH, APP_DATA_SCAN_FILES, ENTRY_READ_MAX_BYTES } from './tunables.js';

const text = (file: string): Promise<string | null> => readFile(file, 'utf8').catch(() => null);

export async function detectStart(root: string): Promise<ProjectStart | null> {
  const inRoot = (rel: string): string | null => {
    const abs = path.resolve(root, rel);
    return abs === root || abs.startsWith(root + path.sep) ? abs : null;
  };
  return detectProjectStart({
    packageJson: await text(path.join(root, 'package.json')),
    requirements: await text(path.join(root, 'requirements.txt')),
    pyproject: await text(path.join(root, 'pyproject.toml')),
    procfile: await text(path.join(root, 'Procfile')),
    pythonVersion: (await text(path.join(root, 'runtime.txt'))) ?? (await text(path.join(root, '.python-version'))),
    exists: (rel) => {
      const abs = inRoot(rel);
      return abs !== null && existsSync(abs);
    },
    read: (rel) => {
      const abs = inRoot(rel);
      try {
        return abs !== null && statSync(abs).size <= ENTRY_READ_MAX_BYTES ? readFileSync(abs, 'utf8') : null;
      } catch {
        return null;
      }
    },
  });
}

/** The keys of a finding, as hostsync.json holds them (an empty size is left out). */
export function startKeys(start: ProjectStart | null): Partial<ConfigFile> {
  if (!start) return {};
  return {
    startup: start.startup,
    ...(Object.keys(start.size).length > 0 ? { size: start.size } : {}),
    hotPaths: start.hotPaths,
  };
}

/** Source files init reads for the app's data: code, not what a build or an install made. */
const SOURCE_EXT = /\.(?:[cm]?js|[cm]?ts|py)$/;
const NOT_SOURCE_DIRS = new Set(['node_modules', '.git', '.hostsync', 'venv', '.venv', 'env', '__pycache__', 'dist', 'build', '.next', 'coverage']);

/** The project's source files, breadth first within the bounds of app/tunables.ts (links not followed). */
async function sourceFiles(root: string): Promise<SourceFile[]> {
  const out: SourceFile[] = [];
  let level = [''];
  for (let depth = 0; depth <= APP_DATA_SCAN_DEPTH && level.length > 0 && out.length < APP_DATA_SCAN_FILES; depth++) {
    const next: string[] = [];
    for (const dir of level) {
      const entries = await readdir(path.join(root, dir), { withFileTypes: true }).catch(() => []);
      for (const e of entries.sort((a, b) => (a.name < b.name ? -1 : 1))) {
        const rel = dir === '' ? e.name : `${dir}/${e.name}`;
        if (e.isDirectory() && !NOT_SOURCE_DIRS.has(e.name)) next.push(rel);
        if (!e.isFile() || !SOURCE_EXT.test(e.name) || out.length >= APP_DATA_SCAN_FILES) continue;
        const abs = path.join(root, rel);
        const size = await stat(abs).then((st) => st.size, () => Infinity);
        const text = size <= ENTRY_READ_MAX_BYTES ? await readFile(abs, 'utf8').catch(() => null) : null;
        if (text !== null) out.push({ path: rel, text });
      }
    }
    level = next;
  }
  return out;
}

/** What init proposes as "remoteOwned" (config/app-data.ts); null when the code shows no data it writes. */
export async function detectAppData(root: string): Promise<AppDataFinding | null> {
  const found = appDataPatterns(await sourceFiles(root));
  return found.patterns.length > 0 ? found : null;
}
