import type { Command } from 'commander';
import { runStatus } from '../../app/status.js';
import { connectionFlags, globalFlags } from '../context.js';
import { emitResult } from '../output.js';
import { renderStatus } from '../render.js';

/** `hostsync status`: a dry run of push, shown git-style. Exit 0 whatever it finds. */
export async function statusCommand(cmd: Command): Promise<number> {
  return emitResult(await runStatus(connectionFlags(cmd)), globalFlags(cmd).json ?? false, renderStatus);
}
