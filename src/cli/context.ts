import type { Command } from 'commander';
import { loadConfig, type Config, type ConfigFlags } from '../config/config.js';
import { createLogger } from './logger.js';
import { openSession, type Session } from '../sync/session.js';

/** Global flags every command accepts (declared once on the program). */
export interface GlobalFlags extends ConfigFlags {
  json?: boolean;
}

export function globalFlags(cmd: Command): GlobalFlags {
  return cmd.optsWithGlobals<GlobalFlags>();
}

export async function configFor(cmd: Command, requireRemote = true): Promise<Config> {
  const flags = globalFlags(cmd);
  return loadConfig({ flags, requireRemote });
}

export async function sessionFor(cmd: Command): Promise<Session> {
  const config = await configFor(cmd);
  return openSession(config, createLogger(config.logLevel));
}

export const targetName = (config: Config): string => `deployment ${config.deploymentId} (${new URL(config.baseUrl).host})`;
