import type { Command } from 'commander';
import { runHistory } from '../../app/history.js';
import { runUndo } from '../../app/undo.js';
import { usageError } from '../../errors.js';
import { connectionFlags, globalFlags } from '../context.js';
import { emitResult } from '../output.js';
import { renderUndo } from '../render-undo.js';
import { renderHistoryResult } from '../render-history.js';

const json = (cmd: Command): boolean => globalFlags(cmd).json ?? false;

export async function undoCommand(flags: { dryRun?: boolean; apply?: boolean; steps?: string; continue?: boolean; abandon?: boolean }, cmd: Command): Promise<number> {
  const steps = flags.steps === undefined ? 1 : Number(flags.steps);
  if (!Number.isInteger(steps) || steps < 1) throw usageError(`--steps must be a whole number of pushes, 1 or more (got ${flags.steps})`);
  if (flags.continue && flags.abandon) throw usageError('--continue and --abandon exclude each other: pick one');
  if ((flags.continue || flags.abandon) && flags.steps !== undefined) throw usageError(`--${flags.continue ? 'continue' : 'abandon'} works on the interrupted undo's own pushes: drop --steps`);
  return emitResult(
    await runUndo({
      ...connectionFlags(cmd),
      steps,
      dryRun: flags.dryRun ?? false,
      apply: flags.apply !== false,
      continue: flags.continue ?? false,
      abandon: flags.abandon ?? false,
    }),
    json(cmd),
    renderUndo,
  );
}

export async function historyCommand(id: string | undefined, flags: { local?: boolean }, cmd: Command): Promise<number> {
  return emitResult(await runHistory({ ...connectionFlags(cmd), local: flags.local ?? false, ...(id !== undefined ? { id } : {}) }), json(cmd), renderHistoryResult);
}
