import type { Command } from 'commander';
import { HostingClient } from '../../remote/client.js';
import { configFor, globalFlags } from '../context.js';
import { describeError, markReported } from '../errors.js';
import { createLogger } from '../logger.js';

export interface ExecFlags {
  timeout?: number;
  cwd?: string;
}

/** What `exec --json` prints, on success and on failure alike (plus `error` on failure). */
export interface ExecResult {
  ok: boolean;
  exitCode: number;
  output: string;
  truncated: boolean;
  timedOut: boolean;
  cwd: string | null;
  durationMs: number;
  requests: { total: number; byOperation: Record<string, number>; rateLimited: number };
  error?: string;
}

const quote = (word: string): string => (/^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`);

/**
 * One argument is taken as a whole shell line (`exec -- 'ls | wc -l'`); several are
 * quoted word by word, so `exec -- grep "a b" f` means what it would locally.
 */
export function shellLine(words: string[]): string {
  return words.length === 1 ? words[0]! : words.map(quote).join(' ');
}

/** `hostsync exec -- CMD...`: runs CMD in the deployment (deployments.shell) and exits with its exit code. */
export async function execCommand(words: string[], flags: ExecFlags, cmd: Command): Promise<number> {
  const json = globalFlags(cmd).json ?? false;
  const config = await configFor(cmd);
  const client = new HostingClient({
    baseUrl: config.baseUrl,
    apiKey: config.apiKey,
    deploymentId: config.deploymentId,
    logger: createLogger(config.logLevel),
  });
  const requests = (): ExecResult['requests'] => {
    const s = client.stats();
    return { total: s.total, byOperation: s.byOperation, rateLimited: s.rateLimited };
  };
  try {
    const r = await client.deployments.shell({
      command: shellLine(words),
      ...(flags.timeout === undefined ? {} : { timeout: flags.timeout }),
      ...(flags.cwd === undefined ? {} : { cwd: flags.cwd }),
    });
    if (json) {
      const result: ExecResult = {
        ok: r.exitCode === 0,
        exitCode: r.exitCode,
        output: r.output,
        truncated: r.truncated,
        timedOut: r.timedOut,
        cwd: r.cwd,
        durationMs: r.durationMs,
        requests: requests(),
      };
      process.stdout.write(`${JSON.stringify(result)}\n`);
    } else {
      process.stdout.write(r.output.endsWith('\n') || r.output === '' ? r.output : `${r.output}\n`);
      if (r.timedOut) process.stderr.write(`hostsync: the command was stopped after its timeout; raise it with --timeout SECONDS\n`);
      if (r.truncated) process.stderr.write(`hostsync: output was cut in the middle (the service keeps its start and end)\n`);
    }
    return r.exitCode;
  } catch (err) {
    if (json) {
      const { message, exitCode } = describeError(err, config.apiKey);
      const result: ExecResult = {
        ok: false, exitCode, output: '', truncated: false, timedOut: false, cwd: null, durationMs: 0, requests: requests(), error: message,
      };
      process.stdout.write(`${JSON.stringify(result)}\n`);
      markReported(err);
    }
    throw err;
  } finally {
    await client.close();
  }
}
