/**
 * Whether "dir" still holds what the sources would build, for `status` of a project with a
 * "build" (push runs the build first, so a stale or missing `dist/` is not "nothing to
 * push"). Cheap: the time push last started the build (state/last-build.ts) against the
 * modification times of the project's files outside "dir", node_modules and dot-folders,
 * stopping at the first few newer ones.
 */
import { lstatSync } from 'node:fs';
import { stat } from 'node:fs/promises';
import path from 'node:path';
import { CONFIG_FILE } from '../config/config.js';
import { SYNCIGNORE_FILE } from '../local/ignore.js';
import { visitTree } from '../local/walk.js';
import { loadLastBuild } from '../state/last-build.js';
import { BUILD_FRESHNESS_MAX_FILES, BUILD_FRESHNESS_SHOWN } from './tunables.js';

export interface BuildFreshness {
  command: string;
  /** When push last started the build, ISO; null when hostsync never ran it here. */
  lastBuiltAt: string | null;
  /** "dir" does not exist yet. */
  unbuilt: boolean;
  /** Up to BUILD_FRESHNESS_SHOWN sources saved after the last build started. */
  changedSince: string[];
  /** The look stopped at BUILD_FRESHNESS_MAX_FILES files: more may have changed. */
  partial: boolean;
}

/** Folders never looked into: dependencies and tools' own state, never sources. */
const SKIPPED = new Set(['node_modules', '__pycache__', 'venv']);
/** hostsync's own files at the project root: not what the build reads. */
const OWN_FILES = new Set([CONFIG_FILE, SYNCIGNORE_FILE]);

export async function buildFreshness(projectRoot: string, syncRoot: string, command: string): Promise<BuildFreshness> {
  const last = await loadLastBuild(projectRoot);
  const unbuilt = !(await stat(syncRoot).then((s) => s.isDirectory(), () => false));
  const out: BuildFreshness = { command, lastBuiltAt: last ? new Date(last.startedAt).toISOString() : null, unbuilt, changedSince: [], partial: false };
  if (last === null || unbuilt) return out;
  const dirRel = path.relative(projectRoot, syncRoot).split(path.sep).join('/');
  let seen = 0;
  visitTree(projectRoot, {
    entry: (d, rel, abs) => {
      if (d.isDirectory()) return SKIPPED.has(d.name) || d.name.startsWith('.') || rel === dirRel ? undefined : 'descend';
      if (!d.isFile() || OWN_FILES.has(rel)) return undefined;
      if (++seen > BUILD_FRESHNESS_MAX_FILES) {
        out.partial = true;
        return 'stop';
      }
      try {
        if (lstatSync(abs).mtimeMs > last.startedAt) out.changedSince.push(rel);
      } catch {
        // Gone meanwhile: not a source that changed.
      }
      return out.changedSince.length >= BUILD_FRESHNESS_SHOWN ? 'stop' : undefined;
    },
  });
  return out;
}

/** Whether status must say that push would send something else than what it compared. */
export const buildIsStale = (b: BuildFreshness | null): boolean => b !== null && (b.unbuilt || b.lastBuiltAt === null || b.changedSince.length > 0);
