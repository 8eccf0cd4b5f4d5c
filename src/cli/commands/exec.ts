import type { Command } from 'commander';
import { runExec } from '../../app/exec.js';
import { connectionFlags, globalFlags } from '../context.js';
import { emitResult } from '../output.js';

export type { ExecResult } from '../../app/exec.js';

export interface ExecFlags {
  timeout?: number;
  cwd?: string;
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
  const outcome = await runExec({
    ...connectionFlags(cmd),
    command: shellLine(words),
    ...(flags.timeout === undefined ? {} : { timeout: flags.timeout }),
    ...(flags.cwd === undefined ? {} : { cwd: flags.cwd }),
  });
  if (json || outcome.thrown) return emitResult(outcome, json, () => '');
  const r = outcome.result;
  process.stdout.write(r.output.endsWith('\n') || r.output === '' ? r.output : `${r.output}\n`);
  if (r.timedOut) process.stderr.write(`hostsync: the command was stopped after its timeout; raise it with --timeout SECONDS\n`);
  if (r.truncated) process.stderr.write(`hostsync: output was cut in the middle (the service keeps its start and end)\n`);
  return r.exitCode;
}
