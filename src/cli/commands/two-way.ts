import type { Command } from 'commander';
import { runDiff } from '../../app/diff.js';
import { runPull } from '../../app/pull.js';
import { runResolve } from '../../app/resolve.js';
import { usageError } from '../../errors.js';
import { connectionFlags, globalFlags } from '../context.js';
import { emitResult } from '../output.js';
import { diffSummary, pullSummary, renderDiff, renderPull, renderResolve } from '../render-two-way.js';

const json = (cmd: Command): boolean => globalFlags(cmd).json ?? false;
const quiet = (cmd: Command): boolean => globalFlags(cmd).quiet ?? false;

/** `hostsync diff [PATH...]`: exit 0 whenever it ran, whatever it found. */
export async function diffCommand(paths: string[], flags: { stat?: boolean; scan?: boolean }, cmd: Command): Promise<number> {
  return emitResult(await runDiff({ ...connectionFlags(cmd), paths, ...(flags.scan ? { scan: true } : {}) }), json(cmd), (r) => renderDiff(r, flags.stat ?? false), {
    quiet: quiet(cmd),
    summary: diffSummary,
  });
}

export async function pullCommand(paths: string[], flags: { force?: boolean; dryRun?: boolean }, cmd: Command): Promise<number> {
  return emitResult(
    await runPull({ ...connectionFlags(cmd), paths, force: flags.force ?? false, dryRun: flags.dryRun ?? false }),
    json(cmd),
    renderPull,
    { quiet: quiet(cmd), summary: pullSummary },
  );
}

export async function resolveCommand(paths: string[], flags: { ours?: boolean; theirs?: boolean }, cmd: Command): Promise<number> {
  if (flags.ours === flags.theirs) throw usageError('resolve needs exactly one of --ours (keep the local file) or --theirs (take the deployment\'s)');
  return emitResult(await runResolve({ ...connectionFlags(cmd), paths, side: flags.ours ? 'ours' : 'theirs' }), json(cmd), renderResolve, {
    quiet: quiet(cmd),
    summary: (r) => renderResolve(r).split('\n')[0] ?? '',
  });
}
