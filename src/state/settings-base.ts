/**
 * What the last push left of the deployment's start settings and size
 * (`.hostsync/<deployment>/settings.json`): the base of sync/settings/settings-plan.ts. A missing,
 * corrupt or foreign file reads as none, which never permits overwriting a change made on
 * the deployment: with no base, the declared values are applied as a first push's.
 */
import { mkdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { writeFileAtomic } from '../local/atomic-write.js';

const FILE = 'settings.json';
const VERSION = 1;

export type SettingsBase = Partial<Record<'runtime' | 'runtimeVersion' | 'entryFile' | 'startCommand', string> & Record<'ramMB' | 'cpuPct' | 'storageMB', number>>;

const STRING_KEYS = ['runtime', 'runtimeVersion', 'entryFile', 'startCommand'] as const;
const NUMBER_KEYS = ['ramMB', 'cpuPct', 'storageMB'] as const;

export async function loadSettingsBase(stateDir: string, deploymentId: string): Promise<SettingsBase | null> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(await readFile(path.join(stateDir, FILE), 'utf8'));
  } catch {
    return null;
  }
  const o = parsed as { version?: unknown; deploymentId?: unknown; settings?: Record<string, unknown> };
  if (o?.version !== VERSION || o.deploymentId !== deploymentId || typeof o.settings !== 'object' || o.settings === null) return null;
  const out: SettingsBase = {};
  for (const k of STRING_KEYS) if (typeof o.settings[k] === 'string') out[k] = o.settings[k] as string;
  for (const k of NUMBER_KEYS) if (typeof o.settings[k] === 'number') out[k] = o.settings[k] as number;
  return out;
}

export async function saveSettingsBase(stateDir: string, deploymentId: string, settings: SettingsBase): Promise<void> {
  await mkdir(stateDir, { recursive: true });
  await writeFileAtomic(path.join(stateDir, FILE), `${JSON.stringify({ version: VERSION, deploymentId, savedAt: new Date().toISOString(), settings }, null, 2)}\n`);
}
