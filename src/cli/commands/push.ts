import type { Command } from 'commander';
import { runPush } from '../../app/push.js';
import { connectionFlags, globalFlags } from '../context.js';
import { emitResult } from '../output.js';
import { progressBar } from '../progress.js';
import { pushSummary, renderPush } from '../render.js';

export interface PushFlags {
  dryRun?: boolean;
  force?: boolean;
  mirror?: boolean;
  apply?: boolean;
  allowMassDelete?: boolean;
  backup?: boolean;
}

export async function pushCommand(flags: PushFlags, cmd: Command): Promise<number> {
  const g = globalFlags(cmd);
  const json = g.json ?? false;
  const quiet = g.quiet ?? false;
  const progress = progressBar(!json && !quiet);
  try {
    const outcome = await runPush({
      ...connectionFlags(cmd),
      dryRun: flags.dryRun ?? false,
      force: flags.force ?? false,
      mirror: flags.mirror ?? false,
      apply: flags.apply !== false,
      allowMassDelete: flags.allowMassDelete ?? false,
      backup: flags.backup !== false,
      ...(progress.onProgress ? { onProgress: progress.onProgress } : {}),
    });
    progress.stop();
    return emitResult(outcome, json, renderPush, { quiet, summary: pushSummary });
  } finally {
    progress.stop();
  }
}
