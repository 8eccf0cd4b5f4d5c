import type { Config } from '../config/config.js';

/** One line on stderr when a command talks to the running `hostsync dev` emulator, so nobody mistakes it for the real service. */
export function noteDevEmulator(config: Pick<Config, 'devEmulator' | 'deploymentId'>): void {
  if (config.devEmulator) process.stderr.write(`hostsync: using the running \`hostsync dev\` emulator at ${config.devEmulator} (deployment ${config.deploymentId})\n`);
}
