import type { Command } from 'commander';
import { serviceHint } from '../service-hint.js';
import { followDeploymentLogs, runLogs, type LogsOptions } from '../../app/logs.js';
import { EXIT } from '../../errors.js';
import type { FollowEvent } from '../../watch/log-follower.js';
import { pc } from '../colors.js';
import { connectionFlags, globalFlags } from '../context.js';
import { emitResult } from '../output.js';
import { safeLogLine, safeText } from '../terminal-text.js';

export interface LogsFlags {
  lines?: number;
  follow?: boolean;
  grep?: string;
}

/**
 * A follow event for a human: console lines on stdout, as the app printed them (so
 * `logs --follow | grep` works), and what hostsync has to say on stderr.
 */
export function renderFollowEvent(e: FollowEvent): { out: 'stdout' | 'stderr'; text: string } | null {
  switch (e.type) {
    case 'line':
      return { out: 'stdout', text: safeLogLine(e.line) };
    case 'state':
      return { out: 'stderr', text: pc.dim(`-- deployment ${safeText(e.state)}${e.hint ? `: ${safeText(serviceHint(e.hint))}` : ''}`) };
    case 'gap':
      return { out: 'stderr', text: pc.yellow('-- more lines arrived between two reads than one read holds (500); some were not shown') };
    case 'waiting':
      return { out: 'stderr', text: pc.yellow(`-- ${safeText(e.message)}; retrying in ${Math.round(e.retryInMs / 1000)} s`) };
    case 'recovered':
      return { out: 'stderr', text: pc.dim('-- reading the logs again') };
  }
}

/** `hostsync logs`: the deployment's console; `--follow` keeps printing new lines until Ctrl-C (exit 0). */
export async function logsCommand(flags: LogsFlags, cmd: Command): Promise<number> {
  const g = globalFlags(cmd);
  const json = g.json ?? false;
  const opts: LogsOptions = {
    ...connectionFlags(cmd),
    ...(flags.lines === undefined ? {} : { lines: flags.lines }),
    ...(flags.grep === undefined ? {} : { grep: flags.grep }),
  };
  if (!flags.follow) {
    const outcome = await runLogs(opts);
    if (json || !outcome.result.ok) return emitResult(outcome, json, () => '');
    for (const line of outcome.result.lines) process.stdout.write(`${safeLogLine(line)}\n`);
    return EXIT.ok;
  }

  const stop = new AbortController();
  let signals = 0;
  const onSignal = (): void => {
    if (++signals > 1) process.exit(EXIT.ok);
    stop.abort();
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  process.stdout.on('error', () => stop.abort());
  try {
    const end = await followDeploymentLogs({ ...opts, signal: stop.signal }, (e) => {
      if (json) {
        process.stdout.write(`${JSON.stringify({ ...e, time: new Date().toISOString() })}\n`);
        return;
      }
      const shown = renderFollowEvent(e);
      if (shown) (shown.out === 'stdout' ? process.stdout : process.stderr).write(`${shown.text}\n`);
    });
    if (end.ok) return EXIT.ok;
    if (json) process.stdout.write(`${JSON.stringify({ type: 'fatal', message: end.error, exitCode: end.exitCode })}\n`);
    else process.stderr.write(`hostsync: ${safeText(end.error ?? '')}\n`);
    return end.exitCode ?? EXIT.failed;
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
}
