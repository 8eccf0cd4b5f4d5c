/**
 * hostsync.json "install" (issue 47, item 4). The runtime's default start command installs
 * from package.json or requirements.txt at every boot (hosting-api.md, startCommand), so
 * every code restart pays an install. "on-change" sets a start command that only starts the
 * app, and a push or watch cycle that touches a manifest runs the install itself, through
 * deployments.shell, before the restart (sync/apply/install-on-change.ts).
 */
import { usageError } from '../errors.js';
import type { DeclaredStartup } from './deploy-settings.js';

/** "boot": the runtime's default (install at every start); "on-change": only when a manifest changed. */
export type InstallMode = 'boot' | 'on-change';
const MODES: readonly InstallMode[] = ['boot', 'on-change'];

/**
 * The files whose change means the dependencies changed, at the root of the synced folder
 * (the start command runs from the volume root). A lockfile alone changes too: `npm update`.
 */
export const NODE_MANIFESTS = ['package.json', 'package-lock.json', 'npm-shrinkwrap.json', 'yarn.lock', 'pnpm-lock.yaml', 'bun.lock', 'bun.lockb'] as const;
export const PYTHON_MANIFESTS = ['requirements.txt', 'pyproject.toml', 'poetry.lock', 'uv.lock'] as const;
const MANIFESTS: ReadonlySet<string> = new Set([...NODE_MANIFESTS, ...PYTHON_MANIFESTS]);

export const isManifest = (rel: string): boolean => MANIFESTS.has(rel);

export function validateInstall(value: unknown, file: string, at: string): InstallMode {
  if (!MODES.includes(value as InstallMode)) throw usageError(`${file}: "${at}install" must be "on-change" (install only when package.json, the lockfile or requirements.txt changed) or "boot"`);
  return value as InstallMode;
}

/** One shell word: kept as is when plain, else single-quoted (the start command is a shell line). */
export function shellWord(word: string): string {
  return /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}

const isPython = (startup: DeclaredStartup): boolean => startup.runtime === 'python' || (startup.runtime === undefined && /\.py$/i.test(startup.entryFile ?? ''));

/**
 * The startup an "on-change" project declares: its own startCommand if it names one (it is
 * trusted to only start the app), else one that runs the entry file and installs nothing.
 * A usage error when neither says what to start.
 */
export function startupForInstall(startup: DeclaredStartup, mode: InstallMode, file: string, at: string): DeclaredStartup {
  if (mode !== 'on-change' || typeof startup.startCommand === 'string') return startup;
  if (!startup.entryFile) {
    throw usageError(`${file}: "${at}install": "on-change" needs "startup.entryFile" (the file the app starts from), or a "startup.startCommand" that only starts the app`);
  }
  const entry = shellWord(startup.entryFile);
  return { ...startup, startCommand: isPython(startup) ? `python ${entry}` : `node ${entry}` };
}
