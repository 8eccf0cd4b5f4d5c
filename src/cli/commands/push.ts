import type { Command } from 'commander';
import { runPush } from '../../app/push.js';
import { connectionFlags, globalFlags } from '../context.js';
import { emitResult } from '../output.js';
import { progressBar } from '../progress.js';
import { renderPush } from '../render.js';

export interface PushFlags {
  dryRun?: boolean;
  force?: boolean;
  mirror?: boolean;
  apply?: boolean;
  allowMassDelete?: boolean;
}

export async function pushCommand(flags: PushFlags, cmd: Command): Promise<number> {
  const json = globalFlags(cmd).json ?? false;
  const progress = progressBar(!json);
  try {
    const outcome = await runPush({
      ...connectionFlags(cmd),
      dryRun: flags.dryRun ?? false,
      force: flags.force ?? false,
      mirror: flags.mirror ?? false,
      apply: flags.apply !== false,
      allowMassDelete: flags.allowMassDelete ?? false,
      ...(progress.onProgress ? { onProgress: progress.onProgress } : {}),
    });
    progress.stop();
    return emitResult(outcome, json, renderPush);
  } finally {
    progress.stop();
  }
}
