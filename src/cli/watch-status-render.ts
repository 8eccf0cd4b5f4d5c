/**
 * `hostsync status`'s lines about the running `hostsync watch`, from the status file the
 * daemon keeps (StatusResult.watch): whether it runs, what is pending, the budget left,
 * and how its last cycle went.
 */
import { pc } from './colors.js';
import type { WatchCycleSummary, WatchStatus } from '../state/watch-status.js';
import { plural } from './plural.js';
import type { LocalSource } from '../app/watch-answer.js';
import { quoteName, safeText } from './terminal-text.js';

/** Local wall-clock time of an ISO stamp, as a watch line shows it. */
const clock = (iso: string): string => new Date(iso).toTimeString().slice(0, 8);

export function watchStatusLines(w: WatchStatus, local?: LocalSource): string[] {
  if (!w.running) {
    const last = w.lastCycle ? `; its last cycle, ${cycleText(w.lastCycle)}` : '';
    return [pc.yellow(`Watch: not running (pid ${w.pid} ended without stopping cleanly, last seen ${clock(w.updatedAt)}${last})`)];
  }
  const head = `Watch: ${pc.green('running')} (pid ${w.pid}${w.backend ? `, ${w.backend} watcher` : ''}, since ${clock(w.startedAt)}${w.apply ? '' : ', --no-apply'})`;
  const budget = `budget ${w.budget.remaining} of ${w.budget.limit} left per ${Math.round(w.budget.windowMs / 1000)} s`;
  const lines = [`${head} · ${pendingText(w.pending)} · ${budget}`];
  lines.push(`  last cycle: ${w.lastCycle ? cycleText(w.lastCycle) : 'none yet'}`);
  if (local?.source === 'watch' && local.by === 'watch') lines.push(`  answered by the watch: ${plural(local.read ?? 0, 'path')} read, no scan`);
  else if (local?.source === 'watch') lines.push(`  asked the watch what changed: ${plural(local.read ?? 0, 'path')} read, no scan`);
  else if (local?.why) lines.push(pc.dim(`  scanned every file: ${safeText(local.why)}`));
  return lines;
}

function pendingText(p: WatchStatus['pending']): string {
  const parts: string[] = [];
  if (p.paths > 0) {
    const more = p.paths > p.sample.length ? `, +${p.paths - p.sample.length}` : '';
    parts.push(`${plural(p.paths, 'path')} pending (${p.sample.map(quoteName).join(', ')}${more})`);
  }
  if (p.unverified > 0) parts.push(`${plural(p.unverified, 'write')} not yet verified`);
  if (p.rescan) parts.push('a full rescan pending');
  if (p.cycling) parts.push('a cycle running');
  if (p.retryAt) parts.push(`retrying at ${clock(p.retryAt)}`);
  return parts.length > 0 ? parts.join(', ') : 'nothing pending';
}

function cycleText(c: WatchCycleSummary): string {
  const at = clock(c.at);
  switch (c.outcome) {
    case 'waiting':
    case 'error':
    case 'refused':
    case 'fatal':
      return `${at} ${pc.yellow(c.outcome)}: ${safeText(c.message ?? '')}`;
    default: {
      const what = c.outcome === 'synced' ? pc.green('synced') : pc.yellow(c.outcome);
      const parts = [`${at} ${what} ${plural(c.changed, 'change')}`, plural(c.requests, 'request')];
      if (c.rateLimited > 0) parts.push(pc.yellow(`${c.rateLimited}× 429`));
      if (c.ms !== null) parts.push(`${c.ms} ms save to live`);
      else if (c.cycleMs !== null) parts.push(`${c.cycleMs} ms`);
      if (c.state) parts.push(`app ${c.healthy === false ? pc.red(c.state) : c.state}`);
      if (c.message) parts.push(c.message);
      return parts.join(', ');
    }
  }
}
