import type { Command } from 'commander';
import { runRestart, type RestartResult } from '../../app/restart.js';
import { connectionFlags, globalFlags } from '../context.js';
import { emitResult } from '../output.js';
import { renderHealth, targetName } from '../render.js';

function summary(r: RestartResult): string {
  const secs = (r.durationMs / 1000).toFixed(2);
  return `Restarted ${targetName(r.deployment)} (${r.requests.total} request${r.requests.total === 1 ? '' : 's'}, ${secs} s)`;
}

const render = (r: RestartResult): string => [...renderHealth(r.apply, r.health, r.healthy), summary(r)].join('\n');

/** `hostsync restart`: restart the app and judge it as push does (exit 4 when it does not come up). */
export async function restartCommand(cmd: Command): Promise<number> {
  const g = globalFlags(cmd);
  return emitResult(await runRestart(connectionFlags(cmd)), g.json ?? false, render, { quiet: g.quiet ?? false, summary });
}
