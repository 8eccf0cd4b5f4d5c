/** The ignore matcher of a root: ignore.ts's rules with the root's `.syncignore` read from disk. */
import fs from 'node:fs/promises';
import path from 'node:path';
import {
  composeIgnorePatterns,
  createIgnoreMatcher,
  enforcedPatterns,
  parseIgnoreFile,
  SYNCIGNORE_FILE,
  type IgnoreMatcher,
  type IgnoreMatcherOptions,
  type ProtectedFiles,
} from './ignore.js';

/** Defaults + `<root>/.syncignore` (missing file = no patterns) + config patterns. */
export async function loadIgnoreMatcher(
  root: string,
  configPatterns: readonly string[] = [],
  options: IgnoreMatcherOptions = {},
  /** The .gitignore rules to apply too (local/gitignore.ts), when hostsync.json says so. */
  gitignore: readonly string[] = [],
  files: ProtectedFiles = {},
): Promise<IgnoreMatcher> {
  let syncignore: string[] = [];
  try {
    syncignore = parseIgnoreFile(await fs.readFile(path.join(root, SYNCIGNORE_FILE), 'utf8'));
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
  return createIgnoreMatcher(composeIgnorePatterns(syncignore, configPatterns, gitignore, files), { ...options, enforced: enforcedPatterns(files) });
}
