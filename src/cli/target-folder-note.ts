import type { Config } from '../config/config.js';

/** One line on stderr when the target was taken from the folder the command runs in, so a command never works on a target nobody named without saying so. */
export function noteTargetFromFolder(config: Pick<Config, 'target' | 'targetFromFolder'>): void {
  if (config.targetFromFolder && config.target) process.stderr.write(`hostsync: target ${config.target} (this folder)\n`);
}
