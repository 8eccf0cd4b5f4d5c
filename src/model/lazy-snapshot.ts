/**
 * A Snapshot whose entries are made only when someone reads them. At 100k files a warm
 * no-op `status` compares the local tree with the sync base and the cached remote without
 * building a Map of 100k entries for any of them: the state file and the scan know, while
 * reading, that two trees are equal, and say so here (`knownEqual`).
 *
 * Invariants:
 * - Observably a Map: every Map method (and iteration) first fills it from its source, in
 *   the source's order; `size` alone is answered without filling.
 * - A fact "equal to `other`" holds for the entries as made, and only while neither
 *   snapshot has been changed since (any set, delete or clear ends it). So does a fact
 *   "`other` with these paths changed" (markDelta): every path it does not name holds
 *   `other`'s entry.
 * - `get` and `has` of a snapshot with a `find` answer without making every entry, for the
 *   first FINDS_BEFORE_FILL keys; from then on it is filled (each find is a pass over the
 *   source's records, cheaper than making 100k entries only a few times).
 */
import type { Entry } from './types.js';

/** A tree in path order that a scan can check the files it finds against, one by one (see scanTree). */
export interface ExpectedCursor {
  /**
   * Whether the next expected file is `rel` with this content (the hash as the two
   * little-endian u32 of its 8 bytes, as packed files store it). Moves past it when it is;
   * entries not part of the tree (remote-only records of the state file) are passed over.
   */
  next(rel: string, hashLo: number, hashHi: number, size: number, executable: boolean): boolean;
  /** Every expected file was met. */
  readonly done: boolean;
  /** How many files were met. */
  readonly met: number;
  /**
   * The next expected file's path, null when none is left (entries not part of the tree
   * are passed over, as by next). Absent when this cursor cannot tell it.
   */
  peek?(): string | null;
  /** Moves past the next expected file whatever it holds, and returns its entry (peek() must not be null). */
  take?(): Entry;
}

/** One path a snapshot holds differently from the snapshot it is a delta over (see markDelta). */
export interface DeltaItem {
  /** Its entry in this snapshot; null when absent here. */
  local: Entry | null;
  /** Its entry in the other one; null when absent there. */
  base: Entry | null;
}

/** `get` and `has` answered by `find` before the entries are made (see the invariants). */
const FINDS_BEFORE_FILL = 8;

export class LazySnapshot extends Map<string, Entry> {
  private source: (() => Iterable<Entry>) | null;
  private readonly count: number;
  private equalTo: { other: LazySnapshot; generation: number } | null = null;
  private deltaTo: { other: LazySnapshot; generation: number; delta: ReadonlyMap<string, DeltaItem> } | null = null;
  private generation = 0;
  private find: ((key: string) => Entry | undefined) | null;
  private findsLeft = FINDS_BEFORE_FILL;

  /** See the constructor; dropped once the entries are made (it holds what the source reads). */
  private cursorOf: (() => ExpectedCursor) | null;

  /**
   * `source` yields the entries (in path order) each time it is called; `count` is how many.
   * `cursor`, when given, walks the same entries for a scan without making them.
   */
  /** `find`, when given, answers one key from the source without making the others (see the invariants). */
  constructor(count: number, source: () => Iterable<Entry>, cursor: (() => ExpectedCursor) | null = null, find: ((key: string) => Entry | undefined) | null = null) {
    super();
    this.count = count;
    this.source = source;
    this.cursorOf = cursor;
    this.find = find;
  }

  /** A scan's cursor over the entries while they are unmade (null once made, or when there is none). */
  get cursor(): (() => ExpectedCursor) | null {
    return this.cursorOf;
  }

  /** Whether the entries are still unmade. */
  get lazy(): boolean {
    return this.source !== null;
  }

  /** Makes every entry (idempotent). */
  fill(): this {
    const source = this.source;
    if (source === null) return this;
    this.source = null; // before iterating: the Map methods used below must not fill again
    this.cursorOf = null;
    this.find = null;
    for (const e of source()) super.set(e.path, e);
    return this;
  }

  /**
   * The entries as they are now, in order, to read later without making them part of this
   * snapshot: the source itself while unmade (it reads what cannot change), else a copy.
   */
  entriesNow(): () => Iterable<Entry> {
    const source = this.source;
    if (source !== null) return source;
    const values = [...super.values()];
    return () => values;
  }

  /** Records that this snapshot's entries equal `other`'s, as they are now (see knownEqual). */
  markEqual(other: LazySnapshot): void {
    this.equalTo = { other, generation: other.generation };
  }

  /**
   * Records that this snapshot is `other` with exactly the paths of `delta` changed, as
   * both are now (see deltaOver): whoever compares them need look at those paths alone.
   */
  markDelta(other: LazySnapshot, delta: ReadonlyMap<string, DeltaItem>): void {
    this.deltaTo = { other, generation: other.generation, delta };
  }

  /** A copy (still unmade when this one is), known equal to this one as it is now. */
  copy(): LazySnapshot {
    const source = this.source;
    const out = source !== null ? new LazySnapshot(this.count, source, this.cursor, this.find) : new LazySnapshot(super.size, () => super.values()).fill();
    out.markEqual(this);
    return out;
  }

  /** Whether this snapshot is known to hold `other`'s entries (see markEqual). */
  isKnownEqual(other: LazySnapshot): boolean {
    const f = this.equalTo;
    return f !== null && f.other === other && f.generation === other.generation;
  }

  /** The paths in which this snapshot is known to differ from `other` (see markDelta); null when unknown. */
  deltaFrom(other: LazySnapshot): ReadonlyMap<string, DeltaItem> | null {
    const f = this.deltaTo;
    return f !== null && f.other === other && f.generation === other.generation ? f.delta : null;
  }

  private changed(): void {
    this.fill();
    this.generation++;
    this.equalTo = null;
    this.deltaTo = null;
  }

  /** Whether `get`/`has` may still ask `find` (and counts the ask). */
  private findable(): boolean {
    return this.source !== null && this.find !== null && this.findsLeft-- > 0;
  }

  override get size(): number {
    return this.source !== null ? this.count : super.size;
  }
  override get(key: string): Entry | undefined {
    if (this.findable()) return this.find!(key);
    return this.fill(), super.get(key);
  }
  override has(key: string): boolean {
    if (this.findable()) return this.find!(key) !== undefined;
    return this.fill(), super.has(key);
  }
  override set(key: string, value: Entry): this {
    this.changed();
    return super.set(key, value);
  }
  override delete(key: string): boolean {
    this.changed();
    return super.delete(key);
  }
  override clear(): void {
    this.changed();
    super.clear();
  }
  override forEach(fn: (value: Entry, key: string, map: Map<string, Entry>) => void, thisArg?: unknown): void {
    this.fill();
    super.forEach(fn, thisArg);
  }
  override keys(): MapIterator<string> {
    return this.fill(), super.keys();
  }
  override values(): MapIterator<Entry> {
    return this.fill(), super.values();
  }
  override entries(): MapIterator<[string, Entry]> {
    return this.fill(), super.entries();
  }
  override [Symbol.iterator](): MapIterator<[string, Entry]> {
    return this.entries();
  }
}

/**
 * The paths in which `a` is known to differ from `b`, each with its entry in both (a fact
 * recorded by whoever made `a`); an empty map when they are known equal; null when unknown.
 */
export function deltaOver(a: Map<string, Entry> | null, b: Map<string, Entry> | null): ReadonlyMap<string, DeltaItem> | null {
  if (knownEqual(a, b)) return new Map();
  if (!(a instanceof LazySnapshot) || !(b instanceof LazySnapshot)) return null;
  return a.deltaFrom(b);
}

/** `a` and `b` are known to hold equal entries (a fact recorded by whoever made them; false when unknown). */
export function knownEqual(a: Map<string, Entry> | null, b: Map<string, Entry> | null): boolean {
  if (!(a instanceof LazySnapshot) || !(b instanceof LazySnapshot)) return false;
  return a === b || a.isKnownEqual(b) || b.isKnownEqual(a);
}

/**
 * `base` with the paths of `delta` set to their `local` entries (null: absent), in path
 * order, entries made when first read; known to be that delta over `base`. `delta` is in
 * path order. `entries` yields base's entries (default: as they are now); a scan passes
 * them with the text flags it read.
 */
export function withDelta(base: LazySnapshot, delta: ReadonlyMap<string, DeltaItem>, entries: () => Iterable<Entry> = base.entriesNow()): LazySnapshot {
  let count = base.size;
  for (const d of delta.values()) count += (d.local !== null ? 1 : 0) - (d.base !== null ? 1 : 0);
  const order = [...delta.keys()];
  const next = new LazySnapshot(count, function* () {
    let k = 0;
    for (const e of entries()) {
      while (k < order.length && order[k]! <= e.path) {
        const d = delta.get(order[k++]!)!;
        if (d.local !== null) yield d.local;
      }
      if (!delta.has(e.path)) yield e;
    }
    while (k < order.length) {
      const d = delta.get(order[k++]!)!;
      if (d.local !== null) yield d.local;
    }
  });
  next.markDelta(base, delta);
  return next;
}
