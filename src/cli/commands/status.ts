import type { Command } from 'commander';
import { runStatus } from '../../app/status.js';
import { connectionFlags, globalFlags } from '../context.js';
import { emitResult } from '../output.js';
import { renderStatus, statusSummary } from '../render.js';

/** `hostsync status`: a dry run of push, shown git-style. Exits like `push --dry-run`: 3 when a push would be refused. */
export async function statusCommand(opts: { scan?: boolean }, cmd: Command): Promise<number> {
  const g = globalFlags(cmd);
  return emitResult(await runStatus({ ...connectionFlags(cmd), ...(opts.scan ? { scan: true } : {}) }), g.json ?? false, renderStatus, { quiet: g.quiet ?? false, summary: statusSummary });
}
