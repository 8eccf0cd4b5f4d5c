/**
 * hostsync.json's "startup" and "size" against the deployment, for `status` and `push`
 * (the plan is sync/settings/settings-plan.ts; its base is state/settings-base.ts). Costs: none when
 * nothing is declared; none for a push whose declared values are what the last push left
 * (the steady state); else one deployments.get, plus one deployments.updateStartup and
 * one deployments.resize when those change. `status` reuses the deployments.get it makes
 * anyway, so it pays nothing extra.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import type { Deployment } from '../api/types.js';
import { refusal } from '../errors.js';
import { SIZE_KEYS } from '../config/deploy-settings.js';
import { projectRootOf } from '../config/config.js';
import { undersizedInstall } from '../sync/apply/memory-advice.js';
import { loadSettingsBase, saveSettingsBase, type SettingsBase } from '../state/settings-base.js';
import type { Session } from '../sync/session.js';
import {
  declaredEntries,
  declaredMatchBase,
  planSettings,
  settingsAfter,
  type DeploymentSettings,
  type SettingChange,
  type SettingConflict,
  type SettingsPlan,
} from '../sync/settings/settings-plan.js';

/** What `status --json` and `push --json` say of the settings ("settings"); null when hostsync.json declares none. */
export interface SettingsResult {
  /** Settings that differ from the deployment's and that push sets (a dry run: would set). */
  changes: SettingChange[];
  /** Settings changed on the deployment since the last push that also differ from hostsync.json: left alone (exit 3) unless --force. */
  conflicts: SettingConflict[];
  /** Why the push would not (or did not) send them: a change of runtime not named with --change-runtime. */
  refused: string | null;
  /** The changes were sent (push only). */
  applied: boolean;
  /** Requests the settings took (the read, updateStartup, resize). */
  requests: number;
  warnings: string[];
}

/** The deployment's settings from its full record (deployments.get). */
export function settingsOf(d: Deployment): DeploymentSettings {
  return {
    runtime: d.startup?.runtime ?? d.runtime ?? '',
    runtimeVersion: d.startup?.runtimeVersion ?? '',
    entryFile: d.startup?.entryFile ?? d.entryFile ?? '',
    startCommand: d.startup?.startCommand ?? '',
    ramMB: d.resources?.ramMB ?? 0,
    cpuPct: d.resources?.cpuPercent ?? 0,
    storageMB: d.resources?.storageMB ?? 0,
  };
}

/** The line naming a Node install the deployment's RAM would not survive, from the project's package.json; null when it fits or there is none. */
async function installTooBig(projectRoot: string, ramMB: number): Promise<string | null> {
  if (ramMB <= 0) return null;
  const text = await readFile(path.join(projectRoot, 'package.json'), 'utf8').catch(() => null);
  return text === null ? null : undersizedInstall(text, ramMB);
}

/** The refusal of a runtime change the user did not name. */
export function runtimeRefusal(plan: SettingsPlan, named: string | undefined): string | null {
  const rc = plan.runtimeChange;
  if (!rc || named === rc.to) return null;
  return `hostsync.json's startup.runtime is ${rc.to}, the deployment runs ${rc.from}: changing the runtime reinstalls it from scratch and deletes every file on it; run \`hostsync push --change-runtime ${rc.to}\` to go ahead, or set startup.runtime back to ${rc.from}`;
}

/**
 * Requests a push makes for the settings: the read unless the steady state spares it
 * (`reads`: pushReadsSettings), then one updateStartup and one resize as needed.
 */
export function settingsRequestEstimate(s: Pick<SettingsResult, 'changes'>, reads: boolean): number {
  const size = s.changes.some((c) => (SIZE_KEYS as readonly string[]).includes(c.key));
  const startup = s.changes.some((c) => !(SIZE_KEYS as readonly string[]).includes(c.key));
  return (reads || s.changes.length > 0 ? 1 : 0) + (size ? 1 : 0) + (startup ? 1 : 0);
}

/** Whether a push (without --force) reads the deployment for its settings: anything declared that the last push did not leave. */
export async function pushReadsSettings(session: Session): Promise<boolean> {
  if (!declares(session)) return false;
  const base = await loadSettingsBase(session.stateDir, session.config.deploymentId);
  return !declaredMatchBase(session.config.startup ?? {}, session.config.size ?? {}, base);
}

const declares = (session: Session): boolean => declaredEntries(session.config.startup ?? {}, session.config.size ?? {}).length > 0;

/** The plan against a deployment record already read (status's own deployments.get); null when nothing is declared. */
export async function settingsPreview(session: Session, record: Deployment, opts: { force?: boolean; changeRuntime?: string } = {}): Promise<SettingsResult | null> {
  if (!declares(session)) return null;
  const base = await loadSettingsBase(session.stateDir, session.config.deploymentId);
  const plan = planSettings({ startup: session.config.startup ?? {}, size: session.config.size ?? {}, remote: settingsOf(record), base, force: opts.force ?? false });
  return { changes: plan.changes, conflicts: plan.conflicts, refused: runtimeRefusal(plan, opts.changeRuntime), applied: false, requests: 0, warnings: [] };
}

/** How a warning of deployments.updateStartup starts in a push's warnings (a push that restarts the app drops it: app/push.ts). */
export const STARTUP_WARNING = 'deployments.updateStartup: ';

/**
 * Push's settings step, before the files: reads the deployment unless the steady state
 * makes that needless, sends what changed, records the new base, and marks an apply owed
 * (the new settings take effect at the restart the push's apply makes). A runtime change
 * not named by `changeRuntime` is refused before anything is sent (exit 3).
 */
export async function pushSettings(session: Session, opts: { dryRun: boolean; force: boolean; changeRuntime?: string }): Promise<SettingsResult | null> {
  if (!declares(session)) return null;
  const { client, config, store } = session;
  const startup = config.startup ?? {};
  const size = config.size ?? {};
  const base = await loadSettingsBase(session.stateDir, config.deploymentId);
  const before = client.stats().total;
  if (!opts.dryRun && !opts.force && declaredMatchBase(startup, size, base)) {
    return { changes: [], conflicts: [], refused: null, applied: false, requests: 0, warnings: [] };
  }
  const remote = settingsOf(await client.deployments.get());
  const plan = planSettings({ startup, size, remote, base, force: opts.force });
  const refused = runtimeRefusal(plan, opts.changeRuntime);
  const result: SettingsResult = { changes: plan.changes, conflicts: plan.conflicts, refused, applied: false, requests: 0, warnings: [] };
  // Before the start this push causes: an install the deployment (as it will be) is too small
  // for is named now, not found as exit 137 after it (issue 30). No request: the record is read.
  const tooSmall = await installTooBig(projectRootOf(config), plan.resize?.ramMB ?? remote.ramMB);
  if (tooSmall !== null) result.warnings.push(tooSmall);
  if (opts.dryRun) {
    result.requests = client.stats().total - before;
    return result;
  }
  if (refused) throw refusal(refused);
  // Conflicting keys keep their old base: a later push must still see them as changed there.
  const kept: SettingsBase = {};
  for (const c of plan.conflicts) (kept as Record<string, unknown>)[c.key] = base?.[c.key];
  let after: SettingsBase = settingsAfter(remote, plan);
  if (plan.startup) {
    const answer = await client.deployments.updateStartup({ ...plan.startup, ...(plan.runtimeChange ? { wipeFiles: true } : {}) });
    if (answer.warning) result.warnings.push(`${STARTUP_WARNING}${answer.warning}`);
    // What the service says it now runs; a key it does not echo keeps the value sent.
    for (const k of ['runtime', 'runtimeVersion', 'entryFile', 'startCommand'] as const) {
      if (typeof answer[k] === 'string' && answer[k] !== '') after = { ...after, [k]: answer[k] };
    }
  }
  if (plan.resize) await client.deployments.resize(plan.resize);
  if (plan.runtimeChange) {
    // The service deleted every file: this folder's base no longer describes the deployment,
    // and the files go up again as a first push's.
    await store.save({ base: null, remote: null });
  }
  await saveSettingsBase(session.stateDir, config.deploymentId, { ...after, ...kept });
  if (plan.changes.length > 0) {
    await store.setApplyPending(true);
    result.applied = true;
  }
  result.requests = client.stats().total - before;
  return result;
}
