import type { Command } from 'commander';
import { push } from '../../sync/push.js';
import { globalFlags, sessionFor, targetName } from '../context.js';
import { renderStatus } from '../render.js';

/** `hostsync status`: a dry run of push, shown git-style. Exit 0 whatever it finds. */
export async function statusCommand(cmd: Command): Promise<number> {
  const json = globalFlags(cmd).json ?? false;
  const session = await sessionFor(cmd);
  try {
    const report = await push(session, { dryRun: true, allowMassDelete: true });
    if (json) {
      process.stdout.write(
        `${JSON.stringify({
          changes: report.changes.map((c) => (c.kind === 'rename' ? { kind: c.kind, from: c.from, to: c.to } : { kind: c.kind, path: c.path })),
          conflicts: report.conflicts.map((c) => ({ path: c.path, reason: c.reason })),
          drift: report.drift.map((d) => ({ path: d.path, kind: d.kind })),
          remoteOnly: report.remoteOnly.length,
          requests: session.client.stats(),
        })}\n`,
      );
    } else {
      process.stdout.write(`${renderStatus(report, targetName(session.config))}\n`);
    }
    return 0;
  } finally {
    await session.close();
  }
}
