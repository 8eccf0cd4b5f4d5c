import type { Command } from 'commander';
import type { Deployment } from '../../api/types.js';
import { loadConfig, readConfigFile } from '../../config/config.js';
import { setConfigFields } from '../../config/edit.js';
import { usageError } from '../../errors.js';
import { HostingClient } from '../../remote/client.js';
import { pc } from '../colors.js';
import { configEditJson, configEditLine } from '../config-changes.js';
import { globalFlags } from '../context.js';
import { createLogger } from '../logger.js';
import { askChoice, canPrompt } from '../prompt.js';

export interface LinkFlags {
  name?: string;
}

/** The part of a deployment record that `link` shows and checks. */
export interface LinkChoice {
  id: string;
  name: string;
  state: string;
}

/**
 * Picks the deployment from what the key can see: `--deployment ID` (must be in the list),
 * `--name NAME` (exact, case-insensitive, and unique), the only one there is, or a choice
 * on a terminal. Anything else is a usage error that says which flag to pass.
 */
export async function chooseDeployment(
  visible: LinkChoice[],
  by: { id?: string; name?: string },
  ask: ((choices: LinkChoice[]) => Promise<number>) | null,
): Promise<LinkChoice> {
  if (visible.length === 0) throw usageError('this key sees no deployment: create one in the dashboard, or use a key of the account that owns it');
  if (by.id) {
    const hit = visible.find((d) => d.id === by.id);
    if (!hit) throw usageError(`deployment ${by.id} is not among the ${visible.length} this key can see: run \`hostsync link\` to pick one, or check the id`);
    return hit;
  }
  if (by.name) {
    const wanted = by.name.toLowerCase();
    const hits = visible.filter((d) => d.name.toLowerCase() === wanted);
    if (hits.length === 1) return hits[0]!;
    if (hits.length > 1) throw usageError(`${hits.length} deployments are named "${by.name}" (${hits.map((d) => d.id).join(', ')}): pass --deployment ID instead`);
    const near = visible.filter((d) => d.name.toLowerCase().includes(wanted)).map((d) => `"${d.name}"`);
    throw usageError(`no deployment is named "${by.name}"${near.length ? ` (did you mean ${near.join(' or ')}?)` : ''}: run \`hostsync link\` to list them`);
  }
  if (visible.length === 1) return visible[0]!;
  if (!ask) throw usageError(`this key sees ${visible.length} deployments: pass --deployment ID or --name NAME (listed above)`);
  return visible[await ask(visible)]!;
}

export const choiceLine = (d: LinkChoice, i?: number): string =>
  `${i === undefined ? '' : `${String(i + 1).padStart(3)}) `}${d.name}  ${pc.dim(d.id)}  ${d.state === 'running' ? pc.green(d.state) : d.state}`;

/**
 * `hostsync link`: lists the deployments the key can see (deployments.list), picks one, and
 * writes it into hostsync.json (creating the file when missing). Like `vercel link`.
 */
export async function linkCommand(flags: LinkFlags, cmd: Command): Promise<number> {
  const g = globalFlags(cmd);
  const json = g.json ?? false;
  // The deployment is what link decides, so only a flag names it here, not the file or the environment.
  const config = await loadConfig({ flags: { ...g, deployment: undefined }, requireDeployment: false });
  const client = new HostingClient({ baseUrl: config.baseUrl, apiKey: config.apiKey, deploymentId: '', logger: createLogger(config.logLevel) });
  try {
    const { deployments } = await client.deployments.list();
    const visible: LinkChoice[] = deployments.map((d: Deployment) => ({ id: d.id, name: d.name, state: d.state }));
    const interactive = canPrompt(json) && !g.deployment && !flags.name;
    if (!json && (interactive || (!g.deployment && !flags.name && visible.length > 1))) {
      const out = interactive ? process.stdout : process.stderr;
      out.write(`Deployments this key can see on ${new URL(config.baseUrl).host}:\n${visible.map((d, i) => choiceLine(d, i)).join('\n')}\n`);
    }
    const chosen = await chooseDeployment(
      visible,
      { ...(g.deployment ? { id: g.deployment } : {}), ...(flags.name ? { name: flags.name } : {}) },
      interactive ? () => askChoice('Link to which deployment?', visible.length) : null,
    );
    // The base URL goes into the file when it was given as a flag, or when the file has none yet.
    const fileBaseUrl = (await readConfigFile(config.root)).baseUrl;
    const edit = await setConfigFields(config.root, {
      deployment: chosen.id,
      ...(g.baseUrl || !fileBaseUrl ? { baseUrl: config.baseUrl } : {}),
    });
    const requests = client.stats().total;
    if (json) {
      process.stdout.write(`${JSON.stringify({ ok: true, deployment: chosen, baseUrl: config.baseUrl, config: configEditJson(edit), requests })}\n`);
    } else {
      process.stdout.write(`Linked ${config.root} to ${choiceLine(chosen)}\n${configEditLine(edit)}\n`);
    }
    return 0;
  } finally {
    await client.close();
  }
}
