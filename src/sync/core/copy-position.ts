/**
 * Where this copy stands against the deployment's last push, in git's terms: the copy's
 * HEAD (X) against the commit the record's newest push came from (Y).
 *
 *   same       X = Y
 *   ahead      Y is an ancestor of X (CI deploying a newer commit): among X's ancestors (a
 *              depth-1 clone still names HEAD's parents), or git says so; in a shallow clone
 *              that does not hold Y, X's commit is newer than Y's (assumed: fetch-depth 0 makes it exact)
 *   behind     X is an ancestor of Y (X is among Y's recorded ancestors, or git says so)
 *   diverged   neither holds the other
 *   unknown    git cannot tell (Y not fetched, no common recent ancestor; a shallow clone of an
 *              older commit), or there is nothing to compare: no git here, no push recorded
 *              with a git stamp (`comparable` false then)
 *
 * A copy without a base of its own (a fresh clone, a CI re-run, a teammate who never pushed)
 * pushes only from `same` or `ahead`, as git refuses a non-fast-forward push; `behind`,
 * `diverged` and a comparable `unknown` are refused (exit 3) unless --force. The judgement is
 * pure (judgePosition); positionOf (record/copy-derive.ts) asks git the questions it needs.
 */
import type { GitHead } from '../../local/git.js';
import { GIT_ABBREV, lastHeaderOf, type BatchHeader, type BatchKind } from '../../state/base-record.js';

export type PositionState = 'same' | 'ahead' | 'behind' | 'diverged' | 'unknown';

export interface CopyPosition {
  state: PositionState;
  /** This copy's HEAD; null when the folder is not in a git work tree. */
  commit: string | null;
  /** The push compared against: the record's newest push or watch batch; null when the record has none. */
  against: { id: string; kind: string; time: string; host: string; dir: string; commit: string | null; clean: boolean | null } | null;
  /** Both sides have a commit to compare (a refusal is possible); false: no git here, or the last push carried no git stamp. */
  comparable: boolean;
  /** `ahead` taken from commit times alone (a shallow clone without Y). */
  assumed: boolean;
}

/** Batches that deploy a copy's tree (a pull, resolve or undo records what the deployment already held). */
export const DEPLOYS: ReadonlySet<BatchKind> = new Set<BatchKind>(['push', 'watch', 'snapshot']);

/** The record's newest batch that deployed a copy's tree (null: none did), read from its text unparsed (base-record.ts lastHeaderOf). */
export const lastPushIn = (text: string | null): BatchHeader | null => (text === null ? null : lastHeaderOf(text, DEPLOYS));

/** What git answered about Y, asked only when the judgement needs it. */
export interface Relation {
  /** The repository holds Y. */
  hasY: boolean;
  /** With hasY: Y is an ancestor of X, X an ancestor of Y. */
  yBeforeX?: boolean | null;
  xBeforeY?: boolean | null;
}

const againstOf = (h: BatchHeader): NonNullable<CopyPosition['against']> => ({
  id: h.id,
  kind: h.kind === 'snapshot' ? 'push' : h.kind,
  time: h.t,
  host: h.host,
  dir: h.dir,
  commit: h.git?.head ?? null,
  clean: h.git?.clean ?? null,
});

export function judgePosition(x: GitHead | null, last: BatchHeader | null, rel: Relation | null): CopyPosition {
  const against = last === null ? null : againstOf(last);
  const y = last?.git;
  const base = { commit: x?.head ?? null, against, assumed: false };
  if (x === null || !y) return { ...base, state: 'unknown', comparable: false };
  const out = (state: PositionState, assumed = false): CopyPosition => ({ ...base, state, comparable: true, assumed });
  if (x.head === y.head) return out('same');
  if (y.anc.includes(x.head.slice(0, GIT_ABBREV))) return out('behind');
  if (x.anc.includes(y.head.slice(0, GIT_ABBREV))) return out('ahead');
  if (rel?.hasY) {
    if (rel.yBeforeX) return out('ahead');
    if (rel.xBeforeY) return out('behind');
    if (rel.yBeforeX === false && rel.xBeforeY === false) return out('diverged');
    return out('unknown');
  }
  // Y is not here. A recent common ancestor with X not among Y's: the two lines parted.
  if (x.anc.some((a) => y.anc.includes(a))) return out('diverged');
  if (x.shallow && x.time > y.time) return out('ahead', true);
  return out('unknown');
}

/** A copy without a base of its own may push from here (same or ahead, or nothing to compare). */
export const mayPushFrom = (p: CopyPosition): boolean => !p.comparable || p.state === 'same' || p.state === 'ahead';
