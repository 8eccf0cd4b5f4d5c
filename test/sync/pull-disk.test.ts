import { describe, expect, it } from 'vitest';
import { pullOnDisk } from '../../src/sync/two-way/pull-disk.js';
import { reconcilePull } from '../../src/sync/core/pull-reconcile.js';
import { platformFrom } from '../../src/local/platform.js';
import { toWireSnapshot } from '../../src/local/names.js';
import type { Entry, Snapshot } from '../../src/model/types.js';

const e = (p: string, hash = '00000000000000aa'): Entry => ({ path: p, hash, size: 3, executable: false });
const snap = (...entries: Entry[]): Snapshot => new Map(entries.map((x) => [x.path, x]));
const plan = (base: Snapshot | null, local: Snapshot, remote: Snapshot, fs: string) => {
  const wire = toWireSnapshot(local);
  return pullOnDisk(reconcilePull(base, wire, remote, { force: false }), wire, remote, platformFrom(fs, 'linux'), '/home/u/p');
};

describe('pullOnDisk', () => {
  it('a new remote A.txt against a local-only a.txt is refused on a case-insensitive system (it would overwrite it)', () => {
    expect(() => plan(null, snap(e('a.txt', '00000000000000bb')), snap(e('A.txt')), 'case-insensitive')).toThrow(
      expect.objectContaining({ exitCode: 3, message: expect.stringContaining('A.txt and a.txt') }),
    );
    expect(plan(null, snap(e('a.txt', '00000000000000bb')), snap(e('A.txt')), 'case-sensitive').fetch.map((f) => f.path)).toEqual(['A.txt']);
  });

  it('a remote case-only rename removes the old name first', () => {
    const base = snap(e('Readme.md'));
    const p = plan(base, snap(e('Readme.md')), snap(e('README.md')), 'case-insensitive');
    expect(p.removeFirst).toEqual(['Readme.md']);
    expect(p.fetch.map((f) => f.path)).toEqual(['README.md']);
    expect(plan(base, snap(e('Readme.md')), snap(e('README.md')), 'case-sensitive').removeFirst).toEqual([]);
  });

  it('a changed file lands under its NFD disk name; a new one under its folder\'s disk name', () => {
    const base = snap(e('caf\u00e9/a.txt'));
    const p = plan(base, snap(e('cafe\u0301/a.txt')), snap(e('caf\u00e9/a.txt', '00000000000000cc'), e('caf\u00e9/b.txt')), 'linux');
    expect(p.fetch.map((f) => [f.path, f.local])).toEqual([
      ['caf\u00e9/a.txt', 'cafe\u0301/a.txt'],
      ['caf\u00e9/b.txt', 'cafe\u0301/b.txt'],
    ]);
  });

  it('names Windows cannot hold are failures, only with windows-names', () => {
    const remote = snap(e('con.txt'), e('ok.txt'));
    const p = plan(null, snap(), remote, 'windows-names');
    expect(p.fetch.map((f) => f.path)).toEqual(['ok.txt']);
    expect(p.unrepresentable).toEqual([expect.objectContaining({ path: 'con.txt', permanent: true })]);
    expect(plan(null, snap(), remote, 'linux').unrepresentable).toEqual([]);
  });
});
