/**
 * The client a command talks to the service with. Every command makes it here (openSession
 * for the commands with a session, the others directly), so HOSTSYNC_TIMEOUT and
 * HOSTSYNC_DEADLINE reach every one of them: a command that made its own client used to
 * miss the deadline, and a server trickling its answers held `open`, `logs`, `exec` and
 * `create` for minutes past it (issue 44, item 8).
 */
import type { Logger } from 'pino';
import type { Config } from '../config/config.js';
import { HostingClient } from '../remote/client.js';

export interface CommandClientOptions {
  /**
   * The command's own deadline (app/tunables.ts), which HOSTSYNC_DEADLINE (config.deadlineSeconds)
   * replaces, `0` there meaning none. `null`: the command runs until it is stopped (watch,
   * logs --follow) and has no deadline, HOSTSYNC_DEADLINE included: each of its requests
   * is still bounded by HOSTSYNC_TIMEOUT, and a failure is reported and waited out.
   */
  deadlineMs: number | null;
  /** The deployment the calls name; default the configuration's (create and link have none yet: ''). */
  deploymentId?: string;
  /** Another client's connections to use (HostingClient's connectionsOf). */
  connectionsOf?: HostingClient;
}

/** The deadline a command runs under, in ms; undefined: none. */
export function commandDeadlineMs(config: Pick<Config, 'deadlineSeconds'>, ownMs: number | null): number | undefined {
  if (ownMs === null) return undefined;
  const ms = config.deadlineSeconds !== undefined ? config.deadlineSeconds * 1000 : ownMs;
  return ms > 0 ? ms : undefined;
}

export function commandClient(config: Config, logger: Logger | undefined, opts: CommandClientOptions): HostingClient {
  const deadlineMs = commandDeadlineMs(config, opts.deadlineMs);
  return new HostingClient({
    baseUrl: config.baseUrl,
    baseUrlFrom: config.baseUrlFrom,
    apiKey: config.apiKey,
    deploymentId: opts.deploymentId ?? config.deploymentId,
    ...(logger ? { logger } : {}),
    ...(config.timeoutSeconds === undefined ? {} : { timeoutMs: config.timeoutSeconds * 1000 }),
    ...(deadlineMs === undefined ? {} : { deadlineMs }),
    ...(opts.connectionsOf ? { connectionsOf: opts.connectionsOf } : {}),
  });
}
