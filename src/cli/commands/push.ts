import type { Command } from 'commander';
import { runPush } from '../../app/push.js';
import { connectionFlags, globalFlags } from '../context.js';
import { emitResult } from '../output.js';
import { progressBar } from '../progress.js';
import { pushSummary, renderPush } from '../render.js';
import { askYesNo, canPrompt } from '../prompt.js';
import { quoteName } from '../terminal-text.js';

/** Files named before "+N more" when asking about .gitignore. */
const GITIGNORED_SHOWN = 20;

/** The first push's question about files .gitignore excludes (the answer goes into hostsync.json). */
async function askGitignore(paths: string[], progress: { stop(): void }): Promise<boolean> {
  progress.stop();
  const lines = paths.slice(0, GITIGNORED_SHOWN).map((p) => `  ${quoteName(p)}`);
  if (paths.length > GITIGNORED_SHOWN) lines.push(`  +${paths.length - GITIGNORED_SHOWN} more`);
  process.stdout.write(`.gitignore excludes ${paths.length} file(s) this first push would upload:\n${lines.join('\n')}\n`);
  return askYesNo('Keep them (and whatever .gitignore lists) off the deployment? Saved as "gitignore" in hostsync.json');
}

export interface PushFlags {
  dryRun?: boolean;
  force?: boolean;
  mirror?: boolean;
  apply?: boolean;
  allowMassDelete?: boolean;
  backup?: boolean;
  changeRuntime?: string;
  build?: boolean;
}

export async function pushCommand(flags: PushFlags, cmd: Command): Promise<number> {
  const g = globalFlags(cmd);
  const json = g.json ?? false;
  const quiet = g.quiet ?? false;
  const progress = progressBar(!json && !quiet);
  try {
    const outcome = await runPush({
      ...connectionFlags(cmd),
      dryRun: flags.dryRun ?? false,
      force: flags.force ?? false,
      mirror: flags.mirror ?? false,
      apply: flags.apply !== false,
      allowMassDelete: flags.allowMassDelete ?? false,
      backup: flags.backup !== false,
      ...(flags.changeRuntime ? { changeRuntime: flags.changeRuntime } : {}),
      build: flags.build !== false,
      // The build's own output goes to stderr, so --json keeps stdout to the one object.
      ...(quiet ? {} : { onBuildOutput: (chunk: Buffer) => void process.stderr.write(chunk) }),
      ...(progress.onProgress ? { onProgress: progress.onProgress } : {}),
      ...(canPrompt(json) && !flags.dryRun ? { onGitignored: (paths: string[]) => askGitignore(paths, progress) } : {}),
    });
    progress.stop();
    return emitResult(outcome, json, renderPush, { quiet, summary: pushSummary });
  } finally {
    progress.stop();
  }
}
