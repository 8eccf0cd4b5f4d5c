import { describe, expect, it } from 'vitest';
import { StatRows } from '../../src/local/stat-rows.js';

const stat = (k: number) => ({ mtimeMs: 1_700_000_000_123.456 + k, ctimeMs: 1_700_000_000_987.654 + k, size: 10 * k, ino: 2 ** 40 + k, mode: 0o100755 });

describe('StatRows', () => {
  it('grows to hold any row set, keeping every row exactly (times with their fractions, large inodes, u32 words)', () => {
    const rows = new StatRows(2);
    for (const k of [0, 1, 5, 300]) rows.set(k, stat(k), 0xffffffff - k, k, k % 2 === 0, 1_700_000_001_000.5 + k);
    expect(rows.length).toBe(301);
    for (const k of [0, 1, 5, 300]) {
      expect(rows.stat(k)).toEqual(stat(k));
      expect([rows.hashLo[k], rows.hashHi[k], rows.text[k], rows.recordedMs[k]]).toEqual([0xffffffff - k, k, k % 2 === 0 ? 1 : 0, 1_700_000_001_000.5 + k]);
    }
  });

  it('copies a row from another table, growing as needed', () => {
    const from = new StatRows(1);
    from.set(3, stat(3), 7, 8, true, 42);
    const to = new StatRows(1);
    to.copy(9, from, 3);
    expect(to.length).toBe(10);
    expect(to.stat(9)).toEqual(stat(3));
    expect([to.hashLo[9], to.hashHi[9], to.text[9], to.recordedMs[9]]).toEqual([7, 8, 1, 42]);
  });
});
