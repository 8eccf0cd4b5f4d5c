import type { Command } from 'commander';
import { runDoctor, type DoctorResult } from '../../app/doctor.js';
import { pc } from '../colors.js';
import { connectionFlags, globalFlags } from '../context.js';
import { emitResult } from '../output.js';
import { targetName } from '../render.js';

const LABEL: Record<DoctorResult['checks'][number]['id'], string> = {
  key: 'API key', scopes: 'scopes', deployment: 'deployment', entry: 'entry file', runtime: 'runtime', ram: 'RAM',
  disk: 'disk', env: 'variables', ignore: 'ignore rules', drift: 'drift', rate: 'rate budget', clock: 'clock', shutdown: 'shutdown',
};

export function doctorSummary(r: DoctorResult): string {
  const failed = r.checks.filter((c) => !c.ok).length;
  const requests = `${r.requests.total} request${r.requests.total === 1 ? '' : 's'}`;
  return failed === 0 ? `All ${r.checks.length} checks passed (${requests}).` : `${failed} of ${r.checks.length} checks failed (${requests}).`;
}

/** One line per check, ✓ or ✗, and the fix under each failure. */
export function renderDoctor(r: DoctorResult): string {
  const out = [`Doctor for ${targetName(r.deployment)}:`];
  const width = Math.max(...r.checks.map((c) => LABEL[c.id].length), 0);
  for (const c of r.checks) {
    out.push(`  ${c.ok ? pc.green('✓') : pc.red('✗')} ${LABEL[c.id].padEnd(width)}  ${c.detail}`);
    if (!c.ok && c.fix) out.push(`    ${' '.repeat(width)}  ${pc.yellow('fix:')} ${c.fix}`);
  }
  out.push(doctorSummary(r));
  return out.join('\n');
}

export async function doctorCommand(cmd: Command, opts: { shutdown?: boolean } = {}): Promise<number> {
  const g = globalFlags(cmd);
  return emitResult(await runDoctor({ ...connectionFlags(cmd), ...(opts.shutdown ? { shutdown: true } : {}) }), g.json ?? false, renderDoctor, { quiet: g.quiet ?? false, summary: doctorSummary });
}
