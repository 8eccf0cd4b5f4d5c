/**
 * planIndexGroups against a model of the server's walk (pre-order, names sorted, ignored
 * folders not entered, patterns matched against volume-relative paths, the first `cap`
 * entries of a truncated answer): the planned reads together return every path, each
 * read stays under the cap when the estimate is right, and the count meets the issue's
 * budget of ceil(files / cap) + 2 reads when folders are small next to the cap (as they
 * are against the service's 20,000: whole folders are packed, never split across reads).
 */
import ignore from 'ignore';
import { describe, expect, it } from 'vitest';
import { anchoredPath, planIndexGroups } from '../../src/sync/remote-read/index-groups.js';

interface IndexEntry {
  path: string;
  type: 'file' | 'directory';
}

/** The server's walk of a tree given as file paths, under `patterns`. */
function serverWalk(files: readonly string[], patterns: readonly string[]): IndexEntry[] {
  const children = new Map<string, Set<string>>();
  const isDir = new Set<string>();
  for (const f of files) {
    const parts = f.split('/');
    for (let i = 0; i < parts.length; i++) {
      const parent = parts.slice(0, i).join('/');
      const rel = parts.slice(0, i + 1).join('/');
      if (i < parts.length - 1) isDir.add(rel);
      if (!children.has(parent)) children.set(parent, new Set());
      children.get(parent)!.add(rel);
    }
  }
  const m = ignore().add([...patterns]);
  const out: IndexEntry[] = [];
  const visit = (dir: string): void => {
    for (const rel of [...(children.get(dir) ?? [])].sort()) {
      const d = isDir.has(rel);
      if (m.ignores(d ? `${rel}/` : rel)) continue;
      out.push({ path: rel, type: d ? 'directory' : 'file' });
      if (d) visit(rel);
    }
  };
  visit('');
  return out;
}

/** Files in `count` folders of `per` files, some nested, plus a few at the root. */
function tree(count: number, per: number): string[] {
  const files = ['README.md', 'package.json'];
  for (let d = 0; d < count; d++) {
    const dir = d % 3 === 0 ? `lib/m${d}` : d % 3 === 1 ? `src/deep/er/m${d}` : `m${d}`;
    for (let i = 0; i < per; i++) files.push(`${dir}/f${i}.js`);
  }
  return files;
}

/** Runs the plan against the model; the files found and the entries of each read. */
function run(actual: string[], expected: string[], cap: number) {
  const first = serverWalk(actual, []);
  if (first.length <= cap) return null;
  const plan = planIndexGroups(first.slice(0, cap), expected, cap);
  expect(plan).not.toBeNull();
  const found = new Set(first.slice(0, cap).filter((e) => e.type === 'file').map((e) => e.path));
  const sizes: number[] = [];
  for (const extra of [...plan!.groups, plan!.rest]) {
    const read = serverWalk(actual, extra);
    sizes.push(read.length);
    for (const e of read) if (e.type === 'file') found.add(e.path);
  }
  return { found, sizes, reads: 1 + sizes.length };
}

/** `count` folders, each of `subs` subfolders of `per` files. */
const nested = (count: number, subs: number, per: number): string[] =>
  Array.from({ length: count * subs * per }, (_, i) => `n${i % count}/s${Math.floor(i / count) % subs}/f${i}.js`);

describe('planIndexGroups', () => {
  it.each([
    ['many small folders', tree(60, 7), 100],
    ['folders larger than the cap, split into their subfolders', nested(3, 12, 20), 200],
    ['mixed sizes', [...tree(40, 3), ...tree(4, 40).map((f) => `big/${f}`)], 120],
  ])('covers every file within the read budget, each group under the cap: %s', (_name, files, cap) => {
    const r = run(files, files, cap)!;
    expect([...r.found].sort()).toEqual([...files].sort());
    expect(r.reads).toBeLessThanOrEqual(Math.ceil(files.length / cap) + 2);
    // Only the rest may run over (the files directly in split folders).
    for (const size of r.sizes.slice(0, -1)) expect(size).toBeLessThanOrEqual(cap);
  });

  it('takes the last group into the rest read when both fit: as few reads as the entries need (bench/two-way\'s tree, scaled down)', () => {
    // 100 folders of 10 files against a cap of 200, as 100 folders of 1,000 against the service's 20,000.
    const files = Array.from({ length: 1000 }, (_, i) => `d${String(i % 100).padStart(3, '0')}/f${i}.txt`);
    const entries = serverWalk(files, []).length;
    const r = run(files, files, 200)!;
    expect([...r.found].sort()).toEqual([...files].sort());
    expect(r.reads).toBe(Math.ceil(entries / 200));
    for (const size of r.sizes) expect(size).toBeLessThanOrEqual(200);
  });

  it('covers a folder of more direct files than the cap (its group read comes back truncated and is completed)', () => {
    const files = [...tree(3, 5), ...Array.from({ length: 300 }, (_, i) => `flat/x${i}`)];
    const r = run(files, files, 40)!;
    expect([...r.found].sort()).toEqual([...files].sort());
  });

  it('finds files the estimate did not know and ignores files it wrongly expected', () => {
    const files = tree(30, 6);
    const actual = [...files, 'new/a/b.txt', 'lib/m0/extra.js', 'zz.txt'];
    const expected = [...files.filter((f) => !f.startsWith('m2/')), 'gone/x.js', 'm5/ghost.js'];
    const r = run(actual, expected, 30)!;
    expect([...r.found].sort()).toEqual([...actual].sort());
  });

  it('escapes folder names that gitignore would read as patterns', () => {
    const names = ['[x]', 'a*b', '!bang', '#hash', 'q?', 'back\\slash', 'sp ace '];
    const files = names.flatMap((n) => Array.from({ length: 6 }, (_, i) => `${n}/f${i}`));
    const r = run(files, files, 10)!;
    expect([...r.found].sort()).toEqual([...files].sort());
    for (const n of names) expect(ignore().add(`${anchoredPath(n)}/`).ignores(`${n}/`)).toBe(true);
  });
});
