import { describe, expect, it } from 'vitest';
import {
  appendedRecord,
  appendedText,
  batchText,
  copyFolderIn,
  diffBases,
  parseRecord,
  RecordFormatError,
  snapshotText,
  type BatchHeader,
} from '../../src/state/base-record.js';
import { file, snap } from '../sync/fixtures.js';
import { LazySnapshot } from '../../src/model/lazy-snapshot.js';

const H = (id: string, kind: BatchHeader['kind'] = 'push'): BatchHeader => ({ t: '2026-01-01T00:00:00.000Z', id, kind, host: 'laptop', dir: 'site', v: '0.1.0' });
const NONCE1 = 'a'.repeat(32);
const NONCE2 = 'b'.repeat(32);

describe('base record format', () => {
  const base = snap(file('a.txt', '1'), file('dir/b.js', '2', { x: true }), file('dir/c\tweird%\nname', '3'), file('dir/d.js', '4'));
  const text = snapshotText(H('s1', 'snapshot'), base.values(), NONCE1);

  it('round-trips a snapshot: paths (escaped, front-coded), hashes, sizes, exec bits', () => {
    const r = parseRecord(text);
    expect(r.tail).toBe(NONCE1);
    expect(r.batches).toHaveLength(1);
    expect(r.batches[0]!.snapshot).toBe(true);
    expect(r.batches[0]!.paths.map((p) => p.path)).toEqual([...base.keys()].sort());
    for (const p of r.batches[0]!.paths) {
      const e = base.get(p.path)!;
      expect(p.after).toEqual({ hash: e.hash, size: e.size, executable: e.executable });
    }
    expect(r.snapshotBytes).toBe(Buffer.byteLength(text) - `@tail ${NONCE1}\n`.length);
    expect(r.totalBytes).toBe(Buffer.byteLength(text));
    // Front coding: dir/d.js shares "dir/" with the path before it.
    expect(text).toContain('\n4\td.js\t');
  });

  it('counts bytes, not characters, in a record with non-ASCII paths (what compaction is decided by)', () => {
    const wide = snapshotText(H('s1', 'snapshot'), snap(file('caf\u00e9.txt', '1'), file('dir/\u65e5\u672c.js', '2')).values(), NONCE1);
    const r = parseRecord(wide);
    expect(r.batches[0]!.paths.map((p) => p.path)).toEqual(['caf\u00e9.txt', 'dir/\u65e5\u672c.js']);
    expect(r.totalBytes).toBe(Buffer.byteLength(wide));
    expect(r.snapshotBytes).toBe(Buffer.byteLength(wide) - `@tail ${NONCE1}\n`.length);
  });

  it('appends a batch by replacing the tail line, as files.edit does', () => {
    const batch = batchText(H('p1'), diffBases(base, snap(file('a.txt', '9'), file('dir/b.js', '2', { x: true }), file('dir/d.js', '4'), file('new', 'n'))));
    const next = appendedText(text, NONCE1, batch, NONCE2);
    expect(next).toBe(text.replace(`@tail ${NONCE1}\n`, `${batch}@tail ${NONCE2}\n`));
    const r = parseRecord(next);
    expect(r.tail).toBe(NONCE2);
    expect(r.batches.map((b) => b.header.id)).toEqual(['s1', 'p1']);
    const byPath = Object.fromEntries(r.batches[1]!.paths.map((p) => [p.path, p]));
    expect(Object.keys(byPath).sort()).toEqual(['a.txt', 'dir/c\tweird%\nname', 'new']);
    expect(byPath['a.txt']!.before).toEqual({ hash: file('a', '1').hash, size: 1, executable: false });
    expect(byPath['dir/c\tweird%\nname']!.after).toBeNull();
    expect(byPath['new']!.before).toBeNull();
  });

  it('a batch appended to a parsed record is what parsing the appended text gives, non-ASCII paths and all', () => {
    const wide = snapshotText(H('s1', 'snapshot'), snap(file('caf\u00e9.txt', '1'), file('dir/b.js', '2')).values(), NONCE1);
    let record = parseRecord(wide);
    let current = wide;
    const tails = [NONCE2, NONCE1];
    for (const [i, after] of [snap(file('caf\u00e9.txt', '9'), file('dir/\u65e5\u672c.js', '2')), snap(file('z', 'z'))].entries()) {
      const batch = batchText(H(`p${i}`), diffBases(base, after));
      const next = appendedText(current, record.tail, batch, tails[i]!);
      record = appendedRecord(record, batch, tails[i]!);
      expect(record).toEqual(parseRecord(next));
      current = next;
    }
    expect(() => appendedRecord(record, batchText(H('s2', 'snapshot'), [], true), NONCE2)).toThrow(/never a snapshot/);
  });

  it('hashless entries (too big to hash) keep their size', () => {
    const t = snapshotText(H('s'), [{ path: 'big', hash: null, size: 5_000_000, executable: false }], NONCE1);
    expect(parseRecord(t).batches[0]!.paths[0]!.after).toEqual({ hash: null, size: 5_000_000, executable: false });
  });

  const damaged: Array<[string, string]> = [
    ['empty', ''],
    ['foreign version', text.replace('hostsync base record 1', 'hostsync base record 2')],
    ['not a record', 'hello\n'],
    ['truncated mid-line', text.slice(0, text.length - 10)],
    ['truncated before the tail', text.slice(0, text.indexOf('@tail'))],
    ['a bad entry', text.replace(/\t[0-9a-f]{16}:1\n/, '\tzz:1\n')],
    ['paths out of order', snapshotText(H('s'), [], NONCE1).replace('@tail', '0\tb\t-\n0\ta\t-\n@tail')],
    ['text after the tail', `${text}0\tz\t-\n`],
    ['an entry before any header', `hostsync base record 1\n0\ta\t-\n@tail ${NONCE1}\n`],
    ['a header that is not JSON', `hostsync base record 1\nS {nope\n@tail ${NONCE1}\n`],
    ['a shared prefix longer than the previous path', text.replace('\n4\td.js', '\n40\td.js')],
  ];
  it.each(damaged)('refuses a damaged record: %s', (_name, bad) => {
    expect(() => parseRecord(bad)).toThrow(RecordFormatError);
  });

  it('diffBases: a next base known equal to the base (a no-op) is no batch, and neither tree is made', () => {
    const entries = [...snap(file('a', '1'), file('b/c', '2')).values()];
    const base = new LazySnapshot(entries.length, () => entries);
    const next = base.copy();
    expect(diffBases(base, next)).toEqual([]);
    expect(base.lazy && next.lazy).toBe(true);
  });

  it('diffBases: a null before records every path as added', () => {
    expect(diffBases(null, snap(file('a', '1'))).map((p) => [p.path, p.before])).toEqual([['a', null]]);
  });
});

describe('diffBases on a no-op', () => {
  it('a next base known equal to the base (a no-op push or status) is no batch, and makes no entry of either', async () => {
    const { LazySnapshot } = await import('../../src/model/lazy-snapshot.js');
    const entries = [file('a.txt', 'a'), file('b/c.txt', 'c')];
    const base = new LazySnapshot(entries.length, () => entries);
    const next = base.copy();
    expect(diffBases(base, next)).toEqual([]);
    expect(base.lazy).toBe(true);
    expect(next.lazy).toBe(true);
    // A real difference is still found.
    const changed = base.copy();
    changed.set('a.txt', file('a.txt', 'A'));
    expect(diffBases(base, changed).map((p) => p.path)).toEqual(['a.txt']);
  });
});

describe("a push's undo copy in its batch header (issue 48)", () => {
  const start = snapshotText(H('s1', 'snapshot'), snap(file('a.bin', '1')).values(), NONCE1);
  const withHeader = (header: Record<string, unknown>) => appendedText(start, NONCE1, `B ${JSON.stringify(header)}\n0\ta.bin\t-\t-\n`, NONCE2);
  const folder = `.hostsync/backups/${'0f'.repeat(16)}`;

  it('is read back as written; a header without it (an older writer) reads as before', () => {
    const r = parseRecord(appendedText(start, NONCE1, batchText({ ...H('p1'), copy: folder }, [{ path: 'a.bin', before: null, after: null }]), NONCE2));
    expect(r.batches[1]!.header.copy).toBe(folder);
    expect(parseRecord(withHeader(H('p1') as unknown as Record<string, unknown>)).batches[1]!.header).not.toHaveProperty('copy');
  });

  it('a copy that is not a string is a damaged record; one outside .hostsync/backups/ is kept but never followed', () => {
    expect(() => parseRecord(withHeader({ ...H('p1'), copy: 7 }))).toThrow(RecordFormatError);
    for (const bad of ['../etc', '/etc', '.hostsync/backups/../base', '.hostsync/backups', `.hostsync/backups/${'0f'.repeat(16)}/x`, 'public/uploads', `.hostsync/backups/${'0F'.repeat(16)}`]) {
      const h = parseRecord(withHeader({ ...H('p1'), copy: bad })).batches[1]!.header;
      expect(h.copy).toBe(bad);
      expect(copyFolderIn(h), bad).toBeNull();
    }
    expect(copyFolderIn({ copy: folder })).toBe(folder);
    expect(copyFolderIn({})).toBeNull();
  });
});
