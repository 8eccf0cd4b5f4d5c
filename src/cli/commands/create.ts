import type { Command } from 'commander';
import { runCreate, type CreateResult } from '../../app/create.js';
import { configEditLine } from '../config-changes.js';
import { connectionFlags, globalFlags } from '../context.js';
import { emitResult } from '../output.js';

function render(r: CreateResult): string {
  const d = r.deployment!;
  const lines = [`Created ${d.name} (${d.id}): ${d.runtime}${d.ramMB ? `, ${d.ramMB} MB RAM` : ''}`];
  if (r.config) lines.push(configEditLine(r.config));
  lines.push('Then: hostsync push (it sets the entry file and start command of hostsync.json, and sends the files).');
  return lines.join('\n');
}

/** `hostsync create NAME`: a deployment from the project's settings, linked in hostsync.json. */
export async function createCommand(name: string, cmd: Command): Promise<number> {
  const g = globalFlags(cmd);
  return emitResult(await runCreate({ ...connectionFlags(cmd), name }), g.json ?? false, render, { quiet: g.quiet ?? false });
}
