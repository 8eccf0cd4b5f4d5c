import type { DeploymentState } from '../api/types.js';
import { SEARCH_LOGS_MAX_LINES } from '../api/limits.js';
import { usageError } from '../errors.js';
import type { HostingClient } from '../remote/client.js';
import { followLogs, type FollowEvent } from '../watch/log-follower.js';
import { LOGS_FOLLOW_SIZE } from '../watch/tunables.js';
import { clientFor, resolveConfig, type ConnectionOptions } from './options.js';
import { READ_COMMAND_DEADLINE_MS } from './tunables.js';
import { failedWith, requestsOf, runCommand, type FailureFields, type Outcome, type RequestsSummary } from './result.js';

/** `logs` shows this many lines unless --lines says otherwise: the default size of deployments.logs. */
export const LOGS_DEFAULT_LINES = 100;

export interface LogsOptions extends ConnectionOptions {
  /** The last N lines (at most 500, what the service answers). */
  lines?: number;
  /** Only lines matching this regular expression, case-insensitively (as deployments.searchLogs matches). */
  grep?: string;
}

/** What `logs --json` prints and `logs()` resolves to. */
export interface LogsReport extends Partial<FailureFields> {
  ok: boolean;
  lines: string[];
  state: DeploymentState | null;
  hint: string;
  requests: RequestsSummary;
}

export const emptyLogsReport = (): LogsReport => ({ ok: false, lines: [], state: null, hint: '', requests: requestsOf(null) });

/** The --grep pattern as a RegExp; a bad one is a usage error naming it. */
export function grepPattern(grep: string | undefined): RegExp | undefined {
  if (grep === undefined) return undefined;
  try {
    return new RegExp(grep, 'i');
  } catch (err) {
    throw usageError(`--grep ${JSON.stringify(grep)} is not a valid regular expression (${(err as Error).message.replace(/^Invalid regular expression: /, '')}); quote it, or escape special characters with \\`);
  }
}

function linesWanted(lines: number | undefined): number {
  const n = lines ?? LOGS_DEFAULT_LINES;
  if (!Number.isInteger(n) || n < 0 || n > LOGS_FOLLOW_SIZE) throw usageError(`--lines must be a whole number from 0 to ${LOGS_FOLLOW_SIZE} (the most the service answers)`);
  return n;
}

/** `deadlineMs`: the command's own; null for --follow, which runs until stopped (sync/command-client.ts). */
async function openClient(opts: ConnectionOptions, deadlineMs: number | null): Promise<{ client: HostingClient; apiKey: string }> {
  const config = await resolveConfig(opts);
  return { client: clientFor(opts, config, deadlineMs), apiKey: config.apiKey };
}

/**
 * `hostsync logs` as a function: the deployment's console, its last `lines` lines
 * (filtered by `grep`), in one request; a grep the live tail cannot fill asks
 * searchLogs too.
 */
export async function runLogs(opts: LogsOptions): Promise<{ result: Outcome<LogsReport>; thrown: boolean }> {
  let client: HostingClient | null = null;
  let apiKey: string | undefined;
  return runCommand(
    () => ({ ...emptyLogsReport(), requests: requestsOf(client?.stats()) }),
    async () => {
      const grep = grepPattern(opts.grep);
      const count = linesWanted(opts.lines);
      ({ client, apiKey } = await openClient(opts, READ_COMMAND_DEADLINE_MS));
      try {
        const r = await client.deployments.logs(grep ? LOGS_FOLLOW_SIZE : count);
        let lines = grep ? r.lines.filter((l) => grep.test(l)).slice(-count) : r.lines.slice(-count);
        if (grep && lines.length < count) lines = await olderMatches(client, opts.grep!, grep, lines, count);
        return { ok: true, lines: count === 0 ? [] : lines, state: r.state, hint: r.hint, requests: requestsOf(client.stats()) };
      } finally {
        await client.close();
      }
    },
    () => apiKey ?? opts.apiKey ?? (opts.env ?? process.env).HOSTSYNC_API_KEY,
  );
}

/**
 * --grep found fewer than `count` lines in the live tail: the service's live console is
 * small (boot lines rotate out within minutes), but its console log, which searchLogs
 * reads, reaches 5000 lines back. A complete search answer replaces the tail's matches;
 * a truncated one (it keeps the oldest matches) cannot say which lines come last, so the
 * tail's stay.
 */
async function olderMatches(client: HostingClient, pattern: string, grep: RegExp, fromTail: string[], count: number): Promise<string[]> {
  const found = await client.deployments.searchLogs(pattern, SEARCH_LOGS_MAX_LINES);
  if (found.truncated) return fromTail;
  const all = found.matches.map((m) => m.text).filter((l) => grep.test(l));
  return all.length > fromTail.length ? all.slice(-count) : fromTail;
}

export interface FollowEnd extends Partial<FailureFields> {
  ok: boolean;
  requests: RequestsSummary;
}

/**
 * `hostsync logs --follow` as a function: the last `lines` lines (matching `grep`), then
 * every new line once, until `signal` aborts (ok) or the key is refused.
 */
export async function followDeploymentLogs(
  opts: LogsOptions & { signal: AbortSignal; onPokeReady?: (poke: () => void) => void; intervalMs?: number },
  emit: (e: FollowEvent) => void,
): Promise<FollowEnd> {
  let client: HostingClient | null = null;
  let apiKey: string | undefined;
  const { result } = await runCommand<FollowEnd>(
    () => ({ ok: false, requests: requestsOf(client?.stats()) }),
    async () => {
      const grep = grepPattern(opts.grep);
      const initialLines = linesWanted(opts.lines);
      // No deadline: a follow runs until Ctrl-C. Each read is bounded by HOSTSYNC_TIMEOUT and a
      // failing one is reported and retried (log-follower.ts), so a stuck service shows, never hangs it.
      const opened = await openClient(opts, null);
      ({ client, apiKey } = opened);
      // Ctrl-C cuts a long poll short rather than waiting it out.
      const cut = (): void => void opened.client.destroy();
      opts.signal.addEventListener('abort', cut, { once: true });
      try {
        const failure = await followLogs(opened.client, emit, {
          initialLines, grep, signal: opts.signal, apiKey: opened.apiKey, ...(opts.onPokeReady ? { onPokeReady: opts.onPokeReady } : {}),
          ...(opts.intervalMs ? { intervalMs: opts.intervalMs } : {}),
        });
        const requests = requestsOf(opened.client.stats());
        return failure ? failedWith({ ok: false, requests }, failure.message, failure.exitCode) : { ok: true, requests };
      } finally {
        opts.signal.removeEventListener('abort', cut);
        await opened.client.close().catch(() => undefined);
      }
    },
    () => apiKey ?? opts.apiKey ?? (opts.env ?? process.env).HOSTSYNC_API_KEY,
  );
  return result;
}
