/** Issue 10 (drift at any tree size): the drift poll's rotation, pure. */
import { describe, expect, it } from 'vitest';
import {
  freshDriftState, nextDriftStep, onOwnWrite, onRegionAnswer, onRootAnswer, onRootMerged, planDriftRegions, regionHas, setRegions, type DriftState,
} from '../../src/sync/watch-cycle/drift-rotation.js';

/** A tree of `folders` x `files` files under src/, plus a few at the root. */
function tree(folders: number, files: number): string[] {
  const out = ['index.html', 'package.json'];
  for (let d = 0; d < folders; d++) for (let f = 0; f < files; f++) out.push(`src/d${d}/e${d % 7}/file${f}.js`);
  return out;
}

const answer = (over: Partial<{ unchanged: boolean; digest: string; truncated: boolean; entries: number }> = {}) => ({
  unchanged: false, digest: 'd', truncated: false, entries: 10, ...over,
});

/** Runs polls against a remote whose digests are given per read; returns the reads made. */
function stepKinds(s: DriftState, polls: number): string[] {
  const out: string[] = [];
  for (let i = 0; i < polls; i++) {
    const step = nextDriftStep(s);
    if (step.kind === 'root') {
      out.push(step.trusted ? 'root*' : 'root');
      const next = onRootAnswer(s, step.trusted, answer({ unchanged: step.trusted, digest: 'R', truncated: true, entries: 100 }));
      if (next === 'plan') setRegions(s, planDriftRegions(tree(40, 10), 100)!);
    } else {
      out.push(`r${step.index}`);
      onRegionAnswer(s, step.index, answer({ digest: `g${step.index}` }));
    }
  }
  return out;
}

describe('planDriftRegions', () => {
  it('partitions the tree into reads under the cap: every file in exactly one region', () => {
    for (const [folders, files, cap] of [[40, 10, 100], [200, 20, 1000], [3, 100, 150], [1, 5, 100]] as const) {
      const paths = tree(folders, files);
      const regions = planDriftRegions(paths, cap)!;
      expect(regions.at(-1)!.kind).toBe('except');
      const counts = regions.map(() => 0);
      for (const p of paths) {
        const holders = regions.filter((r) => regionHas(r, new Set(r.units), p));
        expect(holders.length, p).toBe(1);
        counts[regions.indexOf(holders[0]!)]!++;
      }
      // Each read stays under the cap (files only here; its folders are few).
      for (const c of counts) expect(c).toBeLessThanOrEqual(cap);
      // About as few reads as the cap allows: ceil(entries / cap), plus at most one.
      expect(regions.length).toBeLessThanOrEqual(Math.ceil(paths.length / cap) + 2);
    }
  });

  it('a new top-level folder on the remote falls in the rest read', () => {
    const regions = planDriftRegions(tree(40, 10), 100)!;
    const rest = regions.at(-1)!;
    expect(regionHas(rest, new Set(rest.units), 'brand-new/x.js')).toBe(true);
    expect(regions.slice(0, -1).some((r) => regionHas(r, new Set(r.units), 'brand-new/x.js'))).toBe(false);
  });
});

describe('the rotation', () => {
  it('a trusted root costs one read per poll; a change starts a round of one read per region, then the root is trusted again', () => {
    const s = freshDriftState('k', 'R0');
    expect(nextDriftStep(s)).toEqual({ kind: 'root', digest: 'R0', trusted: true });
    expect(onRootAnswer(s, true, answer({ unchanged: true, digest: 'R0' }))).toBe('quiet');
    expect(s.trusted).toBe('R0');
    // Someone changed the tree: the answer is truncated (the cap shows), the round is planned.
    expect(onRootAnswer(s, true, answer({ digest: 'R1', truncated: true, entries: 100 }))).toBe('plan');
    expect(s.cap).toBe(100);
    expect(s.candidate).toBe('R1');
    setRegions(s, planDriftRegions(tree(40, 10), 100)!);
    const n = s.regions.length;
    expect(n).toBeGreaterThan(2);
    for (let i = 0; i < n; i++) {
      const step = nextDriftStep(s);
      expect(step).toMatchObject({ kind: 'region', index: i });
      expect(s.trusted).toBeNull();
      onRegionAnswer(s, i, answer({ digest: `g${i}` }));
    }
    expect(s.trusted).toBe('R1');
    expect(nextDriftStep(s)).toEqual({ kind: 'root', digest: 'R1', trusted: true });
  });

  it('after a write of ours every poll is still one read, and every region is read within regions + 1 polls', () => {
    const s = freshDriftState('k', 'R0');
    onOwnWrite(s);
    const kinds = stepKinds(s, 30);
    const n = s.regions.length;
    expect(kinds[0]).toBe('root');
    // Each window of n + 1 polls reads every region (until the root is trusted again).
    const firstTrusted = kinds.indexOf('root*');
    expect(firstTrusted).toBe(n + 1);
    for (let i = 0; i + n + 1 <= firstTrusted; i++) {
      const window = new Set(kinds.slice(i, i + n + 1));
      for (let r = 0; r < n; r++) expect(window.has(`r${r}`)).toBe(true);
    }
  });

  it('a write of ours in the middle of a round drops the candidate: the rotation goes on and a new round starts at the wrap', () => {
    const s = freshDriftState('k', null);
    stepKinds(s, 3); // root, r0, r1
    expect(s.candidate).toBe('R');
    onOwnWrite(s);
    const n = s.regions.length;
    const rest = stepKinds(s, n - 2 + 1 + n);
    expect(rest.slice(0, n - 2)).toEqual(Array.from({ length: n - 2 }, (_, i) => `r${i + 2}`));
    expect(rest[n - 2]).toBe('root'); // not trusted: a new round
    expect(s.trusted).toBe('R');
  });

  it('unchanged against an untrusted digest starts a round (the tree is as at that answer, not as merged)', () => {
    const s = freshDriftState('k', null);
    stepKinds(s, 1);
    for (let i = 0; i < s.regions.length; i++) onRegionAnswer(s, i, answer());
    onOwnWrite(s);
    const step = nextDriftStep(s);
    expect(step).toEqual({ kind: 'root', digest: 'R', trusted: false });
    expect(onRootAnswer(s, false, answer({ unchanged: true, digest: 'R' }))).toBe('round');
    expect(s.trusted).toBeNull();
    expect(s.cursor).toBe(0);
  });

  it('a tree that fits one answer: its root read is merged and trusted at once; without regions an untrusted root read carries entries', () => {
    const s = freshDriftState('k', 'R0');
    onOwnWrite(s);
    expect(nextDriftStep(s)).toEqual({ kind: 'root', digest: null, trusted: false });
    expect(onRootAnswer(s, false, answer({ digest: 'R1' }))).toBe('merge');
    // Not trusted until merged: a merge that throws leaves the next poll reading entries again.
    expect(s.trusted).toBeNull();
    expect(nextDriftStep(s)).toEqual({ kind: 'root', digest: null, trusted: false });
    onRootMerged(s, 'R1');
    expect(s.trusted).toBe('R1');
    expect(nextDriftStep(s)).toEqual({ kind: 'root', digest: 'R1', trusted: true });
  });

  it('a write of ours between the whole-tree answer and its merge leaves the digest untrusted', () => {
    const s = freshDriftState('k', 'R0');
    onOwnWrite(s);
    expect(onRootAnswer(s, false, answer({ digest: 'R1' }))).toBe('merge');
    onOwnWrite(s);
    onRootMerged(s, 'R1');
    expect(s.trusted).toBeNull();
  });

  it('a region that comes back truncated, or a new cap, plans the partition again at the next round', () => {
    const s = freshDriftState('k', null);
    stepKinds(s, 2);
    onRegionAnswer(s, 1, answer({ truncated: true, entries: 100 }));
    expect(s.replan).toBe(true);
    s.cursor = s.regions.length;
    expect(onRootAnswer(s, false, answer({ truncated: true, entries: 100 }))).toBe('plan');
    setRegions(s, planDriftRegions(tree(40, 10), 100)!);
    expect(s.replan).toBe(false);
    expect(onRootAnswer(s, false, answer({ truncated: true, entries: 50 }))).toBe('plan');
    expect(s.cap).toBe(50);
  });
});
