/** Human text for undo and history, rendered from the result objects `--json` prints. */
import { pc } from './colors.js';
import type { HistoryResult } from '../app/history.js';
import type { UndoResult } from '../app/undo.js';
import { renderHealth, targetName } from './render.js';
import { plural } from './plural.js';
import { quoteName, safeText } from './terminal-text.js';

const LIST_LIMIT = 20;
const pushes = (n: number): string => plural(n, 'push', 'pushes');
const when = (iso: string): string => iso.replace('T', ' ').replace(/\.\d+Z$/, 'Z');

/** At most LIST_LIMIT lines, then how many more. */
export function limited(lines: string[]): string[] {
  return lines.length <= LIST_LIMIT ? lines : [...lines.slice(0, LIST_LIMIT), pc.dim(`  ... and ${lines.length - LIST_LIMIT} more`)];
}

/** `hostsync undo` for humans. */
export function renderUndo(r: UndoResult): string {
  const out: string[] = [];
  const target = targetName(r.deployment);
  if (r.abandoned) {
    return `Ended the interrupted undo on ${target} where it stopped: the deployment is kept as it is; \`hostsync status\` shows what differs from your files.`;
  }
  if (r.continued) out.push(pc.bold(r.dryRun ? 'An undo was interrupted; finishing it would do this:' : 'Finishing the undo that was interrupted.'));
  for (const u of r.undone) {
    out.push(pc.bold(`push of ${when(u.startedAt)}`));
    const lines = [
      ...u.restored.map((p) => `  ${pc.green('R')}  ${quoteName(p)} ${pc.dim('(brought back)')}`),
      ...u.deleted.map((p) => `  ${pc.red('D')}  ${quoteName(p)} ${pc.dim('(was new)')}`),
      ...u.movedBack.map((m) => `  ${pc.cyan('R')}  ${quoteName(m.from)} -> ${quoteName(m.to)}`),
      ...u.chmod.map((c) => `  ${pc.yellow('M')}  ${quoteName(c.path)} ${pc.dim(c.executable ? '(mode +x)' : '(mode -x)')}`),
    ];
    out.push(...(lines.length > 0 ? limited(lines) : [pc.dim('  nothing of it is on the deployment any more')]));
    if (u.remoteOwned.length > 0) out.push(pc.dim(`  ${plural(u.remoteOwned.length, 'app data file')} of it left as the app has it (remoteOwned: ${quoteName(u.remoteOwned[0]!)}${u.remoteOwned.length > 1 ? ', ...' : ''})`));
  }
  const c = r.counts;
  const requests = plural(r.requests.total, 'request');
  if (r.dryRun) out.push(`dry run: would take back ${pushes(r.undone.length)} on ${target}; nothing was changed`);
  else out.push(`Took back ${pushes(r.undone.length)} on ${target}: ${c.restored} restored, ${c.deleted} deleted, ${c.moved} moved back, ${c.chmod} chmod (${requests}, ${(r.durationMs / 1000).toFixed(2)} s)`);
  for (const f of r.failures) out.push(pc.red(`failed: ${quoteName(f.path)}: ${safeText(f.error)}`));
  for (const p of r.held) out.push(pc.yellow(`held: ${quoteName(p)} was changed on the deployment while the undo ran; left as it is`));
  if (!r.dryRun && r.failures.length === 0 && r.held.length === 0 && r.undone.length > 0) out.push(pc.dim('Your local files are unchanged: `hostsync status` shows them as changes to push again.'));
  if (r.apply || r.health) out.push(...renderHealth(r.apply, r.health, r.healthy));
  return out.join('\n');
}

/** `hostsync history` for humans: newest first. */
export function renderHistory(r: HistoryResult): string {
  const interrupted = r.interruptedUndo ? [pc.yellow(`warning: ${safeText(r.interruptedUndo)}`)] : [];
  if (r.pushes.length === 0) return [`No pushes recorded for ${targetName(r.deployment)} from this directory.`, ...interrupted].join('\n');
  const out: string[] = [...interrupted];
  let undoable = 0;
  for (const p of r.pushes) {
    const c = p.changes;
    const mark = p.state === 'undone' ? pc.dim('undone') : p.state === 'pending' ? pc.yellow(`undo ${++undoable} (unverified)`) : pc.green(`undo ${++undoable}`);
    const first = p.paths.slice(0, 3).map(quoteName).join(', ') + (p.paths.length > 3 ? `, +${p.paths.length - 3}` : '');
    out.push(`${when(p.startedAt)}  ${mark}  ${c.written} written, ${c.deleted} deleted, ${c.moved} moved, ${c.chmod} chmod  ${pc.dim(first)}`);
    for (const copy of p.copies) out.push(pc.dim(`    ${copy.kind} copy of ${plural(copy.paths.length, 'file')}: ${copy.archive}`));
  }
  out.push(pc.dim('`hostsync undo` takes back the newest push not yet undone; `--steps N` takes back N of them.'));
  return out.join('\n');
}
