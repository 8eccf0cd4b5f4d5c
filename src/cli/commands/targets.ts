import type { Command } from 'commander';
import { runTargets, type TargetsResult } from '../../app/targets.js';
import { CONFIG_FILE } from '../../config/config.js';
import { globalFlags } from '../context.js';
import { emitResult } from '../output.js';

export function renderTargets(r: TargetsResult): string {
  if (r.targets.length === 0) {
    return `${CONFIG_FILE} defines no targets; add one with \`hostsync init --target staging --deployment ID\``;
  }
  const width = Math.max(...r.targets.map((t) => t.name.length));
  const lines = r.targets.map((t) => {
    const marks = [t.isDefault ? 'default' : '', t.confirm ? 'asks to confirm' : ''].filter(Boolean).join(', ');
    return `${t.selected ? '*' : ' '} ${t.name.padEnd(width)}  deployment ${t.deployment ?? '(none)'}${t.baseUrl ? ` on ${t.baseUrl}` : ''}${marks ? `  (${marks})` : ''}`;
  });
  lines.push(r.selected ? `* = selected now (--target > HOSTSYNC_TARGET > "defaultTarget")` : 'none selected: pass --target NAME, set HOSTSYNC_TARGET, or "defaultTarget"');
  return lines.join('\n');
}

/** `hostsync targets`: lists hostsync.json's targets; sends nothing. */
export async function targetsCommand(cmd: Command): Promise<number> {
  const g = globalFlags(cmd);
  const outcome = await runTargets({ ...(g.dir !== undefined ? { dir: g.dir } : {}), ...(g.target !== undefined ? { target: g.target } : {}) });
  return emitResult(outcome, g.json ?? false, renderTargets);
}
