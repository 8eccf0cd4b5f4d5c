import type { Logger } from 'pino';
import { configFlags, loadConfig, type Config, type LogLevel } from '../config/config.js';
import { openSession, type Lent, type Session } from '../sync/session.js';
import { commandClient } from '../sync/command-client.js';
import type { HostingClient } from '../remote/client.js';
import { usageError } from '../errors.js';
import { COMMAND_DEADLINE_MS } from './tunables.js';

/**
 * What every command that talks to a deployment accepts, as a library option or a CLI
 * flag. Resolved exactly as the CLI resolves it: options > environment > hostsync.json,
 * with the same validation (a bad value is a HostsyncError with exit code 2).
 */
export interface ConnectionOptions {
  /** Project directory to sync; default: the current directory. */
  dir?: string;
  /** Service address; else HOSTSYNC_BASE_URL, else "baseUrl" in hostsync.json. */
  baseUrl?: string;
  /** Else HOSTSYNC_API_KEY. (The CLI has no flag for it: a flag would show in `ps`.) */
  apiKey?: string;
  /** Deployment id; else HOSTSYNC_DEPLOYMENT, else "deployment" in hostsync.json. */
  deployment?: string;
  /** A named target from hostsync.json; else HOSTSYNC_TARGET, else "defaultTarget". */
  target?: string;
  /** Answers yes for a target with `"confirm": true` (the CLI's --yes). */
  yes?: boolean;
  /**
   * Asks the user before a change to a target with `"confirm": true`; resolves true to go
   * on. Without it (no terminal, a library caller) such a target is refused unless `yes`.
   */
  confirm?: (question: string) => Promise<boolean>;
  /** Level of the diagnostics sent to `logger`; else HOSTSYNC_LOG_LEVEL, else "warn". */
  logLevel?: LogLevel;
  /**
   * Where diagnostics go. Default: nowhere (the library never prints). A function is
   * called with the resolved configuration (the CLI builds its stderr logger this way).
   */
  logger?: Logger | ((config: Config) => Logger);
  /** The environment to read; default process.env. */
  env?: NodeJS.ProcessEnv;
  /** Seconds an ordinary API call may take, whole (wall clock); else HOSTSYNC_TIMEOUT, else 30. */
  timeoutSeconds?: number;
  /** Seconds the whole command may take (0: none); else HOSTSYNC_DEADLINE, else the command's own (app/tunables.ts). */
  deadlineSeconds?: number;
}

export async function resolveConfig(opts: ConnectionOptions, requireRemote = true, requireDeployment = true): Promise<Config> {
  const config = await loadConfig({
    flags: configFlags(opts),
    requireRemote,
    requireDeployment,
    ...(opts.env ? { env: opts.env } : {}),
    ...(opts.apiKey !== undefined ? { apiKey: opts.apiKey } : {}),
  });
  return {
    ...config,
    ...(opts.timeoutSeconds !== undefined ? { timeoutSeconds: opts.timeoutSeconds } : {}),
    ...(opts.deadlineSeconds !== undefined ? { deadlineSeconds: opts.deadlineSeconds } : {}),
  };
}

/**
 * For a target marked `"confirm": true`, before anything is sent: goes on with `yes`, asks
 * through `confirm` when there is one, else refuses (exit 2). `action` completes the
 * question "<action> target NAME (deployment ID on HOST)?".
 */
export async function confirmTarget(config: Config, opts: Pick<ConnectionOptions, 'yes' | 'confirm'>, action: string): Promise<void> {
  if (!config.confirm || opts.yes) return;
  const where = `target ${config.target} (deployment ${config.deploymentId} on ${new URL(config.baseUrl).host})`;
  if (!opts.confirm) {
    throw usageError(`${where} asks for confirmation and there is no terminal to ask on: pass --yes to ${action} it; nothing was sent`);
  }
  if (!(await opts.confirm(`${action[0]!.toUpperCase()}${action.slice(1)} ${where}?`))) throw usageError('cancelled: nothing was sent');
}

/**
 * The validated configuration and an open session on it. With `action` (the command
 * changes the deployment), a target marked `"confirm": true` is confirmed first.
 * `deadlineMs`: the command's own overall deadline (app/tunables.ts), which HOSTSYNC_DEADLINE
 * replaces; null for a command that runs until stopped (watch), which has none at all.
 * `lent`: what the running watch lends a status it works out (sync/session.ts).
 */
export async function connect(opts: ConnectionOptions, action?: string, deadlineMs: number | null = COMMAND_DEADLINE_MS, lent?: Lent): Promise<Session> {
  const config = await resolveConfig(opts);
  if (action !== undefined) await confirmTarget(config, opts, action);
  return openSession(config, loggerFor(opts, config), { deadlineMs, ...(lent ? { lent } : {}) });
}

/** The diagnostics' logger `opts` asks for, made for `config`. */
const loggerFor = (opts: ConnectionOptions, config: Config): Logger | undefined =>
  typeof opts.logger === 'function' ? opts.logger(config) : opts.logger;

/**
 * The client of a command that needs no session (open, logs, exec, create, link), made as
 * every command's is (sync/command-client.ts: HOSTSYNC_TIMEOUT, HOSTSYNC_DEADLINE).
 * `deadlineMs`: the command's own (app/tunables.ts); null for one that runs until stopped.
 */
export function clientFor(opts: ConnectionOptions, config: Config, deadlineMs: number | null, deploymentId?: string): HostingClient {
  return commandClient(config, loggerFor(opts, config), { deadlineMs, ...(deploymentId !== undefined ? { deploymentId } : {}) });
}

/** The deployment a command worked on, as results name it. */
export interface DeploymentRef {
  id: string;
  /** The service's host (and port). */
  host: string;
  /** The hostsync.json target it was reached through; null when none was selected. */
  target: string | null;
}

export const deploymentRef = (config: Config): DeploymentRef => ({ id: config.deploymentId, host: new URL(config.baseUrl).host, target: config.target });
