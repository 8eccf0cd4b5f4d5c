/**
 * What `init` and `link` write into hostsync.json from the project's own files: the start
 * settings, the size and the hot paths (config/project-start.ts). Only keys the file lacks
 * are written: a value the user wrote is never replaced.
 */
import { existsSync, readFileSync, statSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import type { ConfigFile } from '../config/config.js';
import { detectProjectStart, type ProjectStart } from '../config/project-start.js';
import { ENTRY_READ_MAX_BYTES } from './tunables.js';

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
