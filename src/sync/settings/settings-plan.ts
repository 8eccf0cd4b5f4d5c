/**
 * The deployment's start settings and size against what hostsync.json declares, three-way
 * like the files: declared (L), the deployment's (R), and what the last push left there
 * (B, settings-base.ts). Pure: values in, a plan out.
 *
 * - a key hostsync.json leaves out is not managed;
 * - declared = deployment: nothing to do;
 * - the deployment's value is still the one the last push left (or no push left one): a
 *   change, shown as `S key: from -> to` and sent by push;
 * - the deployment's value changed since the last push (in the dashboard, by another
 *   tool) and differs from the declared one: a conflict, untouched unless --force.
 *
 * A change of runtime is flagged apart: on the service it reinstalls from scratch and
 * deletes every file, so the caller refuses it unless the user names it.
 */
import type { StartupUpdate } from '../../api/types.js';
import { SIZE_KEYS, STARTUP_KEYS, type DeclaredSize, type DeclaredStartup, type SizeKey, type StartupKey } from '../../config/deploy-settings.js';

export type SettingKey = StartupKey | SizeKey;
export type SettingValue = string | number;

/** The deployment's settings as the service reports them (deployments.get's startup and resources). */
export type DeploymentSettings = Record<StartupKey, string> & Record<SizeKey, number>;

export interface SettingChange {
  key: SettingKey;
  /** The deployment's value now. */
  from: SettingValue;
  to: SettingValue;
}

export interface SettingConflict {
  key: SettingKey;
  /** hostsync.json's value. */
  local: SettingValue;
  /** The deployment's value, changed there since the last push. */
  remote: SettingValue;
  /** What the last push left. */
  base: SettingValue;
}

export interface SettingsPlan {
  changes: SettingChange[];
  conflicts: SettingConflict[];
  /** The runtime itself changes (every file is deleted by the service); null otherwise. */
  runtimeChange: { from: string; to: string } | null;
  /** deployments.updateStartup's body, or null when no startup key changes. */
  startup: StartupUpdate | null;
  /** deployments.resize's body (all three values: the API requires them), or null when the size stays. */
  resize: { ramMB: number; cpuPct: number; storageMB: number } | null;
}

/**
 * A start command as the service runs it: it adds `exec` before the last step (so Stop
 * reaches the app), and spacing around `&&` is not meaning.
 */
export function normaliseCommand(command: string): string {
  const steps = command.split('&&').map((s) => s.trim().replace(/\s+/g, ' '));
  const last = steps.length - 1;
  steps[last] = steps[last]!.replace(/^exec /, '');
  return steps.join(' && ');
}

/** Whether a declared value is what the deployment has: a version "20" is met by "20.19.1". */
export function settingMet(key: SettingKey, declared: SettingValue, actual: SettingValue): boolean {
  if (key === 'startCommand') return normaliseCommand(String(declared)) === normaliseCommand(String(actual));
  if (key === 'runtimeVersion') {
    const d = String(declared).trim();
    const a = String(actual).trim();
    return a === d || a.startsWith(`${d}.`);
  }
  return declared === actual;
}

export interface SettingsInput {
  startup: DeclaredStartup;
  size: DeclaredSize;
  remote: DeploymentSettings;
  /** What the last push left on the deployment; null when none has (a first push: the declared values win). */
  base: Partial<DeploymentSettings> | null;
  /** Local wins conflicts. */
  force: boolean;
}

/** The declared keys, in a fixed order (startup first, as the API document lists them). */
export function declaredEntries(startup: DeclaredStartup, size: DeclaredSize): Array<[SettingKey, SettingValue]> {
  const out: Array<[SettingKey, SettingValue]> = [];
  for (const k of STARTUP_KEYS) {
    const v = startup[k];
    if (typeof v === 'string') out.push([k, v]);
  }
  for (const k of SIZE_KEYS) {
    const v = size[k];
    if (typeof v === 'number') out.push([k, v]);
  }
  return out;
}

export function planSettings(input: SettingsInput): SettingsPlan {
  const changes: SettingChange[] = [];
  const conflicts: SettingConflict[] = [];
  for (const [key, declared] of declaredEntries(input.startup, input.size)) {
    const remote = input.remote[key];
    if (settingMet(key, declared, remote)) continue;
    const base = input.base?.[key];
    const changedThere = base !== undefined && !settingMet(key, base, remote);
    if (changedThere && !input.force) conflicts.push({ key, local: declared, remote, base });
    else changes.push({ key, from: remote, to: declared });
  }
  const startupChanges = changes.filter((c) => (STARTUP_KEYS as readonly string[]).includes(c.key));
  const sizeChanges = changes.filter((c) => (SIZE_KEYS as readonly string[]).includes(c.key));
  const runtime = startupChanges.find((c) => c.key === 'runtime');
  // A new runtime brings its own defaults for the keys left out: every declared startup key goes with it.
  const sent = runtime
    ? declaredEntries(input.startup, {}).map(([k, v]) => ({ key: k, to: v }))
    : startupChanges;
  const startup: StartupUpdate | null = sent.length === 0 ? null : Object.fromEntries(sent.map((c) => [c.key, String(c.to)]));
  const resize = sizeChanges.length === 0 ? null : {
    ramMB: input.remote.ramMB,
    cpuPct: input.remote.cpuPct,
    storageMB: input.remote.storageMB,
    ...Object.fromEntries(sizeChanges.map((c) => [c.key, c.to as number])),
  };
  return { changes, conflicts, runtimeChange: runtime ? { from: String(runtime.from), to: String(runtime.to) } : null, startup, resize };
}

/** The deployment's values once the plan is applied (what the next base records). */
export function settingsAfter(remote: DeploymentSettings, plan: Pick<SettingsPlan, 'changes'>): DeploymentSettings {
  const out = { ...remote };
  for (const c of plan.changes) (out as Record<string, SettingValue>)[c.key] = c.to;
  return out;
}

/** Whether every declared key is what the base records: the steady state, where a push need not read the deployment. */
export function declaredMatchBase(startup: DeclaredStartup, size: DeclaredSize, base: Partial<DeploymentSettings> | null): boolean {
  if (base === null) return false;
  return declaredEntries(startup, size).every(([k, v]) => base[k] !== undefined && settingMet(k, v, base[k]!));
}
