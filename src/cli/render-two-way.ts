/** Human text for diff, pull and resolve, rendered from the result objects `--json` prints. */
import { positionLines } from './render-position.js';
import { pc } from './colors.js';
import type { DiffItem, DiffResult } from '../app/diff.js';
import type { PullResult } from '../app/pull.js';
import type { ResolveResult } from '../app/resolve.js';
import { conflictReason, resolveHint, targetName } from './render.js';
import { plural } from './plural.js';
import { DIFF_TEXT_MAX_BYTES } from '../sync/tunables.js';
import { quoteName, safeContentLine, safeText } from './terminal-text.js';

/** "1 file differs", "2 files differ": the noun and the verb agree. */
const filesDiffer = (n: number): string => `${plural(n, 'file')} ${n === 1 ? 'differs' : 'differ'}`;
const MIB = 1024 * 1024;
const requestsLine = (n: number): string => plural(n, 'request');

const SIDES: Record<DiffItem['side'], string> = {
  local: 'changed here',
  remote: 'changed on the deployment',
  conflict: 'changed on both sides',
  'remote-only': 'only on the deployment',
};

/** Who changed it; a deployment change hostsync made elsewhere says where from. */
const sideOf = (f: DiffItem): string =>
  f.elsewhere ? `changed by a ${f.elsewhere.by === 'watch' ? 'watch' : f.elsewhere.by === 'snapshot' ? 'push' : f.elsewhere.by} from ${quoteName(f.elsewhere.host)}:${quoteName(f.elsewhere.dir)}, ${safeText(f.elsewhere.time)}; hostsync pull takes it` : SIDES[f.side];

const short = (h: string | null): string => (h ? h.slice(0, 8) : 'unhashed');

function summary(f: DiffItem): string {
  const name = f.from !== undefined ? `${quoteName(f.from)} -> ${quoteName(f.path)}` : quoteName(f.path);
  const what = f.change === 'mode'
    ? `mode ${f.remote?.executable ? '+x' : '-x'} -> ${f.local?.executable ? '+x' : '-x'}`
    : f.tooLarge
      ? `over ${DIFF_TEXT_MAX_BYTES / MIB} MiB, too large to show as a diff: deployment ${f.remote ? `${f.remote.size} B ${short(f.remote.hash)}` : 'none'}, local ${f.local ? `${f.local.size} B ${short(f.local.hash)}` : 'none'}`
    : f.binary
      ? `binary: deployment ${f.remote ? `${f.remote.size} B ${short(f.remote.hash)}` : 'none'}, local ${f.local ? `${f.local.size} B ${short(f.local.hash)}` : 'none'}`
      : f.patch === null
        ? f.change
        : `${pc.green(`+${f.added}`)} ${pc.red(`-${f.removed}`)}`;
  return `${name}  ${pc.dim(`(${sideOf(f)})`)}  ${what}`;
}

function colourPatch(patch: string): string {
  return patch
    .replace(/\n$/, '')
    .split('\n')
    .map(safeContentLine)
    .map((l) => (l.startsWith('+++') || l.startsWith('---') ? pc.bold(l) : l.startsWith('+') ? pc.green(l) : l.startsWith('-') ? pc.red(l) : l.startsWith('@@') ? pc.cyan(l) : l))
    .join('\n');
}

/** The last line of `hostsync diff`, and all that `diff --quiet` prints. */
export function diffSummary(result: DiffResult): string {
  if (result.files.length === 0) return `No differences with ${targetName(result.deployment)} (${requestsLine(result.requests.total)})`;
  return pc.dim(`${filesDiffer(result.files.length)} from ${targetName(result.deployment)} (${requestsLine(result.requests.total)}); - is the deployment, + is local`);
}

/** `hostsync diff`: unified diffs (deployment -> local), or with `stat` one line per file. */
export function renderDiff(result: DiffResult, stat = false): string {
  const out: string[] = positionLines(result.position);
  if (result.files.length === 0) return [...out, diffSummary(result)].join('\n');
  for (const f of result.files) {
    if (f.lineEndings !== undefined) out.push(`${summary(f)}  ${f.lineEndings}`);
    else if (stat || f.patch === null) out.push(summary(f));
    else out.push(`${pc.dim(`# ${quoteName(f.path)}: ${sideOf(f)}`)}\n${colourPatch(f.patch)}`);
  }
  out.push(diffSummary(result));
  out.push(...result.warnings.map((w) => pc.yellow(`warning: ${safeText(w)}`)));
  return out.join('\n');
}

/** What a pull did, in one line: `pull --quiet` prints only this (and errors). */
export function pullSummary(r: PullResult): string {
  const target = targetName(r.deployment);
  const n = r.fetched.length + r.removed.length + r.chmod.length;
  if (r.dryRun) return `dry run: would take ${plural(n, 'change')} from ${target}; nothing was written`;
  const held = r.held.length > 0 ? `; ${plural(r.held.length, 'configuration file')} held (see below)` : '';
  if (n === 0 && r.leftAlone.length > 0) return `Nothing pulled from ${target}: ${plural(r.leftAlone.length, 'named path')} left alone (${requestsLine(r.requests.total)})${held}`;
  if (n === 0 && r.conflicts.length === 0) return `Up to date with ${target} (${requestsLine(r.requests.total)})${held}`;
  const conflicts = (r.conflicts.length > 0 ? `; ${plural(r.conflicts.length, 'conflict')} left alone` : '') + held;
  return `Pulled from ${target}: ${r.fetched.length} fetched, ${r.removed.length} removed, ${r.chmod.length} chmod (${requestsLine(r.requests.total)}, ${(r.durationMs / 1000).toFixed(2)} s)${conflicts}`;
}

/** `hostsync pull` for humans. */
export function renderPull(r: PullResult): string {
  const out: string[] = [];
  for (const p of r.fetched) out.push(`  ${pc.green('↓')}  ${quoteName(p)}`);
  for (const p of r.removed) out.push(`  ${pc.red('D')}  ${quoteName(p)}`);
  for (const c of r.chmod) out.push(`  ${pc.yellow('M')}  ${quoteName(c.path)} ${pc.dim(c.executable ? '(mode +x)' : '(mode -x)')}`);
  for (const c of r.overridden) out.push(pc.yellow(`  replaced your edit of ${quoteName(c.path)} (--force)`));
  out.push(pullSummary(r));
  for (const f of r.failures) out.push(pc.red(`failed: ${quoteName(f.path)}: ${safeText(f.error)}`));
  for (const a of r.leftAlone) out.push(pc.yellow(`Not pulled: ${quoteName(a.path)}: ${safeText(a.why)}`));
  if (r.conflicts.length > 0) {
    out.push(pc.red(`Conflicts (${r.conflicts.length}; your files left as they are):`));
    for (const c of r.conflicts) out.push(`  ${pc.red('C')}  ${quoteName(c.path)}  ${pc.dim(conflictReason(c))}`);
    out.push(...resolveHint());
  }
  if (r.localChanges > 0) out.push(pc.dim(`${plural(r.localChanges, 'local change')} left for push.`));
  if (r.remoteOwned.length > 0) {
    out.push(pc.dim(`${plural(r.remoteOwned.length, 'app data file')} on the deployment not pulled (remoteOwned: ${quoteName(r.remoteOwned[0]!)}${r.remoteOwned.length > 1 ? ', ...' : ''}); \`hostsync pull PATH\` brings one here.`));
  }
  out.push(...r.warnings.map((w) => pc.yellow(`warning: ${safeText(w)}`)));
  return out.join('\n');
}

/** `hostsync resolve` for humans. */
export function renderResolve(r: ResolveResult): string {
  const out: string[] = [];
  if (r.settled.length === 0 && r.leftAlone.length === 0 && r.conflicts.length === 0) out.push('Nothing to settle: these paths already match the deployment.');
  else if (r.settled.length === 0) out.push('Nothing settled:');
  else if (r.side === 'theirs') out.push(`Took the deployment's side of ${plural(r.settled.length, 'path')}:`, ...r.settled.map((p) => `  ${quoteName(p)}`));
  else out.push(`Kept your side of ${plural(r.settled.length, 'path')}; the next push writes them:`, ...r.settled.map((p) => `  ${quoteName(p)}`));
  for (const a of r.leftAlone) out.push(pc.yellow(`Not settled: ${quoteName(a.path)}: ${safeText(a.why)}`));
  for (const c of r.conflicts) out.push(pc.red(`Not settled: ${quoteName(c.path)} changed here while resolve ran; your file was kept`));
  for (const f of r.failures) out.push(pc.red(`failed: ${quoteName(f.path)}: ${safeText(f.error)}`));
  return out.join('\n');
}
