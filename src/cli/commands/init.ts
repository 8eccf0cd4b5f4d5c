import { readFile, writeFile, appendFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Command } from 'commander';
import { CONFIG_FILE, normaliseBaseUrl, resolveRoot } from '../../config/config.js';
import { setConfigFields } from '../../config/edit.js';
import { configEditJson, configEditLine } from '../config-changes.js';
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
 * `hostsync init`: writes hostsync.json and .syncignore, never overwriting either. On an
 * existing hostsync.json, `--deployment` and `--base-url` update those fields (and it says
 * so); everything else in the file is kept. Says how to provide the key, which hostsync
 * never writes to a file.
 */
export async function initCommand(cmd: Command): Promise<number> {
  const flags = globalFlags(cmd);
  const root = await resolveRoot(flags.dir);
  const lines: string[] = [];
  const configPath = path.join(root, CONFIG_FILE);
  const existed = await exists(configPath);

  // On a new file the environment fills in too; an existing file changes only on a flag.
  const deployment = flags.deployment ?? (existed ? undefined : process.env.HOSTSYNC_DEPLOYMENT || undefined);
  const baseUrlRaw = flags.baseUrl ?? (existed ? undefined : process.env.HOSTSYNC_BASE_URL || undefined);
  const baseUrl = baseUrlRaw ? normaliseBaseUrl(baseUrlRaw, flags.baseUrl ? '--base-url' : 'HOSTSYNC_BASE_URL') : undefined;
  const edit = await setConfigFields(root, { ...(deployment ? { deployment } : {}), ...(baseUrl ? { baseUrl } : {}) });
  if (existed && !deployment && !baseUrl) {
    lines.push(`kept ${CONFIG_FILE} (it exists already; --deployment or --base-url update it, \`hostsync link\` picks a deployment)`);
  } else {
    lines.push(configEditLine(edit));
  }
  if (edit.created) {
    if (!deployment) lines.push(`  run \`hostsync link\` to pick your deployment (or set "deployment" in ${CONFIG_FILE}, or HOSTSYNC_DEPLOYMENT)`);
    if (!baseUrl) lines.push(`  set "baseUrl" in ${CONFIG_FILE} (or HOSTSYNC_BASE_URL) to the service address`);
  }

  const ignorePath = path.join(root, '.syncignore');
  const ignoreExisted = await exists(ignorePath);
  if (ignoreExisted) {
    lines.push('kept .syncignore (it exists already)');
  } else {
    await writeFile(ignorePath, await readFile(EXAMPLE, 'utf8'));
    lines.push('wrote .syncignore (gitignore syntax; edit it to keep files off the deployment)');
  }

  const gitignore = path.join(root, '.gitignore');
  let gitignoreAdded = false;
  if (await exists(gitignore)) {
    const text = await readFile(gitignore, 'utf8');
    if (!text.split(/\r?\n/).some((l) => l.trim() === `${STATE_DIR}/` || l.trim() === STATE_DIR)) {
      await appendFile(gitignore, `${text.endsWith('\n') || text === '' ? '' : '\n'}${STATE_DIR}/\n`);
      lines.push(`added ${STATE_DIR}/ to .gitignore (hostsync's local state)`);
      gitignoreAdded = true;
    }
  }

  if (globalFlags(cmd).json) {
    process.stdout.write(
      `${JSON.stringify({ ok: true, root, config: configEditJson(edit), syncignore: ignoreExisted ? 'kept' : 'written', gitignoreAdded })}\n`,
    );
    return 0;
  }
  lines.push('');
  lines.push('Provide the API key through the environment (it is never stored in a file):');
  lines.push('  export HOSTSYNC_API_KEY=<key>   # create one in the account\'s developer settings, with files:read, files:write, deployments:read and deployments:write');
  lines.push('Then: hostsync status, hostsync push, or hostsync watch.');
  process.stdout.write(`${lines.join('\n')}\n`);
  return 0;
}
