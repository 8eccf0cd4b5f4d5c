import type { HostingClient } from '../remote/client.js';
import { clientFor, resolveConfig, confirmTarget, type ConnectionOptions } from './options.js';
import { COMMAND_DEADLINE_MS } from './tunables.js';
import { requestsOf, runCommand, type Outcome, type RequestsSummary } from './result.js';

export interface ExecOptions extends ConnectionOptions {
  /** The shell line to run in the deployment. */
  command: string;
  /** Seconds before the service stops the command. */
  timeout?: number;
  /** Working directory inside the deployment. */
  cwd?: string;
}

/**
 * What `exec --json` prints. Unlike other results `exitCode` is always present: it is
 * the command's own exit code (`ok` is true when it is 0); a failure to run it at all
 * adds `error`, with hostsync's exit code.
 */
export interface ExecResult {
  ok: boolean;
  exitCode: number;
  output: string;
  truncated: boolean;
  timedOut: boolean;
  cwd: string | null;
  durationMs: number;
  requests: RequestsSummary;
  error?: string;
}

export const emptyExecResult = (): ExecResult => ({
  ok: false, exitCode: 0, output: '', truncated: false, timedOut: false, cwd: null, durationMs: 0, requests: requestsOf(null),
});

/** `hostsync exec` as a function: runs one shell line in the deployment (deployments.shell). */
export async function runExec(opts: ExecOptions): Promise<{ result: Outcome<ExecResult>; thrown: boolean }> {
  let client: HostingClient | null = null;
  let apiKey: string | undefined;
  return runCommand(
    () => ({ ...emptyExecResult(), requests: requestsOf(client?.stats()) }),
    async () => {
      const config = await resolveConfig(opts);
      apiKey = config.apiKey;
      await confirmTarget(config, opts, 'run a command on');
      client = clientFor(opts, config, COMMAND_DEADLINE_MS);
      try {
        const r = await client.deployments.shell({
          command: opts.command,
          ...(opts.timeout === undefined ? {} : { timeout: opts.timeout }),
          ...(opts.cwd === undefined ? {} : { cwd: opts.cwd }),
        });
        return {
          ok: r.exitCode === 0,
          exitCode: r.exitCode,
          output: r.output,
          truncated: r.truncated,
          timedOut: r.timedOut,
          cwd: r.cwd,
          durationMs: r.durationMs,
          requests: requestsOf(client.stats()),
        };
      } finally {
        await client.close();
      }
    },
    () => apiKey ?? opts.apiKey ?? (opts.env ?? process.env).HOSTSYNC_API_KEY,
  );
}
