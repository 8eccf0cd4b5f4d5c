import { readFile, writeFile, appendFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Command } from 'commander';
import { CONFIG_FILE, normaliseBaseUrl, resolveRoot, type ConfigFile } from '../../config/config.js';
import { STATE_DIR } from '../../state/paths.js';
import { globalFlags } from '../context.js';

/** The template ships in the package root, beside package.json. */
const EXAMPLE = fileURLToPath(new URL('../../../.syncignore.example', import.meta.url));

async function exists(file: string): Promise<boolean> {
  try {
    await readFile(file);
    return true;
  } catch {
    return false;
  }
}

/**
 * `hostsync init`: writes hostsync.json and .syncignore, never overwriting either, and
 * says how to provide the key (which is never written to a file by hostsync).
 */
export async function initCommand(cmd: Command): Promise<number> {
  const flags = globalFlags(cmd);
  const root = await resolveRoot(flags.dir);
  const lines: string[] = [];

  const configPath = path.join(root, CONFIG_FILE);
  if (await exists(configPath)) {
    lines.push(`kept ${CONFIG_FILE} (it exists already)`);
  } else {
    const deployment = flags.deployment ?? process.env.HOSTSYNC_DEPLOYMENT;
    const baseUrl = flags.baseUrl ?? process.env.HOSTSYNC_BASE_URL;
    const config: ConfigFile = {
      ...(deployment ? { deployment } : {}),
      ...(baseUrl ? { baseUrl: normaliseBaseUrl(baseUrl, flags.baseUrl ? '--base-url' : 'HOSTSYNC_BASE_URL') } : {}),
      ignore: [],
      restart: 'auto',
      hotPaths: ['public/**', '*.css', '*.html'],
    };
    await writeFile(configPath, `${JSON.stringify(config, null, 2)}\n`);
    lines.push(`wrote ${CONFIG_FILE}`);
    if (!deployment) lines.push(`  set "deployment" in ${CONFIG_FILE} (or HOSTSYNC_DEPLOYMENT) to your deployment's id`);
    if (!baseUrl) lines.push(`  set "baseUrl" in ${CONFIG_FILE} (or HOSTSYNC_BASE_URL) to the service address`);
  }

  const ignorePath = path.join(root, '.syncignore');
  if (await exists(ignorePath)) {
    lines.push('kept .syncignore (it exists already)');
  } else {
    await writeFile(ignorePath, await readFile(EXAMPLE, 'utf8'));
    lines.push('wrote .syncignore (gitignore syntax; edit it to keep files off the deployment)');
  }

  const gitignore = path.join(root, '.gitignore');
  if (await exists(gitignore)) {
    const text = await readFile(gitignore, 'utf8');
    if (!text.split(/\r?\n/).some((l) => l.trim() === `${STATE_DIR}/` || l.trim() === STATE_DIR)) {
      await appendFile(gitignore, `${text.endsWith('\n') || text === '' ? '' : '\n'}${STATE_DIR}/\n`);
      lines.push(`added ${STATE_DIR}/ to .gitignore (hostsync's local state)`);
    }
  }

  lines.push('');
  lines.push('Provide the API key through the environment (it is never stored in a file):');
  lines.push('  export HOSTSYNC_API_KEY=<key>   # create one in the account\'s developer settings, with files:read, files:write, deployments:read and deployments:write');
  lines.push('Then: hostsync status, hostsync push, or hostsync watch.');
  process.stdout.write(`${lines.join('\n')}\n`);
  return 0;
}
