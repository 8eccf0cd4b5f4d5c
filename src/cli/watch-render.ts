/**
 * Watch mode's output: one human line per cycle (what changed, requests, the deployment's
 * state and HTTP status, save-to-live ms), or with --json one JSON object per line. Both
 * are rendered from the same object, the library's WatchEvent (app/watch.ts).
 * Pure: events in, text out; the command writes it.
 */
import { serviceHint } from './service-hint.js';
import { pc } from './colors.js';
import { changeLine, conflictReason, restartsToday } from './render.js';
import { watchEvent, type WatchCycleEvent, type WatchEvent } from '../app/watch.js';
import type { ChangeItem } from '../app/push.js';
import type { CycleEvent, WatchEvent as DaemonEvent } from '../watch/daemon.js';
import { WATCH_DELETE_WINDOW_MS } from '../watch/tunables.js';
import { quoteName, safeLogLine, safeText } from './terminal-text.js';

const WINDOW_MINUTES = WATCH_DELETE_WINDOW_MS / 60_000;

/** Changes named on the cycle line before "+N more". */
const LINE_CHANGES = 3;

const clock = (d: Date): string => d.toTimeString().slice(0, 8);
const dot = pc.dim('  ·  ');
const seconds = (ms: number): string => `${Math.round(ms / 100) / 10} s`;
/** The app's URL answered as a healthy web app does. */
const httpOk = (status: number): boolean => status >= 200 && status < 400;

function changesSummary(changes: readonly ChangeItem[]): string {
  const shown = changes.slice(0, LINE_CHANGES).map((c) => changeLine(c).replace(/ {2}/, ' '));
  if (changes.length > LINE_CHANGES) shown.push(pc.dim(`+${changes.length - LINE_CHANGES} more`));
  return shown.join(', ');
}

function applyPart(e: WatchCycleEvent): string | null {
  if (e.state === null) return null;
  const state = e.healthy ? pc.green(e.state) : pc.red(e.state);
  if (e.kind === 'worker') return `${state} worker`;
  if (e.http === null) return state;
  const status = e.http === 0 ? 'no answer' : `HTTP ${e.http}`;
  return `${state} ${httpOk(e.http) ? pc.green(status) : pc.red(status)}`;
}

/** The daemon's own events are rendered through their public form, like --json. */
const publicForm = <T extends WatchEvent>(e: T | DaemonEvent): T =>
  'time' in e && typeof e.time === 'string' ? (e as T) : (watchEvent(e as DaemonEvent) as T);

export function renderCycle(event: WatchCycleEvent | CycleEvent, noApply: boolean): string[] {
  const e = publicForm<WatchCycleEvent>(event);
  const parts: string[] = [];
  if (e.planned.length > 0) parts.push(changesSummary(e.planned));
  else parts.push(e.trigger === 'poll' ? 'remote checked' : e.conflicts.length > 0 ? 'nothing pushed' : 'up to date');
  parts.push(`${e.requests} req${e.rateLimited ? pc.yellow(` (${e.rateLimited}× 429)`) : ''}`);
  const applied = applyPart(e);
  if (applied) parts.push(applied);
  else if (noApply && e.planned.length > 0) parts.push(pc.dim('not applied (--no-apply)'));
  if (e.ms !== null) parts.push(`${e.ms} ms`);
  if (e.restarts) parts.push(restartsToday(e.restarts));
  const out = [`${pc.dim(clock(new Date(e.time)))}  ${parts.join(dot)}`];

  for (const f of e.failures) out.push(pc.red(`  failed: ${quoteName(f.path)}: ${safeText(f.error)}`));
  for (const c of e.conflicts) out.push(`  ${pc.red('C')} ${quoteName(c.path)}  ${pc.dim(`${conflictReason(c)}; left alone (push --force overwrites)`)}`);
  for (const d of e.drift) {
    const letter = d.kind === 'added' ? 'A' : d.kind === 'deleted' ? 'D' : 'M';
    out.push(`  ${pc.magenta(letter)} ${quoteName(d.path)}  ${pc.dim('changed on the deployment only; left alone')}`);
  }
  for (const w of e.warnings) out.push(pc.yellow(`  warning: ${safeText(w)}`));
  if (e.state !== null && e.healthy === false) {
    const logs = e.logs ?? [];
    if (logs.length > 0) {
      out.push(pc.red(`  the deployment is ${e.state}; last log lines:`));
      out.push(...logs.map((l) => `    ${safeLogLine(l)}`));
    }
    if (e.hint) out.push(`  hint: ${safeText(serviceHint(e.hint))}`);
  }
  return out;
}

/** Lines for a human, or [] when the event has nothing to say. */
export function renderWatchEvent(
  event: WatchEvent | DaemonEvent,
  /** `keys`: a key press reaches the watch (a terminal), so it can offer one. */
  ctx: { target: string; root: string; noApply: boolean; keys?: boolean },
): string[] {
  const e = publicForm<WatchEvent>(event);
  const now = pc.dim(clock(new Date(e.time)));
  switch (e.type) {
    case 'cycle':
      return e.quiet ? [] : renderCycle(e, ctx.noApply);
    case 'ready':
      return [`${now}  watching ${quoteName(ctx.root)} -> ${ctx.target} (${e.backend} watcher, ready in ${e.watcherMs} ms)${ctx.noApply ? ', --no-apply' : ''}; Ctrl-C to stop`];
    case 'waiting':
      return [pc.yellow(`${now}  waiting for the service (${safeText(e.message)}); retrying in ${seconds(e.retryInMs)}`)];
    case 'recovered':
      return [pc.green(`${now}  the service is back after ${seconds(e.afterMs)}; catching up`)];
    case 'error':
      return [pc.red(`${now}  sync failed: ${safeText(e.message)}; retrying in ${seconds(e.retryInMs)}`)];
    case 'refused':
      return [pc.red(`${now}  refused: ${safeText(e.message)}`)];
    case 'held': {
      const how = ctx.keys ? 'press d to delete them, or ' : '';
      return [
        pc.red(`${now}  holding ${e.paths.length} deletion(s): with the ones before, this would delete ${e.deletes} of ${e.tracked} tracked files within ${WINDOW_MINUTES} minutes (wrong folder, or an emptied checkout?)`),
        ...e.paths.slice(0, LINE_CHANGES).map((p) => `  ${pc.red('D')} ${quoteName(p)}  ${pc.dim('held')}`),
        ...(e.paths.length > LINE_CHANGES ? [pc.dim(`  +${e.paths.length - LINE_CHANGES} more`)] : []),
        `  everything else keeps syncing; ${how}stop watch and run \`hostsync push --allow-mass-delete\` to delete them, or restore the files`,
      ];
    }
    case 'rescan':
      return [pc.yellow(`${now}  full rescan (${safeText(e.reason)})`)];
    case 'fatal':
      return [pc.red(`${now}  stopping: ${safeText(e.message)}`)];
    case 'restart':
      return renderRestart(e, now);
    case 'stopped':
      return [
        `${now}  stopped${e.result === 'abandoned' ? ' (the sync in flight was abandoned; the next start completes it)' : ''}`,
      ];
  }
}

/** One JSON object per event for --json: the library's WatchEvent. */
export const watchEventJson = watchEvent;

/** A worker's restarts in watch (restart-pacer.ts). */
function renderRestart(e: Extract<WatchEvent, { type: 'restart' }>, now: string): string[] {
  switch (e.action) {
    case 'deferred':
      return [pc.dim(`${now}  restart in ${seconds(e.inMs)} (at most one every ${e.minSeconds} s: "restartMinSeconds"); the files are already on the deployment`)];
    case 'restarted': {
      const count = e.today !== null ? `${dot}${restartsToday({ today: e.today, limit: e.limit })}` : '';
      const line = `${now}  restarted with the last save${dot}${e.healthy ? pc.green(e.state) : pc.red(e.state)}${count}`;
      return e.healthy ? [line] : [line, pc.red(`  ${safeText(e.reason)}`), ...e.logs.map((l) => `    ${safeLogLine(l)}`)];
    }
    case 'held':
      return [pc.red(`${now}  not restarted: ${safeText(e.message)}`)];
    case 'refused':
      return [pc.red(`${now}  ${safeText(e.message)}`)];
    case 'warning':
      return [pc.yellow(`${now}  warning: ${safeText(e.message)}`)];
  }
}
