import type { Logger } from 'pino';
import { loadConfig, type Config, type LogLevel } from '../config/config.js';
import { openSession, type Session } from '../sync/session.js';

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
  /**
   * A named target from hostsync.json. Accepted but not yet used: it is a placeholder
   * until targets (issue #14) land, and has no effect today.
   */
  target?: string;
  /** Level of the diagnostics sent to `logger`; else HOSTSYNC_LOG_LEVEL, else "warn". */
  logLevel?: LogLevel;
  /**
   * Where diagnostics go. Default: nowhere (the library never prints). A function is
   * called with the resolved configuration (the CLI builds its stderr logger this way).
   */
  logger?: Logger | ((config: Config) => Logger);
  /** The environment to read; default process.env. */
  env?: NodeJS.ProcessEnv;
}

export async function resolveConfig(opts: ConnectionOptions, requireRemote = true, requireDeployment = true): Promise<Config> {
  return loadConfig({
    flags: {
      ...(opts.dir !== undefined ? { dir: opts.dir } : {}),
      ...(opts.baseUrl !== undefined ? { baseUrl: opts.baseUrl } : {}),
      ...(opts.deployment !== undefined ? { deployment: opts.deployment } : {}),
      ...(opts.logLevel !== undefined ? { logLevel: opts.logLevel } : {}),
    },
    requireRemote,
    requireDeployment,
    ...(opts.env ? { env: opts.env } : {}),
    ...(opts.apiKey !== undefined ? { apiKey: opts.apiKey } : {}),
  });
}

/** The validated configuration and an open session on it. */
export async function connect(opts: ConnectionOptions): Promise<Session> {
  const config = await resolveConfig(opts);
  const logger = typeof opts.logger === 'function' ? opts.logger(config) : opts.logger;
  return openSession(config, logger);
}

/** The deployment a command worked on, as results name it. */
export interface DeploymentRef {
  id: string;
  /** The service's host (and port). */
  host: string;
}

export const deploymentRef = (config: Config): DeploymentRef => ({ id: config.deploymentId, host: new URL(config.baseUrl).host });
