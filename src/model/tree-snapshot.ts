/**
 * A snapshot that counts, for every folder, the entries beneath it, so "what lies under
 * this path?" is answered without testing every path of the tree. Watch mode keeps its
 * local snapshot and its working base in one: a one-file cycle then asks in O(depth) and
 * finds nothing under a file, where a plain Map meant a pass over all 100k paths per cycle.
 *
 * It is a Snapshot (a Map): every other reader is unaffected. Invariant: `below(d)` is the
 * number of keys that start with `d/`, kept by set, delete and clear; `version` changes
 * with every set, delete and clear (entries are never changed in place), so a result
 * computed from it holds while the version does.
 */
import type { Entry, Snapshot } from './types.js';

export class TreeSnapshot extends Map<string, Entry> {
  private counts!: Map<string, number>;
  version = 0;

  constructor(entries?: Iterable<readonly [string, Entry]>) {
    // Map's constructor would call set() before `counts` exists: fill it afterwards.
    super();
    this.counts = new Map();
    if (entries) for (const [p, e] of entries) this.set(p, e);
  }

  override set(p: string, e: Entry): this {
    this.version++;
    if (!super.has(p)) this.count(p, 1);
    return super.set(p, e);
  }

  override delete(p: string): boolean {
    if (!super.delete(p)) return false;
    this.version++;
    this.count(p, -1);
    return true;
  }

  override clear(): void {
    this.version++;
    super.clear();
    this.counts.clear();
  }

  /** How many entries lie beneath `dir` ('' = the root: all of them). */
  below(dir: string): number {
    return dir === '' ? this.size : (this.counts.get(dir) ?? 0);
  }

  private count(p: string, by: number): void {
    for (let i = p.lastIndexOf('/'); i > 0; i = p.lastIndexOf('/', i - 1)) {
      const dir = p.slice(0, i);
      const n = (this.counts.get(dir) ?? 0) + by;
      if (n === 0) this.counts.delete(dir);
      else this.counts.set(dir, n);
    }
  }
}

/** Entries beneath `dir` in `s`, or undefined when `s` cannot tell without a pass over it. */
export function countBelow(s: Snapshot, dir: string): number | undefined {
  return s instanceof TreeSnapshot ? s.below(dir) : undefined;
}
