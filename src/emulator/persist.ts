/**
 * What the real service keeps across its own restarts and the emulator must too when it
 * is given a --data folder: the default key and the deployments (id, name, runtime, entry
 * file, the linked git source, the environment variables and the size). Volumes and history already live in that folder; without this record a restart
 * would mint a new key and new ids, orphaning them, and a client running through the
 * restart (watch, `hostsync dev`) would die on 401/404. A temporary data folder (no
 * --data) is removed on close, so nothing is kept for it.
 */
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';

export interface PersistedDeployment {
  id: string;
  name: string;
  runtime: string;
  entryFile: string;
  /** Absent in records written before it was kept: such a deployment starts unlinked. */
  git?: { repo: string; branch: string; autoPull: boolean } | null;
  env?: { key: string; value: string; secret: boolean }[];
  /** Absent in older records: such a deployment gets the default size (or --ram-mb). */
  resources?: { ramMB: number; cpuPercent: number; storageMB: number } | null;
}

export interface PersistedState {
  apiKey: string;
  deployments: PersistedDeployment[];
}

const FILE = 'emulator.json';

/** The saved state, or null when there is none (or it is unreadable: then the emulator starts afresh, as on a new folder). */
export function loadPersisted(dataDir: string): PersistedState | null {
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(path.join(dataDir, FILE), 'utf8'));
  } catch {
    return null;
  }
  const s = parsed as Partial<PersistedState>;
  if (typeof s?.apiKey !== 'string' || !Array.isArray(s.deployments)) return null;
  const deployments = s.deployments.filter(
    (d): d is PersistedDeployment =>
      typeof d?.id === 'string' && /^dep_[0-9a-f]+$/.test(d.id) && typeof d.name === 'string' && typeof d.runtime === 'string' && typeof d.entryFile === 'string',
  );
  return { apiKey: s.apiKey, deployments: deployments.map((d) => ({ ...d, git: gitOf(d.git), env: envOf(d.env), resources: resourcesOf(d.resources) })) };
}

function gitOf(g: unknown): PersistedDeployment['git'] {
  const o = g as Record<string, unknown> | null | undefined;
  return typeof o?.repo === 'string' && typeof o.branch === 'string' && typeof o.autoPull === 'boolean' ? { repo: o.repo, branch: o.branch, autoPull: o.autoPull } : null;
}

function resourcesOf(r: unknown): PersistedDeployment['resources'] {
  const o = r as Record<string, unknown> | null | undefined;
  const whole = (v: unknown): v is number => typeof v === 'number' && Number.isInteger(v) && v > 0;
  return whole(o?.ramMB) && whole(o.cpuPercent) && whole(o.storageMB) ? { ramMB: o.ramMB, cpuPercent: o.cpuPercent, storageMB: o.storageMB } : null;
}

function envOf(e: unknown): NonNullable<PersistedDeployment['env']> {
  if (!Array.isArray(e)) return [];
  return e.filter((v): v is { key: string; value: string; secret: boolean } => typeof v?.key === 'string' && typeof v.value === 'string' && typeof v.secret === 'boolean');
}

/** Temp file + rename: a crash leaves the old record or the new one, never half of one. Mode 0600: it holds a key. */
export function savePersisted(dataDir: string, state: PersistedState): void {
  const file = path.join(dataDir, FILE);
  const tmp = `${file}.${process.pid}.tmp`;
  // The folder may have been emptied under a running emulator (a build that cleans its
  // output folder): the record is written again rather than crashing the emulator.
  mkdirSync(dataDir, { recursive: true });
  writeFileSync(tmp, `${JSON.stringify(state, null, 2)}\n`, { mode: 0o600 });
  renameSync(tmp, file);
}
