/**
 * A scan against the tree its caller expects (ScanOptions.expect, the sync base): files are
 * checked against the expected entries in walk order without making entries, and a tree
 * found equal (or a small delta over it) comes back as a LazySnapshot known to be so.
 */
import type { Entry } from '../model/types.js';
import { LazySnapshot, withDelta, type DeltaItem, type ExpectedCursor } from '../model/lazy-snapshot.js';
import { hashWordLE } from './hash.js';
import { isExecutableMode } from './filestat.js';

import type { ScanOptions } from './scan-types.js';
import { NOT_READ, type Read, type ToRead } from './scan-read.js';

/** A file found, in scanTree's walk order: its entry (a stat cache hit), or its index among the files read. */
export type Slot = Entry | number;

/**
 * Whether `slots`, read, are exactly the rest of the expected tree (its cursor moved past
 * them, their text flags pushed). A file gone or unreadable since the walk is not found.
 */
export function restAsExpected(expected: Expected, slots: readonly Slot[], toRead: readonly ToRead[], read: Read): boolean {
  const { cursor, flags } = expected;
  const { rows } = read;
  for (const slot of slots) {
    if (typeof slot === 'number') {
      if (read.state[slot] === NOT_READ) continue;
      if (!cursor.next(toRead[slot]!.rel, rows.hashLo[slot]!, rows.hashHi[slot]!, rows.size[slot]!, isExecutableMode(rows.mode[slot]!))) return false;
      flags.push(rows.text[slot] === 1);
    } else {
      if (slot.hash === null || !cursor.next(slot.path, hashWordLE(slot.hash, 0), hashWordLE(slot.hash, 1), slot.size, slot.executable)) return false;
      flags.push(slot.text === true);
    }
  }
  return cursor.done;
}

/** The text flags of the files met while they equal the expected tree, one byte each. */
class TextFlags {
  private bytes = new Uint8Array(1024);
  length = 0;
  push(text: boolean): void {
    if (this.length === this.bytes.length) {
      const bigger = new Uint8Array(this.bytes.length * 2);
      bigger.set(this.bytes);
      this.bytes = bigger;
    }
    this.bytes[this.length++] = text ? 1 : 0;
  }
  at(i: number): boolean {
    return this.bytes[i] === 1;
  }
  view(): Uint8Array {
    return this.bytes.subarray(0, this.length);
  }
}

/** What scanTree checks the files it finds against: ScanOptions.expect's entries, still unmade. */
export interface Expected {
  cursor: ExpectedCursor;
  /** The entries as the cursor reads them, whatever happens to `expect` later. */
  expected: () => Iterable<Entry>;
  flags: TextFlags;
}

/** scanTree's check against ScanOptions.expect, when it can be made without making entries. */
export function expectedTree(opts: ScanOptions): Expected | null {
  const { expect } = opts;
  if (!(expect instanceof LazySnapshot) || !expect.lazy || expect.cursor === null) return null;
  return { cursor: expect.cursor(), expected: expect.entriesNow(), flags: new TextFlags() };
}

/** The local tree when it is exactly `expect`: its entries (with `text`) made when first read. */
export function sameAsExpected(expect: LazySnapshot, expected: () => Iterable<Entry>, text: Uint8Array): LazySnapshot {
  const local = new LazySnapshot(expect.size, function* () {
    let i = 0;
    for (const e of expected()) yield { path: e.path, hash: e.hash, size: e.size, executable: e.executable, text: text[i++] === 1 };
  });
  local.markEqual(expect);
  return local;
}

/**
 * The local tree as `expect` with the paths of `delta` changed (`text`: the flags of
 * expect's records, placeholders where the delta replaced them): entries made when first
 * read, and known to be that delta over `expect` (model/lazy-snapshot.ts withDelta).
 */
export function overDelta(expect: LazySnapshot, expected: () => Iterable<Entry>, text: Uint8Array, delta: ReadonlyMap<string, DeltaItem>): LazySnapshot {
  return withDelta(expect, delta, function* () {
    let i = 0;
    for (const e of expected()) yield { path: e.path, hash: e.hash, size: e.size, executable: e.executable, text: text[i++] === 1 };
  });
}

