/**
 * Whether the project is a worker (a bot, a queue consumer): an app that listens on no port,
 * so the address the service lists for it refuses connections (issue 46, item 10: `open`
 * printed it). Known from hostsync.json's `"health": {"kind": "worker"}`, or, with the kind
 * left to auto, from a bot package the project depends on (as `init` reads it).
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import type { Config } from '../config/config.js';
import { detectProjectKind } from '../config/project-kind.js';

/** Why the project is known to be a worker ("health" kind worker in hostsync.json, package.json lists discord.js); null when it is not known to be one. */
export async function knownWorker(config: Pick<Config, 'health' | 'root'>): Promise<string | null> {
  if (config.health.kind === 'worker') return '"health": {"kind": "worker"} in hostsync.json';
  if (config.health.kind !== 'auto') return null;
  const read = (name: string): Promise<string | null> => readFile(path.join(config.root, name), 'utf8').catch(() => null);
  const kind = detectProjectKind({ packageJson: await read('package.json'), requirements: await read('requirements.txt') });
  return kind?.kind === 'worker' ? `${kind.manifest} lists ${kind.package}` : null;
}
