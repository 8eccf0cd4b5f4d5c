/**
 * Human text for push and status, rendered from the same result objects `--json` prints
 * (src/app/), so the two can never disagree.
 */
import { buildIsStale, type BuildFreshness } from '../app/build-freshness.js';
import { isInstallLockfile } from '../sync/core/install-files.js';
import { applyStillRunning } from '../sync/apply/apply-scope.js';
import { serviceHint } from './service-hint.js';
import { positionLines } from './render-position.js';
import { pc } from './colors.js';
import type { ApplyResult } from '../api/types.js';
import type { HealthReport } from '../sync/apply/apply.js';
import type { ChangeItem, ConflictItem, DriftItem, ElsewhereItem, PushResult } from '../app/push.js';
import type { StatusResult } from '../app/status.js';
import type { DeploymentRef } from '../app/options.js';
import { watchStatusLines } from './watch-status-render.js';
import { settingsLines } from './render-settings.js';
import { plural } from './plural.js';
import { quoteName, safeLogLine, safeText } from './terminal-text.js';

/** Most changes a human listing shows before it summarises the rest. */
const LIST_LIMIT = 50;

const REASONS: Record<ConflictItem['reason'], string> = {
  'both-modified': 'changed both here and on the deployment',
  'first-push-differs': 'differs from the deployment and was never synced',
  'pending-elsewhere': 'another push recorded this same change, but the deployment does not hold it (still in flight, failed, or undone by hand since): run the push again in a minute, or push --force to write it',
  'modify-delete': 'changed here, deleted on the deployment',
  'delete-modify': 'deleted here, changed on the deployment',
  'remote-symlink': 'is (or lies below) a symlink on the deployment; hostsync never writes through links',
  'file-folder': 'lies in a folder on the deployment that is a file here (edited or never synced); move the file away or resolve it first',
};

export const conflictReason = (c: Pick<ConflictItem, 'reason'>): string => REASONS[c.reason] ?? c.reason;

/** git-style letter and text for one change. */
export function changeLine(c: ChangeItem): string {
  switch (c.kind) {
    case 'write':
      return c.create ? `${pc.green('A')}  ${quoteName(c.path)}` : `${pc.yellow('M')}  ${quoteName(c.path)}`;
    case 'delete':
      return `${pc.red('D')}  ${quoteName(c.path)}`;
    case 'rename':
      return `${pc.cyan('R')}  ${quoteName(c.from)} -> ${quoteName(c.to)}`;
    case 'chmod':
      return `${pc.yellow('M')}  ${quoteName(c.path)} ${pc.dim(c.executable ? '(mode +x)' : '(mode -x)')}`;
  }
}

function driftLine(d: DriftItem): string {
  const letter = d.kind === 'added' ? 'A' : d.kind === 'deleted' ? 'D' : 'M';
  const why = d.kind === 'modified' && isInstallLockfile(d.path) ? `  ${pc.dim("(the deployment's npm install rewrites it at each start: expected)")}` : '';
  return `${pc.magenta(letter)}  ${quoteName(d.path)}${why}`;
}

function limited(lines: string[], indent = '  '): string[] {
  const shown = lines.slice(0, LIST_LIMIT).map((l) => indent + l);
  if (lines.length > LIST_LIMIT) shown.push(`${indent}${pc.dim(`... and ${lines.length - LIST_LIMIT} more`)}`);
  return shown;
}

/** How a human names the deployment a command worked on. */
export const targetName = (d: DeploymentRef | null): string =>
  d ? `${d.target ? `target ${quoteName(d.target)}, ` : ''}deployment ${quoteName(d.id)} (${quoteName(d.host)})` : 'the deployment';

/** Remote-only paths a human listing names before "... and N more". */
const REMOTE_ONLY_SHOWN = 20;
/** The app's data a human listing names: the first few say which files they are; a database's journals would bury the rest. */
const REMOTE_OWNED_SHOWN = 5;

const appState = (state: string): string => (state === 'running' ? pc.green(state) : pc.red(state));

/** "3 restarts in 24 h" or "3 of 1000 restarts in 24 h" (this machine's count, issue 47). */
export function restartsToday(c: { today: number; limit: number | null }): string {
  return c.limit === null ? `${c.today} restart${c.today === 1 ? '' : 's'} in 24 h` : `${c.today} of ${c.limit} restarts in 24 h`;
}

/** What status says of a "build" whose output is stale or missing: push builds first, so it would send something else. */
function buildLines(b: BuildFreshness): string[] {
  const cmd = `\`${safeText(b.command)}\``;
  if (b.unbuilt) return [pc.yellow(`Not built yet: \`hostsync push\` runs the build (${cmd}) first, then sends what it makes.`)];
  if (b.lastBuiltAt === null) return [pc.yellow(`\`hostsync push\` runs the build (${cmd}) first; hostsync has not run it here yet, so it cannot tell whether the built folder is current.`)];
  const shown = b.changedSince.map(quoteName).join(', ') + (b.partial || b.changedSince.length >= 3 ? ', ...' : '');
  return [pc.yellow(`Sources changed since the last build (${shown}): \`hostsync push\` runs the build (${cmd}) first, so it will send what the new build makes, not what is compared here.`)];
}

/** `hostsync status`: what a push would do, conflicts, drift, what only the deployment has, and the app's state. */
export function renderStatus(report: StatusResult): string {
  const out: string[] = [`On ${targetName(report.deployment)}${report.appState ? ` · app ${appState(report.appState)}` : ''}${report.url ? ` · ${safeText(report.url)}` : ''}${report.restarts && (report.restarts.today > 0 || report.restarts.limit !== null) ? ` · ${restartsToday(report.restarts)}` : ''}`];
  if (report.watch) out.push(...watchStatusLines(report.watch, report.local));
  out.push(...positionLines(report.position));
  if (report.rolledBack) {
    const r = report.rolledBack;
    out.push(pc.yellow(`The deployment was rolled back to ${safeText(r.to)} by ${quoteName(r.host)}:${quoteName(r.dir)} (${safeText(r.time)}): push to deploy this copy again, or pull --force to take the rollback.`));
  }
  const settings = settingsLines(report.settings, 'status');
  const stale = buildIsStale(report.build);
  if (report.changes.length === 0 && report.conflicts.length === 0 && report.drift.length === 0 && report.elsewhere.length === 0 && settings.length === 0) {
    out.push(stale ? 'The deployment matches the built folder as it is now, but that folder is not what a push would send:' : 'Nothing to push: the deployment matches this directory.');
  }
  if (stale) out.push(...buildLines(report.build!));
  if (report.changes.length > 0) {
    out.push(`Changes to push (${report.changes.length}; a push takes about ${plural(report.pushRequests, 'request')}):`);
    out.push(...limited(report.changes.map(changeLine)));
  }
  out.push(...settings);
  out.push(...conflictSection(report.conflicts));
  out.push(...elsewhereSection(report.elsewhere));
  out.push(...driftSection(report.drift));
  if (report.remoteOnly > 0) {
    out.push(pc.dim(`Only on the deployment (${report.remoteOnly}; push leaves them, --mirror deletes them):`));
    const shown = report.remoteOnlyPaths.slice(0, REMOTE_ONLY_SHOWN);
    out.push(...shown.map((p) => pc.dim(`  ?  ${quoteName(p)}`)));
    if (report.remoteOnly > shown.length) out.push(pc.dim(`  ... and ${report.remoteOnly - shown.length} more`));
  }
  if (report.remoteOwned > 0) {
    out.push(pc.dim(`App data on the deployment (remoteOwned; never touched): ${plural(report.remoteOwned, 'file')}; \`hostsync pull PATH\` copies one here`));
    const shown = report.remoteOwnedPaths.slice(0, REMOTE_OWNED_SHOWN);
    out.push(...shown.map((p) => pc.dim(`  =  ${quoteName(p)}`)));
    if (report.remoteOwned > shown.length) out.push(pc.dim(`  ... and ${report.remoteOwned - shown.length} more`));
  }
  if (report.applyUnansweredAt) {
    out.push(pc.yellow(`An apply may still be running on the service: the push at ${new Date(report.applyUnansweredAt).toTimeString().slice(0, 8)} got no answer to it, and the app is ${safeText(report.appState ?? 'not readable')}; \`hostsync logs --follow\` shows its install. Once the app is up, status clears this; a push applies again.`));
  } else if (report.applyPending) out.push(pc.yellow('An apply is pending: an earlier push landed files the app has not been applied with; the next push applies them.'));
  if (report.massDelete.refuse) {
    out.push(pc.yellow(`push would refuse: it deletes ${report.massDelete.deletes} of ${report.massDelete.tracked} tracked files (--allow-mass-delete).`));
  }
  out.push(...report.warnings.map((w) => pc.yellow(`warning: ${safeText(w)}`)));
  return out.join('\n');
}

/** How to settle conflicts: status and pull print it under their conflict lists. */
export function resolveHint(): string[] {
  return [
    pc.dim('  hostsync diff PATH               shows both sides'),
    pc.dim("  hostsync resolve PATH --theirs   takes the deployment's file here"),
    pc.dim('  hostsync resolve PATH --ours     keeps yours; the next push writes it without --force'),
  ];
}

/** `status --quiet`: one line. */
export function statusSummary(r: StatusResult): string {
  const parts = [`${plural(r.changes.length, 'change')} to push`];
  if (r.conflicts.length) parts.push(plural(r.conflicts.length, 'conflict'));
  if (r.elsewhere.length) parts.push(`${r.elsewhere.length} changed by a push from elsewhere`);
  if (r.drift.length) parts.push(`${r.drift.length} drifted`);
  if (r.remoteOnly) parts.push(`${r.remoteOnly} only on the deployment`);
  if (r.remoteOwned) parts.push(`${plural(r.remoteOwned, 'app data file')} left to the deployment`);
  const watch = r.watch?.running ? `; watch running, ${r.watch.pending.paths} pending` : '';
  return `${parts.join(', ')}${r.appState ? `; app ${appState(r.appState)}` : ''}${watch}`;
}

function conflictSection(conflicts: ConflictItem[]): string[] {
  if (conflicts.length === 0) return [];
  return [
    pc.red(`Conflicts (${conflicts.length}; left alone; --force overwrites them with the local files):`),
    ...limited(conflicts.map((c) => `${pc.red('C')}  ${quoteName(c.path)}  ${pc.dim(conflictReason(c))}`)),
    ...resolveHint(),
  ];
}

/** "deleted by a watch in laptop:site at 2026-...": who changed it, from where, when. */
function elsewhereLine(e: ElsewhereItem): string {
  const letter = e.kind === 'added' ? 'A' : e.kind === 'deleted' ? 'D' : 'M';
  const verb = e.kind === 'added' ? 'added' : e.kind === 'deleted' ? 'deleted' : 'changed';
  const by = e.by === 'push' || e.by === 'snapshot' ? 'a push' : e.by === 'watch' ? 'a watch' : `a ${e.by}`;
  return `${pc.cyan(letter)}  ${quoteName(e.path)}  ${pc.dim(`(${verb} by ${safeText(by)} from ${quoteName(e.host)}:${quoteName(e.dir)}, ${safeText(e.time)})`)}`;
}

function elsewhereSection(items: ElsewhereItem[]): string[] {
  if (items.length === 0) return [];
  return [
    `Changed by a push from elsewhere (${items.length}; another machine or folder; left alone, never reverted from here):`,
    ...limited(items.map(elsewhereLine)),
    pc.dim('  hostsync pull                    takes them here'),
    pc.dim('  hostsync resolve PATH --ours     puts yours back: the next push writes it (or push --force)'),
  ];
}

function driftSection(drift: DriftItem[]): string[] {
  if (drift.length === 0) return [];
  return [
    `Remote drift (${drift.length}; changed on the deployment only; left alone; hostsync pull takes them):`,
    ...limited(drift.map(driftLine)),
  ];
}

/** Why auto judged the app as it did, and how to pin it. */
function autoNote(health: HealthReport): string | null {
  if (health.decided !== 'auto' || health.kind === null) return null;
  const why = health.kind === 'web' ? 'it answered HTTP on its port' : 'nothing answered HTTP on its port';
  return `health: auto judged it a ${health.kind} (${why}); pin it with "health": {"kind": "${health.kind}"} in hostsync.json`;
}

/**
 * The deployment's state after an apply (or the idle check of a push with nothing to
 * send): state, the web answer or the worker's ready line, the restart, and when it is
 * unhealthy why, this start's log lines that matter and the service's hint.
 */
export function renderHealth(apply: ApplyResult | null, health: HealthReport | null, healthy: boolean | null, sayAutoKind = true): string[] {
  const state = health?.state ?? apply?.state ?? 'unknown';
  const parts = [state === 'running' ? pc.green(state) : pc.red(state)];
  if (health?.kind === 'worker') {
    parts.push('worker');
    if (health.readyLine) parts.push(`ready: "${safeLogLine(health.readyLine)}"`);
  } else if (apply?.http?.url) {
    const status = apply.http.status === 0 ? 'no answer' : `HTTP ${apply.http.status}`;
    parts.push(apply.http.ok ? pc.green(status) : pc.red(status));
    if (apply.http.title) parts.push(`"${safeText(apply.http.title)}"`);
    parts.push(pc.dim(safeText(apply.http.url)));
  }
  if (apply) parts.push(apply.restarted ? 'restarted' : apply.skippedRestart ? `no restart (${safeText(apply.skippedRestart)})` : 'not restarted');
  const out = [`${healthy ? pc.green('✔') : pc.red('✘')} deployment ${parts.join(' · ')}`];
  if (health) {
    const note = sayAutoKind ? autoNote(health) : null;
    if (note) out.push(pc.dim(`  ${safeText(note)}`));
    if (!health.healthy) {
      out.push(pc.red(`  unhealthy: ${safeText(health.reason)}`));
      if (health.logs.length > 0) {
        out.push('  log lines of this start:');
        out.push(...health.logs.map((l) => `    ${safeLogLine(l)}`));
      }
    }
  }
  if (!healthy && apply?.hint) out.push(`  hint: ${safeText(serviceHint(apply.hint))}`);
  return out;
}

/** What the summary line says after the state: a worker has no HTTP answer to show (its port is not listened on). */
function appAnswer(apply: ApplyResult, health: HealthReport | null): string {
  if (health?.kind === 'worker') return health.readyLine ? ' worker, ready' : ' worker';
  if (!apply.http?.url) return '';
  return apply.http.status === 0 ? ' no HTTP answer' : ` HTTP ${apply.http.status}`;
}

/** The summary line of a push: what it did (or would do), and how the app is. `push --quiet` prints only this. */
export function pushSummary(report: PushResult): string {
  const target = targetName(report.deployment);
  const stats = report.requests;
  const seconds = (report.durationMs / 1000).toFixed(2);
  const requests = `${plural(stats.total, 'request')}${stats.rateLimited ? `, ${stats.rateLimited} rate-limited` : ''}`;
  const c = report.changes;
  let line: string;
  if (report.dryRun) {
    const over = report.overwrites.length > 0 ? `, overwriting ${plural(report.overwrites.length, 'file')} changed on the deployment` : '';
    line = `dry run: would push ${plural(report.planned.length, 'change')} to ${target}${over} in about ${plural(report.pushRequests, 'request')}; nothing was sent`;
  } else if (report.positionRefused) {
    line = `Nothing pushed to ${target}: this copy is not at or ahead of the last push (${requests}, ${seconds} s)`;
  } else if (report.planned.length > 0) {
    line = `Pushed to ${target}: ${c.written} written, ${c.deleted} deleted, ${c.moved} moved, ${c.chmod} chmod (${requests}, ${seconds} s)`;
  } else if (report.conflicts.length > 0 || report.failures.length > 0) {
    // Never "up to date" above a list of conflicts: the trees differ, the user must decide.
    line = `Nothing pushed to ${target}: ${plural(report.conflicts.length, 'conflict')} left alone (${requests}, ${seconds} s)`;
  } else {
    line = `Up to date with ${target} (${requests}, ${seconds} s)`;
  }
  if (report.settings?.applied) line += ` · ${plural(report.settings.changes.length, 'setting')} set`;
  if (report.apply) line += ` · ${appState(report.health?.state ?? report.apply.state)}${appAnswer(report.apply, report.health)}`;
  else if (report.applyPending) line += ' · apply pending';
  return line;
}

/** `hostsync push` for humans. */
export function renderPush(report: PushResult): string {
  const out: string[] = [...positionLines(report.position)];
  const overwrites = new Set(report.overwrites);
  const mark = (c: ChangeItem): string => {
    const line = changeLine(c);
    if (c.kind === 'rename' || !overwrites.has(c.path)) return line;
    // Not a conflict: the deployment's npm install rewrote its lockfile (sync/core/install-files.ts).
    if (isInstallLockfile(c.path)) return `${line}  ${pc.dim(`(${report.dryRun ? 'would replace' : 'replaced'} the lockfile the deployment's npm install had rewritten)`)}`;
    return `${line}  ${pc.red(report.dryRun ? "(would overwrite the deployment's version)" : "(overwrote the deployment's version)")}`;
  };
  if (report.planned.length > 0 && !report.positionRefused) out.push(...limited(report.planned.map(mark)));
  if (report.backup) {
    const n = report.backup.paths.length;
    out.push(pc.yellow(`safety copy of ${n} file${n === 1 ? '' : 's'}: ${quoteName(report.backup.archive)} (on the deployment; \`hostsync undo\` restores from it)`));
  }
  for (const f of report.failures) out.push(pc.red(`failed: ${quoteName(f.path)}: ${safeText(f.error)}`));
  out.push(...settingsLines(report.settings, report.dryRun ? 'dry-run' : 'push'));
  out.push(...conflictSection(report.conflicts));
  out.push(...elsewhereSection(report.elsewhere));
  out.push(...driftSection(report.drift));
  out.push(...report.warnings.map((w) => pc.yellow(`warning: ${safeText(w)}`)));
  if (report.install?.ok) out.push(`installed the dependencies first: ${safeText(report.install.command)} (${Math.round(report.install.durationMs / 100) / 10} s)`);
  if (report.apply || report.health) out.push(...renderHealth(report.apply, report.health, report.healthy, report.autoKindNew));
  if (applyStillRunning(report.applyRefused)) out.push(pc.yellow(`apply: ${safeText(report.applyRefused!)}`));
  else if (report.applyRefused) out.push(pc.red(`apply refused: ${safeText(report.applyRefused)}`));
  else if (report.applyPending && !report.dryRun) {
    out.push(pc.yellow('apply pending: the files landed, but the app was not applied with them; the next `hostsync push` applies them'));
  }
  if (report.apply && report.leftOut.length > 0) {
    out.push(pc.yellow(`applied without ${report.leftOut.length} file(s) that could not land: ${report.leftOut.slice(0, LIST_LIMIT).map(quoteName).join(', ')}`));
  }
  out.push(pushSummary(report));
  return out.join('\n');
}

