/**
 * The one ignore matcher: built-in defaults, then `.syncignore` at the root, then config
 * patterns, in gitignore syntax (the `ignore` package). The same matcher decides what the
 * scan walks, what the watcher watches, and (through `patterns`) what files.index skips
 * on the remote, so the three can never disagree about a path.
 *
 * Matching is case-insensitive (the `ignore` package's default): a pattern meant to keep
 * secrets out (`.env*`, `id_rsa*`) must also catch `.ENV` or `ID_RSA`. This errs towards
 * not uploading, unlike git on Linux (case-sensitive).
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import fs from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import type { Ignore, Options as IgnoreOptions } from 'ignore';
import { IGNORE_CACHE_MAX_PATHS } from './tunables.js';
import { fileNameCheck } from './ignore-names.js';
import { OWN_TEMP_PATTERNS } from './temp-names.js';

// CommonJS packages are required, not imported: see README, "Start-up".
const require = createRequire(import.meta.url);
const ignore = require('ignore') as (options?: IgnoreOptions) => Ignore;

/** What never leaves the machine unless `.syncignore` or config re-includes it with `!`. */
export const DEFAULT_IGNORE_PATTERNS: readonly string[] = Object.freeze([
  '.git/',
  'node_modules/',
  '.hostsync/',
  '.env*',
  '*.pem',
  '*.key',
  'id_rsa*',
  'id_dsa*',
  'id_ecdsa*',
  'id_ed25519*',
  '*.p12',
  '*.pfx',
  // Credential stores people keep in (or copy into) a project folder.
  '.netrc',
  '.ssh/',
  '.aws/',
  '**/.docker/config.json',
  'credentials.json',
  '*.kdbx',
  // Editors' transient save files: they live for milliseconds during an atomic save and
  // would only make a watch cycle send and then delete them.
  '*.swp',
  '*.swx',
  '*~',
  '4913',
  '*___jb_tmp___',
  '*___jb_old___',
  '.#*',
]);

/**
 * Appended after every other pattern, so no `!` can re-include them: `.hostsync/` holds
 * our own state (lock, stat cache, base snapshots), which must never be pushed; the temp
 * and part files of a pull killed mid-download (local/temp-names.ts) are not the user's.
 */
export const ENFORCED_IGNORE_PATTERNS: readonly string[] = Object.freeze(['.hostsync/', ...OWN_TEMP_PATTERNS]);

export const SYNCIGNORE_FILE = '.syncignore';

export interface IgnoreMatcher {
  /** relPath is POSIX relative to the root; isDir for directories. */
  ignores(relPath: string, isDir: boolean): boolean;
  /**
   * ignores(relPath, false) for a file named `name` whose folder (and every folder above it)
   * this matcher keeps, as in a walk, which enters only such folders: answered from the name
   * when no pattern can match it. Optional: a matcher without it is asked ignores().
   */
  ignoresFileIn?(relPath: string, name: string): boolean;
  /** Every pattern in order (defaults, .syncignore, config): handed to files.index `ignore`. */
  readonly patterns: readonly string[];
  /**
   * When set: two matchers with the same key answer every question alike, in this process
   * or a later one (the stat cache remembers which paths it kept, see StatCache.keptBy).
   * A matcher that answers anything differently from its patterns (a scoped one) has none.
   */
  readonly key?: string;
}

export interface IgnoreMatcherOptions {
  /**
   * Distinct paths the matcher answers before it drops its answer cache. The `ignore`
   * package memoises every path (and every parent) forever; a daemon that watches a
   * tree for days would grow without bound.
   */
  cacheMaxPaths?: number;
}

let ignoreVersion: string | undefined;

/**
 * The key of a matcher over `patterns`: the patterns, and the version of the `ignore`
 * package, whose fixes can change an answer (a path kept by one release may be ignored by
 * the next: a remembered answer must not outlive the code that gave it).
 */
function matcherKey(patterns: readonly string[]): string {
  if (ignoreVersion === undefined) {
    const main = require.resolve('ignore');
    ignoreVersion = String((JSON.parse(readFileSync(path.join(path.dirname(main), 'package.json'), 'utf8')) as { version?: unknown }).version);
  }
  return createHash('sha256').update(JSON.stringify([ignoreVersion, patterns])).digest('hex').slice(0, 32);
}

class BoundedIgnoreMatcher implements IgnoreMatcher {
  readonly patterns: readonly string[];
  readonly key: string;
  private readonly cacheMaxPaths: number;
  private ig: Ignore;
  /** Queries since the last rebuild: an upper bound on the cached paths it answered. */
  private queries = 0;
  /** False for a file name no pattern can match (ignore-names.ts); null: every file is asked. */
  private readonly nameCheck: ((name: string) => boolean) | null;
  /** See folderIgnored (`ig`: the package instance that answered, so a rebuild forgets it). */
  private lastFolder: { ig: Ignore; folder: string; ignored: boolean } | null = null;

  constructor(patterns: readonly string[], options: IgnoreMatcherOptions) {
    this.patterns = Object.freeze([...patterns]);
    this.key = matcherKey(this.patterns);
    this.nameCheck = fileNameCheck(this.patterns);
    this.cacheMaxPaths = options.cacheMaxPaths ?? IGNORE_CACHE_MAX_PATHS;
    this.ig = this.build();
  }

  ignores(relPath: string, isDir: boolean): boolean {
    if (relPath === '' || relPath === '.') return false; // the root itself is never ignored
    if (++this.queries > this.cacheMaxPaths) {
      this.ig = this.build();
      this.queries = 1;
    }
    // (Only for paths whose folder is their prefix up to the last "/", as the package takes
    // it: not absolute, no empty segment, no backslash the package turns into "/" on Windows.)
    if (!isDir && this.nameCheck !== null && relPath.charCodeAt(0) !== 0x2f && !relPath.includes('//') && !relPath.includes('\\')) {
      const slash = relPath.lastIndexOf('/');
      // No pattern can match the file itself: it is ignored exactly when its folder is, as
      // the package itself decides it (a path's folder first, then the patterns).
      if (!this.nameCheck(slash === -1 ? relPath : relPath.slice(slash + 1))) return slash !== -1 && this.folderIgnored(relPath, slash + 1);
    }
    // The `ignore` package tells a directory by its trailing slash (`dist/` matches only directories).
    return this.ig.ignores(isDir ? `${relPath}/` : relPath);
  }

  ignoresFileIn(relPath: string, name: string): boolean {
    // The package ignores a file in a kept folder only for a pattern matching it (see ignore-names.ts).
    if (this.nameCheck !== null && !this.nameCheck(name)) return false;
    return this.ignores(relPath, false);
  }

  /** The package's verdict on the folder `relPath.slice(0, end)` (with its "/"); the last one asked is remembered (a walk asks folder by folder). */
  private folderIgnored(relPath: string, end: number): boolean {
    const last = this.lastFolder;
    if (last !== null && last.ig === this.ig && last.folder.length === end && relPath.startsWith(last.folder)) return last.ignored;
    const folder = relPath.slice(0, end);
    const ignored = this.ig.ignores(folder);
    this.lastFolder = { ig: this.ig, folder, ignored };
    return ignored;
  }

  private build(): Ignore {
    return ignorePackageOver(this.patterns);
  }
}

/** The `ignore` package's matcher over `patterns`, as every matcher here builds it. */
export function ignorePackageOver(patterns: readonly string[]): Ignore {
  // allowRelativePaths: a legal name such as "..." must be matched, not thrown on;
  // our callers only ever pass paths already relative to the root.
  return ignore({ allowRelativePaths: true }).add([...patterns]);
}

/** A matcher over exactly these patterns, in this order (later patterns win, `!` re-includes). */
export function createIgnoreMatcher(patterns: readonly string[], options: IgnoreMatcherOptions = {}): IgnoreMatcher {
  return new BoundedIgnoreMatcher(patterns, options);
}

/**
 * The meaningful lines of a gitignore-syntax file: blank lines and `#` comments dropped
 * (an escaped `\#` stays), CR of CRLF files removed. What remains is passed unchanged to
 * both the local matcher and files.index.
 */
export function parseIgnoreFile(content: string): string[] {
  const out: string[] = [];
  for (const raw of content.split('\n')) {
    const line = raw.endsWith('\r') ? raw.slice(0, -1) : raw;
    if (line.trim() === '' || line.startsWith('#')) continue;
    out.push(line);
  }
  return out;
}

/**
 * The full pattern list in matching order: `.gitignore` (when hostsync.json says so), the
 * defaults, `.syncignore`, config, then the enforced ones. The .gitignore goes first so
 * none of its `!` rules can bring back what the defaults keep local (`.env*`, keys).
 */
export function composeIgnorePatterns(syncignore: readonly string[], configPatterns: readonly string[] = [], gitignore: readonly string[] = []): string[] {
  return [...gitignore, ...DEFAULT_IGNORE_PATTERNS, ...syncignore, ...configPatterns, ...ENFORCED_IGNORE_PATTERNS];
}

/** Defaults + `<root>/.syncignore` (missing file = no patterns) + config patterns. */
export async function loadIgnoreMatcher(
  root: string,
  configPatterns: readonly string[] = [],
  options: IgnoreMatcherOptions = {},
  /** The .gitignore rules to apply too (local/gitignore.ts), when hostsync.json says so. */
  gitignore: readonly string[] = [],
): Promise<IgnoreMatcher> {
  let syncignore: string[] = [];
  try {
    syncignore = parseIgnoreFile(await fs.readFile(path.join(root, SYNCIGNORE_FILE), 'utf8'));
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
  return createIgnoreMatcher(composeIgnorePatterns(syncignore, configPatterns, gitignore), options);
}
