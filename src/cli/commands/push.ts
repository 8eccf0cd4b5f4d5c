import type { Command } from 'commander';
import { acquireLock, type Lock } from '../../state/lock.js';
import { describeError, markReported } from '../errors.js';
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
  const progress = progressBar(!json);
  let lock: Lock | null = null;
  try {
    lock = flags.dryRun ? null : await acquireLock(session.stateDir, 'push');
    const report = await push(session, {
      dryRun: flags.dryRun ?? false,
      force: flags.force ?? false,
      mirror: flags.mirror ?? false,
      noApply: flags.apply === false,
      allowMassDelete: flags.allowMassDelete ?? false,
      checkIdle: true,
      ...(progress.onProgress ? { onProgress: progress.onProgress } : {}),
    });
    progress.stop();
    const code = exitCodeFor(report);
    const stats = session.client.stats();
    if (json) process.stdout.write(`${JSON.stringify(pushJson(report, stats, code === 0))}\n`);
    else process.stdout.write(`${renderPush(report, stats, targetName(session.config))}\n`);
    return code;
  } catch (err) {
    // CI reads stdout as one JSON object whatever happened: the contract's fields, plus the error.
    if (json) {
      const { message, exitCode } = describeError(err, session.config.apiKey);
      const stats = session.client.stats();
      process.stdout.write(
        `${JSON.stringify({ ok: false, error: message, exitCode, changes: { written: 0, deleted: 0, moved: 0, chmod: 0 }, conflicts: [], requests: { total: stats.total, byOperation: stats.byOperation, rateLimited: stats.rateLimited }, apply: null, healthy: null })}\n`,
      );
      markReported(err);
    }
    throw err;
  } finally {
    progress.stop();
    await lock?.release();
    await session.close();
  }
}
