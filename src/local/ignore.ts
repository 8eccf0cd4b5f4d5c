/**
 * The one ignore matcher: built-in defaults, then `.syncignore` at the root, then config
 * patterns, in gitignore syntax (the `ignore` package). The same matcher decides what the
 * scan walks, what the watcher watches, and (through `patterns`) what files.index skips
 * on the remote, so the three can never disagree about a path.
 *
 * Matching is case-insensitive (the `ignore` package's default): a pattern meant to keep
 * secrets out (`.env*`, `id_rsa*`) must also catch `.ENV` or `ID_RSA`. This errs towards
 * not uploading, unlike git on Linux (case-sensitive).
 *
 * Rules only, no disk: reading `.syncignore` is ignore-file.ts's, so the sync core can
 * build and apply matchers without loading an I/O module.
 */
import { createHash } from 'node:crypto';
import { createRequire } from 'node:module';
import type { Ignore, Options as IgnoreOptions } from 'ignore';
import { IGNORE_CACHE_MAX_PATHS } from './tunables.js';
import { fileNameCheck, folderNameCheck } from './ignore-names.js';
import { OWN_TEMP_PATTERNS } from './temp-names.js';

// CommonJS packages are required, not imported: see docs/decisions.md, "Start-up".
const require = createRequire(import.meta.url);
const ignore = require('ignore') as (options?: IgnoreOptions) => Ignore;

/**
 * The `.env*` names that are not examples: an example (`.env.example`, `.env.sample`,
 * `.env.template`) documents the variables and holds no value, so it may travel when a
 * rule re-includes it; every other `.env*` file is a credential.
 */
export const ENV_EXAMPLES: readonly string[] = Object.freeze(['.env.example', '.env.sample', '.env.template']);

/**
 * Gitignore patterns matching exactly the file names that start with `prefix` and are
 * none of `except` (each starting with `prefix`), in shapes ignore-names.ts understands:
 * for every prefix on the way to an exception, the name itself, and the names that go on
 * with a character leading to no exception. Gitignore has no "but not", hence the walk.
 */
export function namesExcept(prefix: string, except: readonly string[]): string[] {
  const out: string[] = [];
  const walk = (at: string, rest: readonly string[]): void => {
    if (rest.length === 0) {
      out.push(`${at}*`);
      return;
    }
    if (!rest.includes('')) out.push(at);
    const next = [...new Set(rest.filter((r) => r !== '').map((r) => r[0]!.toLowerCase()))].sort();
    out.push(next.length === 0 ? `${at}?*` : `${at}[!${next.join('')}]*`);
    for (const c of next) walk(at + c, rest.filter((r) => r !== '' && r[0]!.toLowerCase() === c).map((r) => r.slice(1)));
  };
  walk(prefix, except.map((e) => e.slice(prefix.length).toLowerCase()));
  return out;
}

/** The credentials other than `.env` files: private keys, and the stores people keep in (or copy into) a project folder. */
const KEY_AND_STORE_PATTERNS: readonly string[] = Object.freeze([
  '*.pem',
  '*.key',
  'id_rsa*',
  'id_dsa*',
  'id_ecdsa*',
  'id_ed25519*',
  '*.p12',
  '*.pfx',
  '.netrc',
  '.pypirc',
  '.ssh/',
  '.aws/',
  '**/.docker/config.json',
  'credentials.json',
  '*.kdbx',
]);

/**
 * Credentials: private keys, `.env` files (not examples), credential stores. Enforced: no
 * `!` in `.syncignore` or "ignore" brings one back (a `.syncignore` can arrive from the
 * deployment by pull); only "sendSecrets" in the local hostsync.json lets a listed file
 * through. What a path named on the command line still meets in full (sync/scope.ts);
 * the whole-tree list carries only what its own rules need (credentialTail).
 */
export const CREDENTIAL_PATTERNS: readonly string[] = Object.freeze([...namesExcept('.env', ENV_EXAMPLES), ...KEY_AND_STORE_PATTERNS]);

/** What never leaves the machine unless `.syncignore` or config re-includes it with `!` (credentials: see CREDENTIAL_PATTERNS). */
export const DEFAULT_IGNORE_PATTERNS: readonly string[] = Object.freeze([
  '.git/',
  'node_modules/',
  '.hostsync/',
  // Every `.env*` name, examples too: an example goes only when a rule re-includes it.
  '.env*',
  ...KEY_AND_STORE_PATTERNS,
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

/** The enforced rules a path named on the command line meets (no "sendSecrets", no env file): every credential, then `.hostsync/`. */
export const NAMED_PATH_PATTERNS: readonly string[] = Object.freeze([...CREDENTIAL_PATTERNS, ...ENFORCED_IGNORE_PATTERNS]);

/** The last segment of a pattern (no `!`, no trailing `/`): what a file's own name must match. */
function lastSegment(pattern: string): string {
  const body = (pattern.startsWith('!') ? pattern.slice(1) : pattern).replace(/\/+$/, '');
  return body.slice(body.lastIndexOf('/') + 1);
}

/** Whether a pattern whose last segment is `last` may match a file named like an example (any doubt: yes). */
function mayMatchExample(last: string): boolean {
  if (last.includes('\\')) return true;
  try {
    const ig = ignorePackageOver([last]);
    return ENV_EXAMPLES.some((name) => ig.ignores(name));
  } catch {
    return true;
  }
}

/**
 * The credential rules the whole-tree list needs after the user's (`.syncignore`, then
 * "ignore"; they follow the defaults, which already hold every credential): the same
 * verdict as CREDENTIAL_PATTERNS there, in fewer patterns, because files.index matches
 * each one against every path the server walks.
 * - No `!` among them: nothing re-includes a credential the defaults keep local; none.
 * - Else the keys and stores, and for `.env` files: `.env*`, then again, in order, every
 *   rule whose last segment is an example's name (`!.env.example`), so an example keeps
 *   the user's verdict (only the defaults' `.env*` and those rules can match it).
 * - A rule that could match an example otherwise (`!*`, `*.example`) leaves no such
 *   shortcut: the exact `.env*`-but-examples patterns (namesExcept).
 */
export function credentialTail(userRules: readonly string[]): string[] {
  if (!userRules.some((p) => p.startsWith('!'))) return [];
  const examples: string[] = [];
  for (const p of userRules) {
    const last = lastSegment(p);
    if (ENV_EXAMPLES.includes(last.toLowerCase())) examples.push(p);
    else if (mayMatchExample(last)) return [...CREDENTIAL_PATTERNS];
  }
  return [...KEY_AND_STORE_PATTERNS, '.env*', ...examples];
}

/** What the local hostsync.json adds to the enforced rules. */
export interface ProtectedFiles {
  /** Root-relative files "sendSecrets" lets through the credential rules (the ordinary rules still apply). */
  sendSecrets?: readonly string[];
  /** Root-relative files never synced, whatever else says (the configured env file). */
  neverSync?: readonly string[];
}

/** A gitignore pattern matching exactly the root-relative path `rel` (anchored, wildcards escaped). */
export function literalPattern(rel: string): string {
  return `/${rel.replace(/[\\*?[\]]/g, (c) => `\\${c}`).replace(/ $/, '\\ ')}`;
}

/** Credential folders (`.ssh/`, `.aws/`) hide everything inside: a file listed in "sendSecrets" there needs its folder re-included, and the rest of it excluded again. */
const CREDENTIAL_FOLDERS = new Set(CREDENTIAL_PATTERNS.filter((p) => /^[^/*]+\/$/.test(p)).map((p) => p.slice(0, -1).toLowerCase()));

/** protectedPatterns' last answer, by its input. */
let lastProtected: { key: string; patterns: readonly string[] } | null = null;

/**
 * The rules after the credentials, in order: what "sendSecrets" lets through, what is never
 * synced, `.hostsync/`. Worked out once per input: every matcher a process builds asks twice
 * (its rules and the enforced ones), and a watch answering `status` builds one per question
 * (~4 ms each: a matcher is built to test the never-synced files).
 */
function protectedPatterns(files: ProtectedFiles): string[] {
  const key = JSON.stringify([files.sendSecrets ?? [], files.neverSync ?? []]);
  if (lastProtected === null || lastProtected.key !== key) lastProtected = { key, patterns: computeProtectedPatterns(files) };
  return [...lastProtected.patterns];
}

function computeProtectedPatterns(files: ProtectedFiles): string[] {
  const allow: string[] = [];
  for (const rel of files.sendSecrets ?? []) {
    const parts = rel.split('/');
    for (let i = 1; i < parts.length; i++) {
      if (!CREDENTIAL_FOLDERS.has(parts[i - 1]!.toLowerCase())) continue;
      const folder = literalPattern(parts.slice(0, i).join('/'));
      allow.push(`!${folder}/`, `${folder}/*`);
    }
    allow.push(`!${literalPattern(rel)}`);
  }
  const base = createIgnoreMatcher([...CREDENTIAL_PATTERNS, ...allow]);
  // A never-synced file the credential rules already catch (.env, the default) adds nothing: the list, and what it keys, stay as they were.
  const deny = (files.neverSync ?? []).filter((rel) => !base.ignores(rel, false)).map(literalPattern);
  return [...allow, ...deny, ...ENFORCED_IGNORE_PATTERNS];
}

/** The enforced rules alone, for a path named on the command line: every credential, "sendSecrets", the env files, `.hostsync/`. */
export function enforcedPatterns(files: ProtectedFiles = {}): string[] {
  return [...CREDENTIAL_PATTERNS, ...protectedPatterns(files)];
}

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
  /**
   * The enforced rules alone (credentials, "sendSecrets", the env file, `.hostsync/`): what
   * still applies to a path the user names (sync/scope.ts). Unset: NAMED_PATH_PATTERNS.
   */
  readonly enforced?: IgnoreMatcher;
}

export interface IgnoreMatcherOptions {
  /**
   * Distinct paths the matcher answers before it drops its answer cache. The `ignore`
   * package memoises every path (and every parent) forever; a daemon that watches a
   * tree for days would grow without bound.
   */
  cacheMaxPaths?: number;
  /** The enforced rules of this list (IgnoreMatcher.enforced). */
  enforced?: readonly string[];
}

let ignoreVersion: string | undefined;

/**
 * The key of a matcher over `patterns`: the patterns, and the version of the `ignore`
 * package, whose fixes can change an answer (a path kept by one release may be ignored by
 * the next: a remembered answer must not outlive the code that gave it).
 */
function matcherKey(patterns: readonly string[]): string {
  if (ignoreVersion === undefined) {
    // A require, not a path beside require.resolve('ignore'): in the CLI bundle it names the copy the bundle holds.
    ignoreVersion = String((require('ignore/package.json') as { version?: unknown }).version);
  }
  return createHash('sha256').update(JSON.stringify([ignoreVersion, patterns])).digest('hex').slice(0, 32);
}

class BoundedIgnoreMatcher implements IgnoreMatcher {
  readonly patterns: readonly string[];
  readonly key: string;
  readonly enforced?: IgnoreMatcher;
  private readonly cacheMaxPaths: number;
  private ig: Ignore;
  /** Queries since the last rebuild: an upper bound on the cached paths it answered. */
  private queries = 0;
  /** False for a file name no pattern can match (ignore-names.ts); null: every file is asked. */
  private readonly nameCheck: ((name: string) => boolean) | null;
  /** The same for a folder's name (folderNameCheck): a cold walk asks about every folder. */
  private readonly folderCheck: ((name: string) => boolean) | null;
  /** See folderIgnored (`ig`: the package instance that answered, so a rebuild forgets it). */
  private lastFolder: { ig: Ignore; folder: string; ignored: boolean } | null = null;

  constructor(patterns: readonly string[], options: IgnoreMatcherOptions) {
    this.patterns = Object.freeze([...patterns]);
    this.key = matcherKey(this.patterns);
    this.nameCheck = fileNameCheck(this.patterns);
    this.folderCheck = folderNameCheck(this.patterns);
    this.cacheMaxPaths = options.cacheMaxPaths ?? IGNORE_CACHE_MAX_PATHS;
    if (options.enforced) this.enforced = new BoundedIgnoreMatcher(options.enforced, { cacheMaxPaths: this.cacheMaxPaths });
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
    const check = isDir ? this.folderCheck : this.nameCheck;
    if (check !== null && relPath.charCodeAt(0) !== 0x2f && !relPath.includes('//') && !relPath.includes('\\')) {
      const slash = relPath.lastIndexOf('/');
      // No pattern can match the file (or folder) itself: it is ignored exactly when its
      // folder is, as the package itself decides it (a path's folder first, then the patterns).
      if (!check(slash === -1 ? relPath : relPath.slice(slash + 1))) return slash !== -1 && this.folderIgnored(relPath, slash + 1);
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
 * defaults, `.syncignore`, config, then the enforced ones (credentialTail, "sendSecrets",
 * the env files, `.hostsync/`). The .gitignore goes first so none of its `!` rules can
 * bring back what the defaults keep local (`.env*`, keys).
 */
export function composeIgnorePatterns(syncignore: readonly string[], configPatterns: readonly string[] = [], gitignore: readonly string[] = [], files: ProtectedFiles = {}): string[] {
  const user = [...syncignore, ...configPatterns];
  return [...gitignore, ...DEFAULT_IGNORE_PATTERNS, ...user, ...credentialTail(user), ...protectedPatterns(files)];
}
