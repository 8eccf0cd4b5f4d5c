/**
 * Watch's drift poll at a bounded cost, whatever the size of the tree: pure planning.
 *
 * files.index answers `unchanged` for a digest it gave before, and its digest covers the
 * whole result even when the answer is truncated. So:
 * - While the root digest is TRUSTED (every part of the tree was read, and merged, after
 *   the read that gave it, and we wrote nothing since), one read of the root tells whether
 *   anything changed anywhere: 1 request.
 * - Otherwise (our own writes changed the root digest, or a foreign change did), the tree
 *   is read one REGION per poll. The regions partition the tree into reads of at most the
 *   server's entry cap (index-groups.ts: whole subtrees packed into groups, plus one read
 *   of everything else), so each answer is complete: an exact drift check of that region
 *   (the watch cycle's three-way merge) and, with the digest it carries, a cheap re-read
 *   next time. A round is one root read (its digest becomes the candidate) followed by
 *   every region; a round with no write of ours in it makes the candidate trusted.
 *   A write of ours drops the candidate; the rotation goes on, and the next round starts
 *   when it wraps.
 * So a poll is ONE request, and a remote change is seen within one round: regions + 1
 * polls (7 x 30 s at 100k files and a 20k cap), one poll while the root is trusted. A
 * tree that fits one answer has no regions: its root read is complete, and trusted at once.
 *
 * Drift found late is never a safety issue: every write of a watch cycle is preceded by a
 * read of its own paths (the three-way merge); the rotation only finds what to report.
 */
import type { DriftRecord } from '../../state/drift.js';
import { planIndexGroups } from '../remote-read/index-groups.js';

/**
 * One read of the partition: the root with `extra` ignore patterns after the user's. It
 * keeps the subtrees `units` (kind `only`), or leaves them out (`except`, the rest read).
 * `digest`: of this read's last answer, null when never read.
 */
export type DriftRegion = DriftRecord['regions'][number];

/**
 * - requestKey: the user's ignore list and hashMaxBytes (indexRequestKey): digests hold for it only.
 * - cap: entries per answer a truncated root read showed; null while unknown.
 * - regions: empty while the tree fits one answer (or before the first truncated root read).
 * - trusted: a root digest nothing unseen happened since: one read checks the whole tree.
 * - candidate: the root digest this round started from; trusted once every region was read
 *   after it with no write of ours.
 * - lastRoot: the last root digest seen (an unchanged root then costs no entries).
 * - cursor: next region to read; regions.length means the root read that starts a round.
 * - replan: a region came back truncated, or the cap changed: plan at the next root read.
 */
export type DriftState = DriftRecord;

export function freshDriftState(requestKey: string, rootDigest: string | null): DriftState {
  return { requestKey, cap: null, regions: [], trusted: rootDigest, candidate: null, lastRoot: rootDigest, cursor: 0, replan: false };
}

export type DriftStep =
  | { kind: 'root'; digest: string | null; trusted: boolean }
  | { kind: 'region'; index: number; region: DriftRegion };

/** What the next poll reads. */
export function nextDriftStep(s: DriftState): DriftStep {
  if (s.trusted !== null) return { kind: 'root', digest: s.trusted, trusted: true };
  // Without regions the answer itself must carry the tree (an `unchanged` against an
  // untrusted digest would say nothing about what we have not seen).
  if (s.cursor >= s.regions.length) return { kind: 'root', digest: s.regions.length > 0 ? s.lastRoot : null, trusted: false };
  return { kind: 'region', index: s.cursor, region: s.regions[s.cursor]! };
}

export interface IndexAnswer {
  unchanged: boolean;
  digest: string;
  truncated: boolean;
  /** Entries in the answer (the cap, when truncated). */
  entries: number;
}

/**
 * After a root read. Returns what the caller must do: nothing (trusted and unchanged),
 * merge the complete answer (the tree fits one answer), or plan the regions before the
 * round goes on (`plan`, with the cap).
 */
export function onRootAnswer(s: DriftState, sentTrusted: boolean, a: IndexAnswer): 'quiet' | 'merge' | 'plan' | 'round' {
  if (a.unchanged && sentTrusted) return 'quiet';
  s.lastRoot = a.digest;
  s.trusted = null;
  if (!a.unchanged && !a.truncated) {
    // The whole tree in one answer: nothing left unseen once the caller has merged it
    // (onRootMerged). Trusted only then: a merge that fails must not make the next poll
    // answer "unchanged" over the drift it did not report.
    s.candidate = a.digest;
    s.regions = [];
    s.cursor = 0;
    return 'merge';
  }
  s.candidate = a.digest;
  s.cursor = 0;
  if (a.truncated && s.cap !== a.entries) {
    s.cap = a.entries;
    s.replan = true;
  }
  // Unchanged against an untrusted digest: the tree is as at that earlier answer, whose
  // regions were not all read since; this round reads them.
  if (s.cap === null) return 'round';
  return s.replan || s.regions.length === 0 ? 'plan' : 'round';
}

/** The whole-tree root answer that onRootAnswer sent to 'merge' was merged: its digest is trusted. */
export function onRootMerged(s: DriftState, digest: string): void {
  if (s.candidate !== digest) return; // a write of ours came between: nothing to trust
  s.trusted = digest;
  s.candidate = null;
}

/** After a region read. */
export function onRegionAnswer(s: DriftState, index: number, a: IndexAnswer): void {
  const r = s.regions[index];
  if (r) r.digest = a.digest;
  if (a.truncated) s.replan = true;
  s.cursor = index + 1;
  if (s.cursor >= s.regions.length && s.candidate !== null) {
    s.trusted = s.candidate;
    s.candidate = null;
  }
}

/** A cycle of ours wrote to the deployment: no digest taken before it can be trusted. */
export function onOwnWrite(s: DriftState): void {
  s.trusted = null;
  s.candidate = null;
}

/**
 * The partition for `cap`: groups of whole subtrees of the files we expect (base and local
 * tree), plus one read of everything else. Null when no plan fits the pattern budget
 * (the poll then reads the whole tree, as push does).
 */
export function planDriftRegions(expected: Iterable<string>, cap: number): DriftRegion[] | null {
  const plan = planIndexGroups([], expected, cap);
  if (plan === null) return null;
  const regions: DriftRegion[] = plan.groups.map((extra, i) => ({ extra, units: plan.units[i]!, kind: 'only' as const, digest: null }));
  regions.push({ extra: plan.rest, units: plan.excluded, kind: 'except', digest: null });
  return regions;
}

/** Sets the regions planned for the round that is starting. */
export function setRegions(s: DriftState, regions: DriftRegion[]): void {
  s.regions = regions;
  s.cursor = 0;
  s.replan = false;
}

/** True when `path` (a file) is read by `region`. */
export function regionHas(region: Pick<DriftRegion, 'units' | 'kind'>, units: ReadonlySet<string>, path: string): boolean {
  let under = false;
  for (let i = path.indexOf('/'); i !== -1; i = path.indexOf('/', i + 1)) {
    if (units.has(path.slice(0, i))) {
      under = true;
      break;
    }
  }
  return region.kind === 'only' ? under : !under;
}
