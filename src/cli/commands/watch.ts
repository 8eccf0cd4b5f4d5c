import type { Command } from 'commander';
import { startWatch, type WatchEvent } from '../../watch/daemon.js';
import { renderWatchEvent, watchEventJson } from '../watch-render.js';
import type { WatcherBackend } from '../../watch/watcher-backend.js';
import { globalFlags, sessionFor, targetName } from '../context.js';
import { EXIT } from '../../errors.js';

export interface WatchFlags {
  /** commander's `--no-apply` */
  apply?: boolean;
  watcher?: WatcherBackend;
}

/** After the daemon stopped, the process gets this long to exit by itself before it is made to. */
const EXIT_GUARD_MS = 1_000;

/**
 * `hostsync watch`: runs the daemon until SIGINT/SIGTERM (exit 0 after finishing or
 * safely abandoning the cycle in flight), or until a configuration error (exit 2).
 * A second Ctrl-C exits at once; the lock it leaves is recognised as stale next time.
 */
export async function watchCommand(flags: WatchFlags, cmd: Command): Promise<number> {
  const json = globalFlags(cmd).json ?? false;
  const session = await sessionFor(cmd);
  const noApply = flags.apply === false;
  const ctx = { target: targetName(session.config), root: session.config.root, noApply };
  const onEvent = (e: WatchEvent): void => {
    const text = json ? [JSON.stringify(watchEventJson(e))] : renderWatchEvent(e, ctx);
    if (e.type === 'fatal' && !json) process.stderr.write(`${text.join('\n')}\n`);
    else if (text.length > 0) process.stdout.write(`${text.join('\n')}\n`);
  };

  let signals = 0;
  let daemon: Awaited<ReturnType<typeof startWatch>> | null = null;
  const onSignal = (): void => {
    signals++;
    if (signals > 1) process.exit(130);
    if (daemon) {
      void daemon.stop();
      return;
    }
    // Still starting (the initial sync can take a while): cancel its requests and leave.
    // A push cut short is safe by design, and the lock it leaves is recognised as stale.
    void session.client.destroy().catch(() => undefined);
    setTimeout(() => process.exit(EXIT.ok), 200).unref();
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  try {
    daemon = await startWatch(session, { noApply, backend: flags.watcher ?? 'auto', onEvent });
    if (signals > 0) void daemon.stop(); // a signal that arrived while starting
    const end = await daemon.done;
    // Anything still holding the event loop (an abandoned request) must not delay the exit.
    setTimeout(() => process.exit(end.fatal ? end.fatal.exitCode : EXIT.ok), EXIT_GUARD_MS).unref();
    return end.fatal ? end.fatal.exitCode : EXIT.ok;
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
    await session.close();
  }
}
