/** Human text for `rollback`, rendered from the result `--json` prints. */
import { pc } from './colors.js';
import type { RollbackResult } from '../app/rollback.js';
import { renderHealth, targetName } from './render.js';
import { plural } from './plural.js';
import { quoteName, safeText } from './terminal-text.js';
import { shortId, when } from './render-history.js';
import { limited } from './render-undo.js';

export function renderRollback(r: RollbackResult): string {
  const out: string[] = [];
  const target = targetName(r.deployment);
  if (r.to === null) return `Nothing rolled back on ${target}.`;
  out.push(pc.bold(`back to ${shortId(r.to.id)} (${safeText(r.to.kind)} of ${when(r.to.time)} from ${quoteName(r.to.host)}:${quoteName(r.to.dir)})`));
  const copies = new Map(r.fromCopy.map((c) => [c.path, c.archive]));
  const lines = [
    ...r.restored.map((p) => {
      const copy = copies.get(p);
      return `  ${pc.green('R')}  ${quoteName(p)} ${pc.dim(copy ? `(brought back from the copy ${quoteName(copy)})` : '(brought back)')}`;
    }),
    ...r.deleted.map((p) => `  ${pc.red('D')}  ${quoteName(p)} ${pc.dim('(added since; the API keeps a copy)')}`),
    ...r.chmod.map((c) => `  ${pc.yellow('M')}  ${quoteName(c.path)} ${pc.dim(c.executable ? '(mode +x)' : '(mode -x)')}`),
  ];
  out.push(...(lines.length > 0 ? limited(lines) : [pc.dim('  the deployment already holds it: nothing to change')]));
  for (const c of r.conflicts) out.push(pc.red(`  conflict: ${quoteName(c.path)}: ${safeText(c.why)}`));
  for (const m of r.missingReasons) out.push(pc.red(`  cannot bring back: ${quoteName(m.path)} (${safeText(m.why)})`));
  if (r.leftAlone.length > 0) out.push(pc.dim(`  ${plural(r.leftAlone.length, 'file')} left as ${r.leftAlone.length === 1 ? 'it is' : 'they are'} (${[...new Set(r.leftAlone.map((l) => l.why))].join(', ')}): ${quoteName(r.leftAlone[0]!.path)}${r.leftAlone.length > 1 ? ', ...' : ''}`));
  const planned = `${plural(r.plannedRequests, 'request')} for the changes`;
  if (r.dryRun) out.push(`dry run: would roll back ${plural(lines.length, 'file')} on ${target} (${planned}, ${r.requests.total} spent planning); nothing was changed`);
  else if (r.batchId !== null) {
    const c = r.counts;
    out.push(`Rolled back ${target} to ${shortId(r.to.id)}: ${c.restored} restored, ${c.deleted} deleted, ${c.chmod} chmod (${plural(r.requests.total, 'request')}, ${(r.durationMs / 1000).toFixed(2)} s); recorded as ${shortId(r.batchId)}`);
    out.push(pc.dim('Your local files are unchanged: `hostsync status` shows them as ahead of the deployment (push deploys them again); `hostsync undo` takes the rollback back.'));
  }
  for (const f of r.failures) out.push(pc.red(`failed: ${quoteName(f.path)}: ${safeText(f.error)}`));
  if (r.apply || r.health) out.push(...renderHealth(r.apply, r.health, r.healthy));
  return out.join('\n');
}
