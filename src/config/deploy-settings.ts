/**
 * The deployment as code: how the app starts and how big its container is, declared in
 * hostsync.json in the API's own words (`startup` as deployments.updateStartup takes it,
 * `size` as deployments.resize does), plus the project's layout: `dir`, the folder that is
 * synced (a build's output), and `build`, a command run before a push.
 * Only what the file names is managed: a key left out is whatever the deployment has.
 */
import { usageError } from '../errors.js';

export interface DeclaredStartup {
  runtime?: string;
  runtimeVersion?: string;
  entryFile?: string;
  /** null: the runtime's default (which installs from package.json or requirements.txt). */
  startCommand?: string | null;
}

export interface DeclaredSize {
  ramMB?: number;
  cpuPct?: number;
  storageMB?: number;
}

export const STARTUP_KEYS = ['runtime', 'runtimeVersion', 'entryFile', 'startCommand'] as const;
export const SIZE_KEYS = ['ramMB', 'cpuPct', 'storageMB'] as const;
export type StartupKey = (typeof STARTUP_KEYS)[number];
export type SizeKey = (typeof SIZE_KEYS)[number];

/** The lowest values deployments.resize takes (the emulator's, which follows the document's examples). */
const SIZE_MIN: Record<SizeKey, number> = { ramMB: 64, cpuPct: 1, storageMB: 64 };

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

export function validateStartup(value: unknown, file: string, at: string): DeclaredStartup {
  const where = `${file}: "${at}startup"`;
  if (!isObject(value)) throw usageError(`${where} must be an object such as {"runtime": "nodejs", "entryFile": "bot.js"}`);
  const unknown = Object.keys(value).find((k) => !(STARTUP_KEYS as readonly string[]).includes(k));
  if (unknown !== undefined) throw usageError(`${where} has an unknown key "${unknown}": use ${STARTUP_KEYS.join(', ')}`);
  const out: DeclaredStartup = {};
  for (const key of ['runtime', 'entryFile'] as const) {
    const v = value[key];
    if (v === undefined) continue;
    if (typeof v !== 'string' || v.trim() === '') throw usageError(`${where}.${key} must be a non-empty string`);
    out[key] = v;
  }
  const version = value.runtimeVersion;
  if (version !== undefined) {
    // The API takes a bare number too; kept as the string it answers with.
    if ((typeof version !== 'string' || version.trim() === '') && typeof version !== 'number') throw usageError(`${where}.runtimeVersion must be a version such as "20"`);
    out.runtimeVersion = String(version);
  }
  const command = value.startCommand;
  if (command !== undefined) {
    if (command !== null && (typeof command !== 'string' || command.trim() === '')) {
      throw usageError(`${where}.startCommand must be a shell line such as "npm install && npm start", or null for the runtime's default`);
    }
    out.startCommand = command;
  }
  return out;
}

export function validateSize(value: unknown, file: string, at: string): DeclaredSize {
  const where = `${file}: "${at}size"`;
  if (!isObject(value)) throw usageError(`${where} must be an object such as {"ramMB": 512}`);
  const unknown = Object.keys(value).find((k) => !(SIZE_KEYS as readonly string[]).includes(k));
  if (unknown !== undefined) throw usageError(`${where} has an unknown key "${unknown}": use ${SIZE_KEYS.join(', ')}`);
  const out: DeclaredSize = {};
  for (const key of SIZE_KEYS) {
    const v = value[key];
    if (v === undefined) continue;
    if (typeof v !== 'number' || !Number.isInteger(v) || v < SIZE_MIN[key]) throw usageError(`${where}.${key} must be a whole number, at least ${SIZE_MIN[key]}`);
    out[key] = v;
  }
  return out;
}

/** `dir`: a folder inside the project (never outside it, never the state folder). */
export function validateSyncDir(value: unknown, file: string, at: string): string {
  const where = `${file}: "${at}dir"`;
  if (typeof value !== 'string' || value.trim() === '') throw usageError(`${where} must be a folder of the project, e.g. "dist"`);
  const norm = value.replace(/\\/g, '/').replace(/^\.\/+/, '').replace(/\/+$/, '');
  if (norm === '' || norm === '.') return '.';
  if (norm.startsWith('/') || /^[A-Za-z]:/.test(norm) || norm.split('/').includes('..')) throw usageError(`${where} must be a folder inside the project, e.g. "dist" (not "${value}")`);
  if (norm.split('/')[0] === '.hostsync') throw usageError(`${where} cannot be hostsync's own state folder`);
  return norm;
}

export function validateBuild(value: unknown, file: string, at: string): string {
  if (typeof value !== 'string' || value.trim() === '') throw usageError(`${file}: "${at}build" must be a shell command such as "npm run build"`);
  return value;
}
