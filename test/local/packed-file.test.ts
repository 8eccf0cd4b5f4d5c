import { describe, expect, it } from 'vitest';
import { PackedReader, PackedWriter } from '../../src/local/packed-file.js';

async function roundTrip(paths: string[]): Promise<string[]> {
  const w = new PackedWriter();
  for (const p of paths) {
    w.path(p);
    w.u8(1);
  }
  const r = await PackedReader.open(await w.finish('TEST', 1), 'TEST', 1);
  const out: string[] = [];
  while (!r!.done) {
    out.push(r!.path());
    expect(r!.u8()).toBe(1);
  }
  return out;
}

describe('packed paths', () => {
  it('front-coded paths read back exactly: ASCII, non-ASCII, surrogate pairs, and ASCII again after them', async () => {
    const paths = [
      'a',
      'a/b.txt',
      'a/b/c.txt',
      'caf\u00e9/menu.txt',
      'caf\u00e9/z.txt',
      'cafe/x.txt',
      'd/\u{1f600}.txt',
      'd/\u{1f600}x.txt',
      'd/plain.txt',
      `${'deep/'.repeat(80)}file.txt`,
      `${'deep/'.repeat(80)}file2.txt`,
      'e',
    ];
    expect(await roundTrip(paths)).toEqual(paths);
  });

  it('pathIs compares the next path in place (ASCII or not) and takePath moves on; path() reads on after it', async () => {
    const paths = ['a/b.txt', 'a/b/c.txt', 'caf\u00e9/x', 'caf\u00e9/y', 'd/\u{1f600}.txt', 'e/plain', 'e/plain2'];
    const w = new PackedWriter();
    for (const p of paths) {
      w.path(p);
      w.u8(7);
    }
    const r = (await PackedReader.open(await w.finish('TEST', 1), 'TEST', 1))!;
    for (const [i, p] of paths.entries()) {
      if (i % 2 === 1) {
        expect(r.path()).toBe(p);
      } else {
        for (const other of ['', 'a', `${p}x`, p.slice(0, -1), `${p.slice(0, -1)}?`, 'zzz']) expect(r.pathIs(other), other).toBe(false);
        expect(r.pathIs(p)).toBe(true);
        expect(r.pathIs(p)).toBe(true); // nothing consumed
        r.takePath(p);
      }
      expect(r.u8()).toBe(7);
    }
    expect(r.done).toBe(true);
  });

  it('numbers and strings read back as written (u64 modulo 2^64, UTF-8 strings)', async () => {
    const w = new PackedWriter();
    const big = (1n << 64n) - 5n;
    w.u64(big);
    w.u64(-1n);
    w.u64(1_763_000_000_123_456_789n);
    w.f64(1234.5);
    w.u32(0xfffffffe);
    w.str('plain');
    w.str('caf\u00e9 \u{1f600}');
    w.str('');
    w.hash('00ff10a0b0c0d0e0');
    const r = (await PackedReader.open(await w.finish('TEST', 1), 'TEST', 1))!;
    expect([r.u64(), r.u64(), r.u64(), r.f64(), r.u32()]).toEqual([big, (1n << 64n) - 1n, 1_763_000_000_123_456_789n, 1234.5, 0xfffffffe]);
    expect([r.str(), r.str(), r.str(), r.hash()]).toEqual(['plain', 'caf\u00e9 \u{1f600}', '', '00ff10a0b0c0d0e0']);
    expect(r.done).toBe(true);
  });

  it('reads in place at any offset give what the reads in order gave, in a buffer that starts inside a larger one', async () => {
    const w = new PackedWriter();
    w.u8(7); // every later field at an odd offset
    w.u64((1n << 64n) - 5n);
    w.f64(-0.25);
    w.u32(0xfffffffe);
    w.path('dir/file.txt');
    const file = await w.finish('TEST', 1);
    const inside = Buffer.concat([Buffer.from('junk!'), file]).subarray(5); // byteOffset 5 into its ArrayBuffer
    const r = (await PackedReader.open(inside, 'TEST', 1))!;
    expect(r.u8()).toBe(7);
    const at = r.offset;
    expect([r.u64At(at), r.f64At(at + 8), r.u32At(at + 16), r.u16At(at + 20)]).toEqual([(1n << 64n) - 5n, -0.25, 0xfffffffe, 0]);
    r.skip(20);
    expect(r.pathBytes()).toBe(6 + 'dir/file.txt'.length);
    expect([r.pathIs('dir/file.txt'), r.pathIs('dir/file.txu')]).toEqual([true, false]);
  });

  it('pathStartsWith looks at the next path in place, across the shared prefix, ASCII or not', async () => {
    const w = new PackedWriter();
    for (const p of ['src/a/one.js', 'src/a/two.js', 'src/caf\u00e9/x.js', 'src/cab']) w.path(p);
    const r = (await PackedReader.open(await w.finish('TEST', 1), 'TEST', 1))!;
    const starts = (...prefixes: string[]): boolean[] => prefixes.map((p) => r.pathStartsWith(p));
    expect(starts('src/', 'src/a/', 'src/a/one.js', 'src/b/', 'src/a/one.jsx', 'lib/')).toEqual([true, true, true, false, false, false]);
    r.path();
    // 'src/a/two.js' is stored as 'two.js' after a 6-unit shared prefix.
    expect(starts('src/a/', 'src/a/t', 'src/ab', 'src/a/one', 'src/a/two.js/')).toEqual([true, true, false, false, false]);
    r.path();
    expect(starts('src/caf\u00e9/', 'src/caf\u00e9', 'src/cafe/', 'src/caf\u00e9/x.js', 'src/caf\u00e9/y')).toEqual([true, true, false, true, false]);
    r.path();
    expect(starts('src/cab', 'src/cab/', 'src/ca')).toEqual([true, false, true]);
    r.path();
    expect(starts('', 'src/')).toEqual([false, false]); // at the end
  });

  it('a copy reads on from the same place, independently', async () => {
    const w = new PackedWriter();
    for (const p of ['x/a', 'x/b', 'x/\u00e9', 'x/f']) w.path(p);
    const r = (await PackedReader.open(await w.finish('TEST', 1), 'TEST', 1))!;
    expect(r.path()).toBe('x/a');
    const c = r.copy();
    expect([r.path(), r.path(), r.path()]).toEqual(['x/b', 'x/\u00e9', 'x/f']);
    expect([c.path(), c.path(), c.path()]).toEqual(['x/b', 'x/\u00e9', 'x/f']);
  });
});
