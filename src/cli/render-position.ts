/** The one line `status`, `push` and `diff` say about where this copy stands against the deployment's last push (sync/core/copy-position.ts). */
import { pc } from './colors.js';
import type { CopyPosition } from '../sync/core/copy-position.js';
import { quoteName, safeText } from './terminal-text.js';

const short = (c: string | null): string => (c === null ? '?' : c.slice(0, 12));

export function positionLines(p: CopyPosition | null): string[] {
  if (p === null || !p.comparable || p.against === null) return [];
  const a = p.against;
  const last = `the deployment's last push (${short(a.commit)}${a.clean === false ? ', with uncommitted changes' : ''}; ${safeText(a.kind)} from ${quoteName(a.host)}:${quoteName(a.dir)}, ${safeText(a.time)})`;
  const mine = `This copy (${short(p.commit)})`;
  switch (p.state) {
    case 'same':
      return [pc.dim(`${mine} is at the commit of ${last}.`)];
    case 'ahead':
      return [pc.dim(`${mine} is ahead of ${last}${p.assumed ? ': assumed from commit times, that commit is not in this shallow clone' : ''}.`)];
    case 'behind':
      return [pc.yellow(`${mine} is behind ${last}: git pull before pushing.`)];
    case 'diverged':
      return [pc.yellow(`${mine} has diverged from ${last}: git pull before pushing.`)];
    default:
      return [pc.yellow(`${mine} cannot be compared with ${last}: that commit is not in this clone (git fetch).`)];
  }
}
