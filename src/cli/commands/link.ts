import type { Command } from 'commander';
import { runLink, type LinkChoice, type LinkResult } from '../../app/link.js';
import { pc } from '../colors.js';
import { configEditLine } from '../config-changes.js';
import { connectionFlags, globalFlags } from '../context.js';
import { emitResult } from '../output.js';
import { askChoice, askYesNo, canPrompt } from '../prompt.js';
import { quoteName, safeText } from '../terminal-text.js';

export interface LinkFlags {
  name?: string;
}

export const choiceLine = (d: LinkChoice, i?: number): string =>
  `${i === undefined ? '' : `${String(i + 1).padStart(3)}) `}${quoteName(d.name)}  ${pc.dim(quoteName(d.id))}  ${d.state === 'running' ? pc.green(d.state) : safeText(d.state)}`;

const listing = (visible: LinkChoice[]): string =>
  `Deployments this key can see:\n${visible.map((d, i) => choiceLine(d, i)).join('\n')}\n`;

export function renderLink(r: LinkResult): string {
  const lines = [`Linked ${r.target !== null ? `target ${r.target} ` : ''}to ${choiceLine(r.deployment!)}`];
  if (r.config) lines.push(configEditLine(r.config));
  return lines.join('\n');
}

/** `hostsync link`: like `vercel link`. A choice on a terminal; `--deployment ID` or `--name NAME` elsewhere. */
export async function linkCommand(flags: LinkFlags, cmd: Command): Promise<number> {
  const json = globalFlags(cmd).json ?? false;
  const opts = connectionFlags(cmd);
  const interactive = canPrompt(json) && !opts.deployment && !flags.name;
  const outcome = await runLink({
    ...opts,
    ...(flags.name ? { name: flags.name } : {}),
    ...(interactive
      ? {
          choose: async (visible: LinkChoice[]) => {
            process.stdout.write(listing(visible));
            return askChoice('Link to which deployment?', visible.length);
          },
        }
      : {}),
    // The only deployment, holding another project: shown and asked on a terminal (app/link-fit.ts).
    ...(canPrompt(json) && !opts.deployment && !flags.name
      ? { confirmMisfit: (question: string) => askYesNo(`${safeText(question)}.\nLink this folder to it anyway (a push would replace its files with this folder's)?`) }
      : {}),
  });
  // Without a terminal, a refusal to guess among several shows what there is to choose from.
  const r = outcome.result;
  if (!json && !globalFlags(cmd).quiet && !r.ok && r.deployments.length > 1) process.stderr.write(listing(r.deployments));
  return emitResult(outcome, json, renderLink, { quiet: globalFlags(cmd).quiet ?? false, summary: (r) => renderLink(r).split('\n')[0] ?? '' });
}
