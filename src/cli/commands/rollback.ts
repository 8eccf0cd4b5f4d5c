import type { Command } from 'commander';
import { runRollback } from '../../app/rollback.js';
import { connectionFlags, globalFlags } from '../context.js';
import { emitResult } from '../output.js';
import { restoreProgress } from '../progress.js';
import { renderRollback } from '../render-rollback.js';

/** `hostsync rollback <id>`: the deployment's files back to what they were right after that push. */
export async function rollbackCommand(id: string, flags: { dryRun?: boolean; force?: boolean; apply?: boolean }, cmd: Command): Promise<number> {
  const g = globalFlags(cmd);
  const json = g.json ?? false;
  const progress = restoreProgress(!json && !(g.quiet ?? false));
  try {
    const run = await runRollback({
      ...connectionFlags(cmd),
      id,
      dryRun: flags.dryRun ?? false,
      force: flags.force ?? false,
      apply: flags.apply !== false,
      ...(progress.onProgress ? { onProgress: progress.onProgress } : {}),
    });
    progress.stop();
    return emitResult(run, json, renderRollback);
  } finally {
    progress.stop();
  }
}
