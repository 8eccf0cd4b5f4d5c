import type { Command } from 'commander';
import { runEnv, type EnvAction, type EnvResult } from '../../app/env.js';
import { pc } from '../colors.js';
import { connectionFlags, globalFlags } from '../context.js';
import { emitResult } from '../output.js';
import { targetName } from '../render.js';

export interface EnvFlags {
  file?: string;
  plain?: string[];
  secret?: string[];
  prune?: boolean;
  restart?: boolean;
}

const LETTER = { added: pc.green('A'), changed: pc.yellow('M'), removed: pc.red('D') } as const;

/** Human text for every env action: keys and flags, never a value. */
export function renderEnv(r: EnvResult): string {
  const where = targetName(r.deployment);
  const out: string[] = [];
  const requests = `${r.requests.total} request${r.requests.total === 1 ? '' : 's'}`;
  switch (r.action) {
    case 'list': {
      out.push(`Variables of ${where} (${r.variables.length}; values are never shown):`);
      for (const v of r.variables) {
        const kind = v.system ? pc.dim('system') : v.secret ? 'secret' : 'plain ';
        const file = v.system || v.inFile === null ? '' : v.inFile ? '' : pc.dim('  (not in the file)');
        out.push(`  ${kind}  ${v.key}${file}`);
      }
      break;
    }
    case 'diff': {
      if (r.changes.length === 0) out.push(`${r.file} matches ${where}.`);
      else {
        out.push(`${r.file} against ${where} (A added, M changed, D only on the deployment):`);
        for (const c of r.changes) out.push(`  ${LETTER[c.change]}  ${c.key}${c.secret ? '' : pc.dim(' (plain)')}`);
      }
      break;
    }
    case 'push': {
      const set = r.changes.filter((c) => c.change !== 'removed').length;
      const deleted = r.changes.length - set;
      out.push(r.changes.length === 0 ? `Variables of ${where} already match ${r.file} (${requests}).` : `Pushed variables to ${where}: ${set} set, ${deleted} deleted (${requests}).`);
      for (const c of r.changes) out.push(`  ${LETTER[c.change]}  ${c.key}${c.change === 'removed' ? '' : c.secret ? pc.dim(' (secret)') : pc.dim(' (plain)')}`);
      if (r.restart) {
        out.push(`Restarted: ${r.restart.state}, ${r.restart.healthy ? pc.green(r.restart.reason) : pc.red(r.restart.reason)}`);
        for (const l of r.restart.logs) out.push(pc.dim(`  | ${l}`));
      }
      break;
    }
    case 'pull': {
      out.push(r.pulled.length === 0 ? `${r.file} already holds every plain variable of ${where}.` : `Wrote ${r.pulled.length} plain variable${r.pulled.length === 1 ? '' : 's'} of ${where} into ${r.file}: ${r.pulled.join(', ')}`);
      if (r.secretsNotFetched.length > 0) out.push(`Secrets cannot be read back; set these in the file yourself: ${r.secretsNotFetched.join(', ')}`);
      break;
    }
  }
  if (r.unverified.length > 0) out.push(pc.dim(`  secrets hostsync did not set (cannot compare): ${r.unverified.join(', ')}`));
  for (const w of r.warnings) out.push(pc.yellow(`warning: ${w}`));
  if (!r.ok && r.error) out.push(pc.red(r.error));
  return out.join('\n');
}

export async function envCommand(action: EnvAction, flags: EnvFlags, cmd: Command): Promise<number> {
  const g = globalFlags(cmd);
  const json = g.json ?? false;
  const outcome = await runEnv(action, {
    ...connectionFlags(cmd),
    ...(flags.file !== undefined ? { file: flags.file } : {}),
    ...(flags.plain ? { plain: flags.plain } : {}),
    ...(flags.secret ? { secret: flags.secret } : {}),
    prune: flags.prune ?? false,
    restart: flags.restart ?? false,
  });
  // --quiet: the report's first line (what happened), not a trailing warning.
  return emitResult(outcome, json, renderEnv, { quiet: g.quiet ?? false, summary: (r) => renderEnv(r).split('\n')[0] ?? '' });
}
