import type { Command } from 'commander';
import { acquireLock } from '../../state/lock.js';
import { push } from '../../sync/push.js';
import { globalFlags, sessionFor, targetName } from '../context.js';
import { exitCodeFor } from '../outcome.js';
import { progressBar } from '../progress.js';
import { pushJson, renderPush } from '../render.js';

export interface PushFlags {
  dryRun?: boolean;
  force?: boolean;
  mirror?: boolean;
  apply?: boolean;
  allowMassDelete?: boolean;
}

export async function pushCommand(flags: PushFlags, cmd: Command): Promise<number> {
  const json = globalFlags(cmd).json ?? false;
  const session = await sessionFor(cmd);
  const lock = flags.dryRun ? null : await acquireLock(session.stateDir, 'push');
  const progress = progressBar(!json);
  try {
    const report = await push(session, {
      dryRun: flags.dryRun ?? false,
      force: flags.force ?? false,
      mirror: flags.mirror ?? false,
      noApply: flags.apply === false,
      allowMassDelete: flags.allowMassDelete ?? false,
      ...(progress.onProgress ? { onProgress: progress.onProgress } : {}),
    });
    progress.stop();
    const code = exitCodeFor(report);
    const stats = session.client.stats();
    if (json) process.stdout.write(`${JSON.stringify(pushJson(report, stats, code === 0))}\n`);
    else process.stdout.write(`${renderPush(report, stats, targetName(session.config))}\n`);
    return code;
  } finally {
    progress.stop();
    await lock?.release();
    await session.close();
  }
}
