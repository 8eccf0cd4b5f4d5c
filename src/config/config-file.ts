/**
 * The shape of hostsync.json as written, and its name: what the modules config.ts
 * validates with (find-root, sync-dir, target-folder, edit) share, so that none of them
 * imports config.ts back.
 */
import type { DeclaredSize, DeclaredStartup } from './deploy-settings.js';
import type { HealthSettings } from './health.js';
import type { RestartSettings } from './restart-settings.js';
import type { InstallMode } from './install.js';
import type { NotifySettings } from './notify.js';

export type RestartPolicy = 'auto' | 'always' | 'never';
export type LogLevel = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';

export const CONFIG_FILE = 'hostsync.json';

/** The settings a target may override: every top-level setting of hostsync.json. */
export interface Settings extends RestartSettings {
  deployment?: string;
  baseUrl?: string;
  ignore?: string[];
  restart?: RestartPolicy;
  hotPaths?: string[];
  gitignore?: boolean;
  applyWaitSeconds?: number;
  envFile?: string;
  health?: Partial<HealthSettings>;
  startup?: DeclaredStartup;
  size?: DeclaredSize;
  dir?: string;
  build?: string;
  install?: InstallMode;
}

/** One named target ("staging", "production"): a deployment and whatever settings differ for it. */
export interface TargetSettings extends Settings {
  /** Ask before sending anything (refused without a terminal unless --yes). */
  confirm?: boolean;
}

/** The shape of hostsync.json. Everything optional: the environment and flags can fill it. */
export interface ConfigFile extends Settings {
  targets?: Record<string, TargetSettings>;
  defaultTarget?: string;
  /** Files the credential rules would keep local that the user wants sent anyway (root-relative paths, no patterns). */
  sendSecrets?: string[];
  /** The app's data on the deployment (gitignore-style patterns): see Config.remoteOwned. */
  remoteOwned?: string[];
  tokens?: string[];
  notify?: NotifySettings;
}
