import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { usageError } from '../errors.js';
import { relPathProblem } from '../model/safe-path.js';
import { deploymentIdProblem } from '../model/deployment-id.js';
import { TARGET_KEYS, unknownKeyError } from './keys.js';
import { checkFileBaseUrl, isLoopback } from './trust.js';
import { validateBuild, validateSize, validateStartup, validateSyncDir, type DeclaredSize, type DeclaredStartup } from './deploy-settings.js';
import { findProjectRoot, findProjectUp } from './find-root.js';
import { assertSyncDirInside } from './sync-dir.js';
import { devEmulatorFor } from './dev-emulator.js';
import { targetOfFolder } from './target-folder.js';
import { createIgnoreMatcher, SYNCIGNORE_FILE } from '../local/ignore.js';
import { validateRestartSettings, type RestartSettings } from './restart-settings.js';
import { validateTokens } from './tokens.js';
import { startupForInstall, validateInstall, type InstallMode } from './install.js';
import { validateNotify, type NotifySettings } from './notify.js';
import { DEFAULT_HEALTH, validateHealth, type HealthSettings } from './health.js';
import { CONFIG_FILE, type ConfigFile, type LogLevel, type RestartPolicy, type Settings, type TargetSettings } from './config-file.js';
import { resolveRoot } from './find-root.js';

export { DEFAULT_HEALTH, type HealthKind, type HealthSettings } from './health.js';
export { CONFIG_FILE, type ConfigFile, type LogLevel, type RestartPolicy, type Settings, type TargetSettings } from './config-file.js';
export { resolveRoot } from './find-root.js';

/**
 * One validated configuration, merged from flags > environment > hostsync.json.
 * The API key comes from the environment only: a flag would show in `ps` and shell history.
 */
export interface Config {
  /** Absolute path of the synced root. */
  root: string;
  baseUrl: string;
  /** Where baseUrl came from, for messages: `--base-url (https://...)`, `HOSTSYNC_BASE_URL (...)`, `"baseUrl" in hostsync.json (...)`; empty without one. */
  baseUrlFrom: string;
  deploymentId: string;
  apiKey: string;
  /** Extra ignore patterns (gitignore syntax) from hostsync.json, after the defaults and .syncignore. */
  ignore: string[];
  restart: RestartPolicy;
  /** Gitignore-style patterns: a change touching only these applies with `restart: false`. */
  hotPaths: string[];
  /** Whether the root .gitignore also keeps files off the deployment; null: not decided yet (the first push asks). */
  gitignore: boolean | null;
  /** Seconds deployments.apply may wait for the app to settle; undefined lets the server default (20 after a restart). */
  applyWaitSeconds: number | undefined;
  /** How to judge that the app came up (hostsync.json "health"). */
  health: HealthSettings;
  logLevel: LogLevel;
  /** The target selected (flag > HOSTSYNC_TARGET > the one whose folder the command runs in > "defaultTarget"); null when hostsync.json has none or none was chosen. */
  target: string | null;
  /** The target was taken from the folder the command runs in (the CLI says so on stderr). */
  targetFromFolder: boolean;
  /** The selected target asks before anything is sent (`"confirm": true`); `--yes` answers for the user. */
  confirm: boolean;
  /** Environment file for `hostsync env`, relative to the root (default .env), POSIX, never outside it. */
  envFile: string;
  /** Every env file hostsync.json names (top level and targets, with .env): never synced to any deployment. */
  envFiles: string[];
  /** Root-relative credential files the user chose to send ("sendSecrets", top level of the local hostsync.json only). */
  sendSecrets: string[];
  /** HOSTSYNC_TIMEOUT: seconds an ordinary API call may take, whole (wall clock); undefined: the client's default (30 s). */
  timeoutSeconds: number | undefined;
  /** HOSTSYNC_DEADLINE: seconds a whole command may take; 0: none; undefined: the command's default. */
  deadlineSeconds: number | undefined;
  /** HOSTSYNC_FS: the local file system's traits, overriding the OS defaults (local/platform.ts, docs/platforms.md). */
  fs?: string;
  /**
   * Where hostsync.json and `.hostsync/` live; `root` is this or its "dir" (a build's
   * output). Optional for configurations built by hand: absent means `root`.
   */
  projectRoot?: string;
  /** hostsync.json "startup" and "size": what the deployment should run with (deploy-settings.ts). */
  startup?: DeclaredStartup;
  size?: DeclaredSize;
  /** hostsync.json "build": run in the project root before a push; null: none. */
  build?: string | null;
  /** The running `hostsync dev` emulator this command talks to, when nothing else named a service; null otherwise. */
  devEmulator?: string | null;
  /**
   * hostsync.json "remoteOwned" (top level only): gitignore-style patterns of the app's data
   * (a bot's SQLite or JSON files), the deployment's and never written, deleted or reverted
   * by hostsync (sync/core/remote-owned.ts). Optional for configurations built by hand: absent is none.
   */
  remoteOwned?: string[];
  /** hostsync.json "restartMinSeconds" and "restartsPerDay" as written (restart-settings.ts gives the defaults). */
  restarts?: RestartSettings;
  // Bots first (issue 47). Optional for configurations built by hand.
  /** hostsync.json "tokens": more variable names that hold a bot's token (config/tokens.ts). */
  tokens?: string[];
  /** hostsync.json "install" (config/install.ts); absent: "boot". */
  install?: InstallMode;
  /** hostsync.json "notify" (config/notify.ts); absent or null: none. */
  notify?: NotifySettings | null;
}

/** The folder that holds hostsync.json and `.hostsync/` (the project root), whatever folder is synced. */
export const projectRootOf = (config: Pick<Config, 'root' | 'projectRoot'>): string => config.projectRoot ?? config.root;




export interface ConfigFlags {
  dir?: string;
  deployment?: string;
  baseUrl?: string;
  logLevel?: string;
  target?: string;
}

/** The flags a command was given, as loadConfig takes them: only those set (an option left out is not an empty one). */
export function configFlags(given: { dir?: string | undefined; deployment?: string | undefined; baseUrl?: string | undefined; logLevel?: string | undefined; target?: string | undefined }): ConfigFlags {
  const flags: ConfigFlags = {};
  for (const k of ['dir', 'deployment', 'baseUrl', 'logLevel', 'target'] as const) {
    const v = given[k];
    if (v !== undefined) flags[k] = v;
  }
  return flags;
}

/**
 * `id`, named by `source` (`--deployment`, `HOSTSYNC_DEPLOYMENT`, `"deployment" in
 * hostsync.json`, ...), as a deployment id, or a usage error (exit 2) before any request:
 * the id is a segment of every API path (model/deployment-id.ts).
 */
export function checkDeploymentId(id: string, source: string): string {
  const why = deploymentIdProblem(id);
  if (why === null) return id;
  throw usageError(`${source} ${JSON.stringify(id)} is not a deployment id (${why}): an id is letters, digits, "_", "-" and "." (not first); use the id \`hostsync link\` lists, or run it to pick one`);
}

/** Target names are used in messages and flags: keep them to one shell word. */
export const TARGET_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

const RESTART_POLICIES: readonly RestartPolicy[] = ['auto', 'always', 'never'];
const LOG_LEVELS: readonly LogLevel[] = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];


export async function readConfigFile(root: string): Promise<ConfigFile> {
  const file = path.join(root, CONFIG_FILE);
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return {};
    throw usageError(`cannot read ${file} (${(err as NodeJS.ErrnoException).code ?? 'error'}): check its permissions`);
  }
  let parsed: unknown;
  try {
    // Editors on Windows save UTF-8 with a byte-order mark; JSON.parse refuses it.
    parsed = JSON.parse(text.replace(/^\uFEFF/, ''));
  } catch (err) {
    throw usageError(`${file} is not valid JSON (${(err as Error).message}): fix it, or move it away and run \`hostsync init\` to write a new one`);
  }
  return validateConfigFile(parsed, file);
}

function validateConfigFile(value: unknown, file: string): ConfigFile {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw usageError(`${file} must hold a JSON object: fix it, or move it away and run \`hostsync init\` to write a new one`);
  }
  const v = value as Record<string, unknown>;
  const unknownKey = unknownKeyError(v, file);
  if (unknownKey) throw unknownKey;
  const out: ConfigFile = validateSettings(v, file, '');
  if (v.sendSecrets !== undefined) {
    if (!Array.isArray(v.sendSecrets) || v.sendSecrets.some((p) => typeof p !== 'string' || p === '')) {
      throw usageError(`${file}: "sendSecrets" must be an array of file paths, e.g. [".env.production"]`);
    }
    out.sendSecrets = (v.sendSecrets as string[]).map((p) => insideRoot(p, file, 'sendSecrets', 'a file path'));
  }
  if (v.remoteOwned !== undefined) out.remoteOwned = validateRemoteOwned(v.remoteOwned, file);
  if (v.tokens !== undefined) out.tokens = validateTokens(v.tokens, file);
  if (v.notify !== undefined) out.notify = validateNotify(v.notify, file);
  if (v.targets !== undefined) {
    if (typeof v.targets !== 'object' || v.targets === null || Array.isArray(v.targets)) {
      throw usageError(`${file}: "targets" must be an object of named targets, e.g. {"staging": {"deployment": "..."}}`);
    }
    const targets: Record<string, TargetSettings> = {};
    for (const [name, t] of Object.entries(v.targets as Record<string, unknown>)) {
      if (!TARGET_NAME.test(name)) throw usageError(`${file}: target name "${name}" must be letters, digits, ".", "_" or "-" (one word)`);
      if (typeof t !== 'object' || t === null || Array.isArray(t)) throw usageError(`${file}: target "${name}" must be an object, e.g. {"deployment": "..."}`);
      const tv = t as Record<string, unknown>;
      const unknownInTarget = unknownKeyError(tv, file, TARGET_KEYS, `targets.${name}.`);
      if (unknownInTarget) throw unknownInTarget;
      const target: TargetSettings = validateSettings(tv, file, `targets.${name}.`);
      if (tv.confirm !== undefined) {
        if (typeof tv.confirm !== 'boolean') throw usageError(`${file}: "targets.${name}.confirm" must be true or false`);
        target.confirm = tv.confirm;
      }
      targets[name] = target;
    }
    out.targets = targets;
  }
  if (v.defaultTarget !== undefined) {
    if (typeof v.defaultTarget !== 'string' || !out.targets || !(v.defaultTarget in out.targets)) {
      throw usageError(`${file}: "defaultTarget" must name one of "targets" (${Object.keys(out.targets ?? {}).join(', ') || 'none defined'})`);
    }
    out.defaultTarget = v.defaultTarget;
  }
  return out;
}

/** hostsync's own configuration travels with the code: a "remoteOwned" list that would own one is refused. */
const NEVER_OWNED = [CONFIG_FILE, SYNCIGNORE_FILE];

/**
 * hostsync.json "remoteOwned": gitignore-style patterns (a `!` re-includes), each a
 * non-empty line that means something (no comment, no NUL or line break, no `..` segment:
 * patterns match paths inside the synced folder only). A list that would own hostsync.json
 * or .syncignore (`*`, `*.json`) is refused: it would make the project's own settings, and
 * usually all of its code, the deployment's.
 */
function validateRemoteOwned(value: unknown, file: string): string[] {
  const example = 'e.g. ["data/", "*.sqlite"]';
  if (!Array.isArray(value) || value.some((p) => typeof p !== 'string')) {
    throw usageError(`${file}: "remoteOwned" must be an array of gitignore-style patterns of the app's data, ${example}`);
  }
  for (const p of value as string[]) {
    const body = p.replace(/^!/, '');
    const why =
      p.trim() === '' ? 'is empty'
      : p.startsWith('#') ? 'is a comment (escape a leading # as \\#)'
      : /[\0\r\n]/.test(p) ? 'holds a NUL or a line break'
      : body.split('/').includes('..') ? 'climbs out with ".." (patterns match inside the synced folder)'
      : null;
    if (why !== null) throw usageError(`${file}: "remoteOwned" pattern ${JSON.stringify(p)} ${why}: name the app's data files or folders, ${example}`);
  }
  const patterns = value as string[];
  const matcher = createIgnoreMatcher(patterns);
  for (const own of NEVER_OWNED) {
    if (!matcher.ignores(own, false)) continue;
    const culprit = patterns.find((p) => !p.startsWith('!') && createIgnoreMatcher([p]).ignores(own, false));
    throw usageError(`${file}: "remoteOwned"${culprit === undefined ? '' : ` pattern ${JSON.stringify(culprit)}`} matches ${own}, which must travel with the code: name the app's data files or folders, ${example}`);
  }
  return [...patterns];
}

/**
 * `raw` as a root-relative POSIX path of a file, or a usage error: absolute, `..`, NUL or a
 * folder (trailing slash) refused. A hostsync.json can come from anywhere (a clone, a pull):
 * what it names must stay inside the project.
 */
function insideRoot(raw: string, file: string, key: string, example: string): string {
  const parts = raw.split('/').filter((p) => p !== '' && p !== '.');
  // Normalising drops a leading "/": checked on `raw`. The rest (`..` between either
  // separator, NUL, an absolute drive, a leading backslash) is the one rule of
  // model/safe-path.ts. A drive-relative "C:x" is a legal name on the volume, but a local
  // path from a config means another drive's folder on Windows: refused here too.
  if (raw.startsWith('/') || raw.endsWith('/') || /^[A-Za-z]:/.test(raw) || relPathProblem(parts.join('/')) !== null) {
    throw usageError(`${file}: "${key}" must name a file inside the project (${example}), not ${JSON.stringify(raw)}`);
  }
  return parts.join('/');
}

/** The settings shared by the top level and each target; `at` prefixes key names in messages. */
function validateSettings(v: Record<string, unknown>, file: string, at: string): Settings {
  const out: Settings = {};
  const str = (key: string): string | undefined => {
    const x = v[key];
    if (x === undefined) return undefined;
    if (typeof x !== 'string' || x === '') throw usageError(`${file}: "${at}${key}" must be a non-empty string`);
    return x;
  };
  const strList = (key: string): string[] | undefined => {
    const x = v[key];
    if (x === undefined) return undefined;
    if (!Array.isArray(x) || x.some((p) => typeof p !== 'string')) {
      throw usageError(`${file}: "${at}${key}" must be an array of strings (gitignore-style patterns)`);
    }
    return x as string[];
  };
  const deployment = str('deployment');
  if (deployment !== undefined) out.deployment = checkDeploymentId(deployment, `${file}: "${at}deployment"`);
  const baseUrl = str('baseUrl');
  if (baseUrl !== undefined) out.baseUrl = baseUrl;
  const envFile = str('envFile');
  if (envFile !== undefined) out.envFile = insideRoot(envFile, file, `${at}envFile`, 'a path such as ".env.production"');
  const ignore = strList('ignore');
  if (ignore !== undefined) out.ignore = ignore;
  const hotPaths = strList('hotPaths');
  if (hotPaths !== undefined) out.hotPaths = hotPaths;
  if (v.gitignore !== undefined) {
    if (typeof v.gitignore !== 'boolean') throw usageError(`${file}: "${at}gitignore" must be true (the .gitignore also keeps files off the deployment) or false`);
    out.gitignore = v.gitignore;
  }
  if (v.restart !== undefined) {
    if (!RESTART_POLICIES.includes(v.restart as RestartPolicy)) {
      throw usageError(`${file}: "${at}restart" must be one of ${RESTART_POLICIES.join(', ')}`);
    }
    out.restart = v.restart as RestartPolicy;
  }
  if (v.applyWaitSeconds !== undefined) {
    const n = v.applyWaitSeconds;
    if (typeof n !== 'number' || !Number.isFinite(n) || n < 0 || n > 600) {
      throw usageError(`${file}: "${at}applyWaitSeconds" must be a number of seconds from 0 to 600`);
    }
    out.applyWaitSeconds = n;
  }
  if (v.health !== undefined) out.health = validateHealth(v.health, file);
  if (v.startup !== undefined) out.startup = validateStartup(v.startup, file, at);
  if (v.size !== undefined) out.size = validateSize(v.size, file, at);
  if (v.dir !== undefined) out.dir = validateSyncDir(v.dir, file, at);
  if (v.build !== undefined) out.build = validateBuild(v.build, file, at);
  Object.assign(out, validateRestartSettings(v, file, at));
  if (v.install !== undefined) out.install = validateInstall(v.install, file, at);
  return out;
}


/** hostsync.json without its targets: the settings every target starts from. */
export function topSettings(file: ConfigFile): Settings {
  const top: ConfigFile = { ...file };
  delete top.targets;
  delete top.defaultTarget;
  return top;
}

/**
 * The target a command works on: the flag, else HOSTSYNC_TARGET, else the target whose
 * folder the command runs in (`folder`, config/target-folder.ts), else "defaultTarget";
 * null when none is named. A named target that hostsync.json does not define is a usage error.
 */
export function selectTarget(file: ConfigFile, flag: string | undefined, env: NodeJS.ProcessEnv, folder: string | null = null): { name: string; settings: TargetSettings; fromFolder: boolean } | null {
  const name = flag || env.HOSTSYNC_TARGET || folder || file.defaultTarget;
  if (!name) return null;
  const fromFolder = !flag && !env.HOSTSYNC_TARGET && !!folder;
  const source = flag ? '--target' : env.HOSTSYNC_TARGET ? 'HOSTSYNC_TARGET' : '"defaultTarget"';
  const known = Object.keys(file.targets ?? {});
  const settings = file.targets?.[name];
  if (!settings) {
    throw usageError(
      known.length > 0
        ? `${source} names target "${name}", which ${CONFIG_FILE} does not define: use one of ${known.join(', ')} (\`hostsync targets\` lists them)`
        : `${source} names target "${name}", but ${CONFIG_FILE} defines no targets: add one with \`hostsync init --target ${name} --deployment ID\``,
    );
  }
  return { name, settings, fromFolder };
}

/** Checks a base URL: absolute http(s), no path beyond "/" (the client appends /api/v1 itself). */
export function normaliseBaseUrl(raw: string, source: string): string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw usageError(`${source} "${raw}" is not a URL: give the service address, e.g. https://host.example`);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    throw usageError(`${source} must be an http(s) URL, got ${url.protocol}`);
  }
  // The key must never cross a network in clear text: plain http only to this machine.
  if (url.protocol === 'http:' && !isLoopback(url)) {
    throw usageError(`${source} uses plain http:// to ${url.host}; the API key would travel in clear text: use https://`);
  }
  return url.toString().replace(/\/+$/, '').replace(/\/api\/v1$/, '');
}

export interface LoadOptions {
  flags: ConfigFlags;
  env?: NodeJS.ProcessEnv;
  cwd?: string;
  /** Commands that talk to the service need all three; `init` does not. */
  requireRemote?: boolean;
  /** With requireRemote: false lets the deployment be missing (`link` is what picks one). Default true. */
  requireDeployment?: boolean;
  /** The library's `apiKey` option; the CLI has none (a flag would show in `ps`), so it reads the environment only. */
  apiKey?: string;
  /** false: never fall back on a running `hostsync dev` emulator (dev itself, which is that emulator). */
  devEmulator?: boolean;
}

export async function loadConfig(opts: LoadOptions): Promise<Config> {
  const env = opts.env ?? process.env;
  const projectRoot = await findProjectRoot(opts.flags.dir, opts.cwd);
  const raw = await readConfigFile(projectRoot);
  const requireRemote = opts.requireRemote ?? true;
  // --dir names the project; without it, the folder the command runs in may name a target.
  const folder = opts.flags.dir === undefined ? targetOfFolder(raw, projectRoot, opts.cwd ?? process.cwd()) : null;
  const selected = selectTarget(raw, opts.flags.target, env, folder);
  // A target's settings override the top level's, key by key.
  const file: TargetSettings = { ...topSettings(raw), ...(selected?.settings ?? {}) };

  // The synced folder: the project root, or its "dir" (which must exist: a build makes it).
  // With a "build", the folder may not exist yet: push makes it before it scans.
  const root = file.dir && file.dir !== '.' ? await resolveRoot(file.dir, projectRoot).catch(() => {
    if (file.build) return path.join(projectRoot, file.dir!);
    throw usageError(`"dir" of ${CONFIG_FILE} names ${path.join(projectRoot, file.dir!)}, which is not a folder: build the project first, or set "build" to the command that does`);
  }) : projectRoot;
  if (file.dir) await assertSyncDirInside(projectRoot, file.dir, root);
  // With no service named anywhere, a running `hostsync dev` of this project is the one.
  const dev = opts.flags.baseUrl || env.HOSTSYNC_BASE_URL || file.baseUrl || opts.devEmulator === false ? null : await devEmulatorFor(projectRoot);
  // `||`, not `??`: an exported-but-empty variable must not hide hostsync.json.
  const baseUrlRaw = opts.flags.baseUrl || env.HOSTSYNC_BASE_URL || file.baseUrl || dev?.baseUrl;
  // The dev emulator has its own deployments: the file's or the environment's would be another service's.
  const deploymentFlag = dev ? opts.flags.deployment || dev.deploymentId : opts.flags.deployment || env.HOSTSYNC_DEPLOYMENT;
  // hostsync.json's ids were checked as it was read; these come from elsewhere.
  if (deploymentFlag) checkDeploymentId(deploymentFlag, opts.flags.deployment ? '--deployment' : dev ? 'the running `hostsync dev`\'s deployment' : 'HOSTSYNC_DEPLOYMENT');
  // A target names its deployment so that nothing else can swap it: a different one from
  // --deployment or HOSTSYNC_DEPLOYMENT is a contradiction, not a preference.
  if (selected?.settings.deployment && deploymentFlag && deploymentFlag !== selected.settings.deployment) {
    const source = opts.flags.deployment ? '--deployment' : 'HOSTSYNC_DEPLOYMENT';
    throw usageError(`${source} ${deploymentFlag} contradicts target "${selected.name}" (deployment ${selected.settings.deployment}): drop one of them`);
  }
  const deploymentId = deploymentFlag || file.deployment || '';
  // The dev emulator's own key goes only to the dev emulator's own address.
  const apiKey = (dev ? dev.apiKey : undefined) || opts.apiKey || env.HOSTSYNC_API_KEY || '';
  const logLevelRaw = opts.flags.logLevel || env.HOSTSYNC_LOG_LEVEL || 'warn';

  if (!LOG_LEVELS.includes(logLevelRaw as LogLevel)) {
    throw usageError(`log level "${logLevelRaw}" is unknown: use one of ${LOG_LEVELS.join(', ')}`);
  }
  if (requireRemote) {
    // Outside any project, what is missing is the project, not one of its settings (issue 46, item 14).
    if ((!baseUrlRaw || (!deploymentId && opts.requireDeployment !== false)) && opts.flags.dir === undefined && !(await findProjectUp(projectRoot))) {
      throw usageError(`no ${CONFIG_FILE} here or above (${projectRoot}): run \`hostsync init\` in the project folder, or pass --dir with it`);
    }
    if (!baseUrlRaw) throw usageError('no service address: set HOSTSYNC_BASE_URL, "baseUrl" in hostsync.json, or --base-url');
    if (!deploymentId && opts.requireDeployment !== false) {
      const known = Object.keys(raw.targets ?? {});
      if (known.length > 0) throw usageError(`no deployment: pick a target with --target (${known.join(', ')}), or set "defaultTarget" in hostsync.json`);
      throw usageError('no deployment: run `hostsync link` to pick one, or set HOSTSYNC_DEPLOYMENT, "deployment" in hostsync.json, or --deployment');
    }
    if (!apiKey) throw usageError('no API key: export HOSTSYNC_API_KEY (create a key in the account\'s developer settings)');
    if (/\s/.test(apiKey)) throw usageError('HOSTSYNC_API_KEY contains white space: paste the key alone');
  }
  const source = opts.flags.baseUrl ? '--base-url' : env.HOSTSYNC_BASE_URL ? 'HOSTSYNC_BASE_URL' : selected?.settings.baseUrl ? `"baseUrl" of target ${selected.name}` : '"baseUrl" in hostsync.json';
  const baseUrl = baseUrlRaw ? normaliseBaseUrl(baseUrlRaw, source) : '';
  const baseUrlFrom = !baseUrlRaw ? '' : dev ? `the running \`hostsync dev\` emulator's address` : `${source} (${baseUrl})`;
  // The key follows the base URL: one that only a file in the project names must be trusted first.
  if (requireRemote && baseUrl && !opts.flags.baseUrl && !env.HOSTSYNC_BASE_URL && !dev) await checkFileBaseUrl(baseUrl, env, selected?.settings.baseUrl ? selected.name : null);
  return {
    root,
    baseUrl,
    baseUrlFrom,
    deploymentId,
    apiKey,
    ignore: file.ignore ?? [],
    restart: file.restart ?? 'auto',
    hotPaths: file.hotPaths ?? [],
    gitignore: file.gitignore ?? null,
    applyWaitSeconds: file.applyWaitSeconds,
    health: { ...DEFAULT_HEALTH, ...file.health },
    logLevel: logLevelRaw as LogLevel,
    target: selected?.name ?? null,
    targetFromFolder: selected?.fromFolder ?? false,
    confirm: selected?.settings.confirm ?? false,
    envFile: file.envFile ?? '.env',
    envFiles: [...new Set(['.env', raw.envFile, ...Object.values(raw.targets ?? {}).map((t) => t.envFile)].filter((f): f is string => f !== undefined))].sort(),
    sendSecrets: raw.sendSecrets ?? [],
    remoteOwned: raw.remoteOwned ?? [],
    timeoutSeconds: secondsFromEnv(env, 'HOSTSYNC_TIMEOUT', false),
    deadlineSeconds: secondsFromEnv(env, 'HOSTSYNC_DEADLINE', true),
    ...(env.HOSTSYNC_FS ? { fs: env.HOSTSYNC_FS } : {}),
    projectRoot,
    startup: startupForInstall(file.startup ?? {}, file.install ?? 'boot', CONFIG_FILE, selected ? `targets.${selected.name}.` : ''),
    size: file.size ?? {},
    build: file.build ?? null,
    devEmulator: dev ? dev.baseUrl : null,
    restarts: {
      ...(file.restartMinSeconds !== undefined ? { restartMinSeconds: file.restartMinSeconds } : {}),
      ...(file.restartsPerDay !== undefined ? { restartsPerDay: file.restartsPerDay } : {}),
    },
    tokens: raw.tokens ?? [],
    install: file.install ?? 'boot',
    notify: raw.notify ?? null,
  };
}

/** A duration in seconds from the environment (fractions allowed); unset or empty: undefined. */
function secondsFromEnv(env: NodeJS.ProcessEnv, name: string, zeroMeansNone: boolean): number | undefined {
  const raw = env[name]?.trim();
  if (!raw) return undefined;
  const n = Number(raw);
  if (!Number.isFinite(n) || n < 0 || (n === 0 && !zeroMeansNone)) {
    throw usageError(`${name}=${JSON.stringify(raw)} is not a number of seconds${zeroMeansNone ? ' (0 for none)' : ' above 0'}: e.g. ${name}=60`);
  }
  return n;
}
