import type { Command } from 'commander';
import { runRestart, type RestartResult } from '../../app/restart.js';
import { connectionFlags, globalFlags } from '../context.js';
import { emitResult } from '../output.js';
import { pc } from '../colors.js';
import { renderHealth, restartsToday, targetName } from '../render.js';
import { safeText } from '../terminal-text.js';

function summary(r: RestartResult): string {
  const secs = (r.durationMs / 1000).toFixed(2);
  const count = r.restarts ? `, ${restartsToday(r.restarts)}` : '';
  return `Restarted ${targetName(r.deployment)} (${r.requests.total} request${r.requests.total === 1 ? '' : 's'}, ${secs} s${count})`;
}

const render = (r: RestartResult): string =>
  [...renderHealth(r.apply, r.health, r.healthy), ...r.warnings.map((w) => pc.yellow(`warning: ${safeText(w)}`)), summary(r)].join('\n');

/** `hostsync restart`: restart the app and judge it as push does (exit 4 when it does not come up). */
export async function restartCommand(cmd: Command, opts: { force?: boolean } = {}): Promise<number> {
  const g = globalFlags(cmd);
  return emitResult(await runRestart({ ...connectionFlags(cmd), ...(opts.force ? { force: true } : {}) }), g.json ?? false, render, { quiet: g.quiet ?? false, summary });
}
