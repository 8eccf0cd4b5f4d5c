/**
 * How often a deployment may be restarted (issue 47, item 1): a bot's restart is a login,
 * and logins are rationed (Discord: 1,000 a day per token, one every 5 s). hostsync.json's
 * `restartMinSeconds` (watch restarts a worker at most once per so many seconds) and
 * `restartsPerDay` (past it, hostsync refuses to restart; `--force` overrides).
 * Validation here; the defaults depend on the project's packages (restartRulesFor).
 */
import { usageError } from '../errors.js';
import { npmPackages, pipPackages } from './project-kind.js';

export interface RestartSettings {
  restartMinSeconds?: number;
  /** null: no limit, even where a Discord library would set one. */
  restartsPerDay?: number | null;
}

/** Watch's interval between restarts of a worker, by default (Discord's one login per 5 s). */
export const WORKER_RESTART_MIN_SECONDS = 5;
/** Discord's daily IDENTIFY allowance per bot token. */
export const DISCORD_LOGINS_PER_DAY = 1_000;

export const RESTART_MIN_SECONDS_MAX = 3_600;
export const RESTARTS_PER_DAY_MAX = 1_000_000;

export function validateRestartSettings(v: Record<string, unknown>, file: string, at: string): RestartSettings {
  const out: RestartSettings = {};
  if (v.restartMinSeconds !== undefined) {
    const n = v.restartMinSeconds;
    if (typeof n !== 'number' || !Number.isFinite(n) || n < 0 || n > RESTART_MIN_SECONDS_MAX) {
      throw usageError(`${file}: "${at}restartMinSeconds" must be a number of seconds from 0 to ${RESTART_MIN_SECONDS_MAX} (e.g. 5: watch restarts the app at most once every 5 s)`);
    }
    out.restartMinSeconds = n;
  }
  if (v.restartsPerDay !== undefined) {
    const n = v.restartsPerDay;
    if (n !== null && (typeof n !== 'number' || !Number.isInteger(n) || n < 1 || n > RESTARTS_PER_DAY_MAX)) {
      throw usageError(`${file}: "${at}restartsPerDay" must be a whole number from 1 to ${RESTARTS_PER_DAY_MAX}, or null for no limit (e.g. 1000, Discord's daily logins)`);
    }
    out.restartsPerDay = n as number | null;
  }
  return out;
}

/** The Discord library a project depends on, as its manifest spells it; null when none. */
export type DiscordLibrary = 'discord.js' | 'discord.py' | 'nextcord' | 'py-cord';

const pipName = (name: string): string => name.toLowerCase().replace(/[-_.]+/g, '-');

export function discordLibraryOf(manifests: { packageJson: string | null; requirements: string | null }): DiscordLibrary | null {
  const npm = manifests.packageJson === null ? [] : npmPackages(manifests.packageJson);
  if (npm.includes('discord.js')) return 'discord.js';
  const pip = new Set((manifests.requirements === null ? [] : pipPackages(manifests.requirements)).map(pipName));
  if (pip.has('discord-py')) return 'discord.py';
  if (pip.has('nextcord')) return 'nextcord';
  if (pip.has('py-cord') || pip.has('pycord')) return 'py-cord';
  return null;
}

/** The rules in force for one deployment. */
export interface RestartRules {
  /** Watch restarts at most once per this many seconds (0: no pacing). */
  minSeconds: number;
  /** Restarts allowed in 24 hours; null: no limit. */
  perDay: number | null;
  /** Why the app counts as a worker; null for a web app. */
  worker: string | null;
  library: DiscordLibrary | null;
}

/** The rules from hostsync.json's keys and what the project is (a worker, a Discord bot). */
export function restartRulesFor(settings: RestartSettings, worker: string | null, library: DiscordLibrary | null): RestartRules {
  return {
    minSeconds: settings.restartMinSeconds ?? (worker !== null ? WORKER_RESTART_MIN_SECONDS : 0),
    perDay: settings.restartsPerDay !== undefined ? settings.restartsPerDay : library !== null ? DISCORD_LOGINS_PER_DAY : null,
    worker,
    library,
  };
}
