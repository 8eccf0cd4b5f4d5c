/** Human text for `history` (the deployment's record), rendered from the result `--json` prints. */
import { pc } from './colors.js';
import type { HistoryResult } from '../app/history.js';
import type { RecordedBatch, RecordedPath } from '../sync/record/record-history.js';
import { targetName } from './render.js';
import { plural } from './plural.js';
import { quoteName, safeText } from './terminal-text.js';
import { renderHistory as renderLocalHistory } from './render-undo.js';

/** A record's time as a line shows it (the record is the deployment's: escaped). */
export const when = (iso: string): string => safeText(iso.replace('T', ' ').replace(/\.\d+Z$/, 'Z'));
/** The id as history shows it: 8 characters name a push among 50 (rollback takes any unique prefix). */
export const shortId = (id: string): string => safeText(id.slice(0, 8));
const DETAIL_LIMIT = 200;

function who(b: RecordedBatch): string {
  const parts = [`${quoteName(b.host)}:${quoteName(b.dir)}`];
  if (b.git) {
    const subject = b.git.subject === null ? '' : ` ${quoteName(b.git.subject)}`;
    parts.push(`${safeText(b.git.head.slice(0, 7))}${b.git.clean ? '' : '+'}${subject}`);
  }
  return parts.join('  ');
}

function kindOf(b: RecordedBatch): string {
  if (b.kind === 'rollback') return pc.magenta(`rollback to ${b.to === null ? '?' : shortId(b.to)}`);
  if (b.kind === 'snapshot') return 'push (whole tree)';
  return safeText(b.kind);
}

const healthOf = (b: RecordedBatch): string => (b.healthy === null ? '' : b.healthy ? pc.green('  healthy') : pc.red('  unhealthy'));

export function batchLine(b: RecordedBatch): string {
  return `${pc.bold(shortId(b.id))}  ${when(b.time)}  ${kindOf(b)}  ${plural(b.files, 'file')}  ${pc.dim(who(b))}${healthOf(b)}`;
}

const entryText = (e: RecordedPath['after']): string => (e === null ? '-' : `${safeText(e.hash ?? '?')} ${e.size} B${e.executable ? ' +x' : ''}`);

export function renderHistoryResult(r: HistoryResult): string {
  if (r.source === 'local') return renderLocalHistory(r);
  const out: string[] = [];
  for (const w of r.warnings) out.push(pc.yellow(`warning: ${safeText(w)}`));
  if (r.batch !== null) {
    out.push(batchLine(r.batch));
    const shown = r.batch.paths.slice(0, DETAIL_LIMIT);
    for (const p of shown) {
      const letter = p.before === null ? pc.green('A') : p.after === null ? pc.red('D') : pc.yellow('M');
      out.push(`  ${letter}  ${quoteName(p.path)}  ${pc.dim(`${entryText(p.before)} -> ${entryText(p.after)}`)}`);
    }
    if (r.batch.paths.length > shown.length) out.push(pc.dim(`  ... and ${r.batch.paths.length - shown.length} more (--json lists every path)`));
    out.push(pc.dim(`\`hostsync rollback ${shortId(r.batch.id)}\` puts the deployment's files back to what they were right after it.`));
    return out.join('\n');
  }
  if (r.record === null) {
    out.push(`No pushes recorded on ${targetName(r.deployment)} yet (its base record is written by the first push).`);
    if (r.pushes.length > 0) out.push(pc.dim('`hostsync history --local` lists the pushes made from this folder.'));
    return out.join('\n');
  }
  for (const b of r.batches) out.push(batchLine(b));
  out.push(
    pc.dim(
      `${plural(r.batches.length, 'batch', 'batches')} on ${targetName(r.deployment)} from every machine, newest first (health is known for pushes made from this folder). ` +
        '`hostsync history <id>` shows a push\'s files; `hostsync rollback <id>` goes back to it; `--local` lists what `undo` can take back.',
    ),
  );
  return out.join('\n');
}
