/**
 * Watch mode's output: one human line per cycle (what changed, requests, the deployment's
 * state and HTTP status, save-to-live ms), or with --json one JSON object per line.
 * Pure: events in, text out; the command writes it.
 */
import { pc } from './colors.js';
import { changeLine, conflictReason } from './render.js';
import { CRASH_LOG_LINES, watchEvent } from '../app/watch.js';
import type { Change } from '../model/types.js';
import type { CycleEvent, WatchEvent } from '../watch/daemon.js';

/** Changes named on the cycle line before "+N more". */
const LINE_CHANGES = 3;

const clock = (d: Date): string => d.toTimeString().slice(0, 8);
const dot = pc.dim('  ·  ');
const seconds = (ms: number): string => `${Math.round(ms / 100) / 10} s`;

function changesSummary(changes: readonly Change[]): string {
  const shown = changes.slice(0, LINE_CHANGES).map((c) => changeLine(c).replace(/ {2}/, ' '));
  if (changes.length > LINE_CHANGES) shown.push(pc.dim(`+${changes.length - LINE_CHANGES} more`));
  return shown.join(', ');
}

function applyPart(e: CycleEvent): string | null {
  const a = e.apply;
  if (!a) return null;
  const state = e.healthy ? pc.green(a.state) : pc.red(a.state);
  if (!a.http?.url) return state;
  const status = a.http.status === 0 ? 'no answer' : `HTTP ${a.http.status}`;
  return `${state} ${a.http.ok ? pc.green(status) : pc.red(status)}`;
}

export function renderCycle(e: CycleEvent, noApply: boolean): string[] {
  const parts: string[] = [];
  if (e.changes.length > 0) parts.push(changesSummary(e.changes));
  else parts.push(e.trigger === 'poll' ? 'remote checked' : e.conflicts.length > 0 ? 'nothing pushed' : 'up to date');
  parts.push(`${e.requests} req${e.rateLimited ? pc.yellow(` (${e.rateLimited}× 429)`) : ''}`);
  const applied = applyPart(e);
  if (applied) parts.push(applied);
  else if (noApply && e.changes.length > 0) parts.push(pc.dim('not applied (--no-apply)'));
  if (e.ms !== null) parts.push(`${e.ms} ms`);
  const out = [`${pc.dim(clock(e.time))}  ${parts.join(dot)}`];

  for (const f of e.failures) out.push(pc.red(`  failed: ${f.path}: ${f.error}`));
  for (const c of e.conflicts) out.push(`  ${pc.red('C')} ${c.path}  ${pc.dim(`${conflictReason(c)}; left alone (push --force overwrites)`)}`);
  for (const d of e.drift) {
    const letter = d.kind === 'added' ? 'A' : d.kind === 'deleted' ? 'D' : 'M';
    out.push(`  ${pc.magenta(letter)} ${d.path}  ${pc.dim('changed on the deployment only; left alone')}`);
  }
  for (const w of e.warnings) out.push(pc.yellow(`  warning: ${w}`));
  if (e.apply && e.healthy === false) {
    const logs = e.apply.logs ?? [];
    if (logs.length > 0) {
      out.push(pc.red(`  the deployment is ${e.apply.state}; last log lines:`));
      out.push(...logs.slice(-CRASH_LOG_LINES).map((l) => `    ${l}`));
    }
    if (e.apply.hint) out.push(`  hint: ${e.apply.hint}`);
  }
  return out;
}

/** Lines for a human, or [] when the event has nothing to say. */
export function renderWatchEvent(e: WatchEvent, ctx: { target: string; root: string; noApply: boolean }): string[] {
  const now = pc.dim(clock(new Date()));
  switch (e.type) {
    case 'cycle':
      return e.quiet ? [] : renderCycle(e, ctx.noApply);
    case 'ready':
      return [`${now}  watching ${ctx.root} -> ${ctx.target} (${e.backend} watcher, ready in ${e.watcherMs} ms)${ctx.noApply ? ', --no-apply' : ''}; Ctrl-C to stop`];
    case 'waiting':
      return [pc.yellow(`${now}  waiting for the service (${e.message}); retrying in ${seconds(e.retryInMs)}`)];
    case 'recovered':
      return [pc.green(`${now}  the service is back after ${seconds(e.afterMs)}; catching up`)];
    case 'error':
      return [pc.red(`${now}  sync failed: ${e.message}; retrying in ${seconds(e.retryInMs)}`)];
    case 'refused':
      return [pc.red(`${now}  refused: ${e.message}`)];
    case 'rescan':
      return [pc.yellow(`${now}  full rescan (${e.reason})`)];
    case 'fatal':
      return [pc.red(`${now}  stopping: ${e.message}`)];
    case 'stopped':
      return [
        `${now}  stopped${e.result === 'abandoned' ? ' (the sync in flight was abandoned; the next start completes it)' : ''}`,
      ];
  }
}

/** One JSON object per event for --json: the library's WatchEvent. */
export const watchEventJson = watchEvent;
