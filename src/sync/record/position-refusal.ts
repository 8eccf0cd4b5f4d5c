/**
 * The one line a copy without a base of its own is refused with when it is not at or ahead
 * of the deployment's last push (copy-position.ts): git's non-fast-forward, said with what
 * hostsync knows of that push and the two ways forward.
 */
import type { CopyPosition } from '../core/copy-position.js';

const short = (c: string | null): string => (c === null ? 'a commit' : c.slice(0, 12));

// Record fields come from other machines: the error's renderer (cli/output.ts, terminal-text.ts) escapes them, as every error line.

export function positionRefusal(p: CopyPosition): string {
  const a = p.against;
  const last = a === null ? "the deployment's last push" : `the deployment's last push (commit ${short(a.commit)}, by a ${a.kind} from ${a.host}:${a.dir} at ${a.time})`;
  const mine = `this copy (commit ${short(p.commit)})`;
  const force = `or push --force to deploy ${short(p.commit)} over it on purpose (a safety copy of what it replaces is kept)`;
  if (p.state === 'behind') return `${mine} is behind ${last}: git pull to bring it up to date, ${force}`;
  if (p.state === 'diverged') return `${mine} has diverged from ${last}: git pull (merge or rebase) to take that push's commits in, ${force}`;
  return `${mine} cannot be compared with ${last}: that commit is not in this clone and this one is not newer; git fetch it (in CI: a full clone, fetch-depth: 0) or check out a newer commit, ${force}`;
}
