import { describe, expect, it } from 'vitest';
import { detectRenames } from '../../src/sync/core/renames.js';
import type { Change, Entry } from '../../src/model/types.js';
import { file, show, snap } from './fixtures.js';
import { LazySnapshot } from '../../src/model/lazy-snapshot.js';

const del = (e: Entry): Change => ({ kind: 'delete', path: e.path, base: e });
const create = (e: Entry): Change => ({ kind: 'write', path: e.path, entry: { ...e, text: true }, create: true });
const overwrite = (e: Entry): Change => ({ kind: 'write', path: e.path, entry: { ...e, text: true }, create: false });

interface Row {
  name: string;
  /** The remote tree the changes were computed against. */
  remote: Entry[];
  changes: Change[];
  expected: string[];
}

const rows: Row[] = [
  {
    name: 'delete + create with the same content is a rename',
    remote: [file('a.txt', 'hello')],
    changes: [del(file('a.txt', 'hello')), create(file('b.txt', 'hello'))],
    expected: ['rename a.txt -> b.txt'],
  },
  {
    name: 'case-only rename',
    remote: [file('Readme.md', '# hi')],
    changes: [del(file('Readme.md', '# hi')), create(file('README.md', '# hi'))],
    expected: ['rename Readme.md -> README.md'],
  },
  {
    name: 'move into another directory, unicode and spaces',
    remote: [file('old dir/ça va.txt', 'oui')],
    changes: [del(file('old dir/ça va.txt', 'oui')), create(file('new dir/ça va.txt', 'oui'))],
    expected: ['rename old dir/ça va.txt -> new dir/ça va.txt'],
  },
  {
    name: 'empty files are never paired (cheaper to write)',
    remote: [file('a/__init__.py', '')],
    changes: [del(file('a/__init__.py', '')), create(file('b/__init__.py', ''))],
    expected: ['delete a/__init__.py', 'write b/__init__.py (new)'],
  },
  {
    name: 'different content stays delete + write',
    remote: [file('a', 'one')],
    changes: [del(file('a', 'one')), create(file('b', 'two'))],
    expected: ['delete a', 'write b (new)'],
  },
  {
    name: 'a deleted file with an unknown hash is never a source',
    remote: [{ ...file('a', 'one'), hash: null }],
    changes: [del({ ...file('a', 'one'), hash: null }), create(file('b', 'one'))],
    expected: ['delete a', 'write b (new)'],
  },
  {
    name: 'an overwrite (create: false) is never a target',
    remote: [file('a', 'one'), file('b', 'old')],
    changes: [del(file('a', 'one')), overwrite(file('b', 'one'))],
    expected: ['delete a', 'write b'],
  },
  {
    name: 'the executable bit does not prevent a rename',
    remote: [file('run.sh', '#!/bin/sh')],
    changes: [del(file('run.sh', '#!/bin/sh')), create(file('bin/run.sh', '#!/bin/sh', { x: true }))],
    expected: ['rename run.sh -> bin/run.sh'],
  },
  {
    name: 'each source used once: the second copy is written',
    remote: [file('a', 'same')],
    changes: [del(file('a', 'same')), create(file('b', 'same')), create(file('c', 'same'))],
    expected: ['rename a -> b', 'write c (new)'],
  },
  {
    name: 'same file name preferred over lexicographic order',
    remote: [file('a/x.txt', 'same'), file('b/y.txt', 'same')],
    changes: [del(file('a/x.txt', 'same')), del(file('b/y.txt', 'same')), create(file('c/y.txt', 'same'))],
    expected: ['delete a/x.txt', 'rename b/y.txt -> c/y.txt'],
  },
  {
    name: 'same file name wins even when an earlier target would take it in a single pass',
    remote: [file('a/x', 'same'), file('b/z', 'same')],
    changes: [del(file('a/x', 'same')), del(file('b/z', 'same')), create(file('c/y', 'same')), create(file('d/x', 'same'))],
    expected: ['rename b/z -> c/y', 'rename a/x -> d/x'],
  },
  {
    name: 'same directory preferred next (in-place rename)',
    remote: [file('a/one', 'same'), file('z/two', 'same')],
    changes: [del(file('a/one', 'same')), del(file('z/two', 'same')), create(file('z/three', 'same'))],
    expected: ['delete a/one', 'rename z/two -> z/three'],
  },
  {
    name: 'otherwise the lexicographically first source',
    remote: [file('q/one', 'same'), file('p/two', 'same')],
    changes: [del(file('q/one', 'same')), del(file('p/two', 'same')), create(file('r/three', 'same'))],
    // Output sorts a rename by its target.
    expected: ['delete q/one', 'rename p/two -> r/three'],
  },
  {
    name: 'file -> directory: the file cannot be the source of a path under itself',
    remote: [file('a', 'x')],
    changes: [del(file('a', 'x')), create(file('a/b', 'x'))],
    expected: ['delete a', 'write a/b (new)'],
  },
  {
    name: 'directory -> file: the folder outlives its files, so it is no rename target',
    remote: [file('a/b', 'x')],
    changes: [create(file('a', 'x')), del(file('a/b', 'x'))],
    expected: ['write a (new)', 'delete a/b'],
  },
  {
    name: 'target under a remote file that stays (remote-only): not renamed',
    remote: [file('d', 'data'), file('src', 'x')],
    changes: [del(file('src', 'x')), create(file('d/x', 'x'))],
    expected: ['write d/x (new)', 'delete src'],
  },
  {
    name: 'target under a file the delete step removes: renamed',
    remote: [file('p', 'old file'), file('x', 'moved')],
    changes: [del(file('p', 'old file')), create(file('p/q', 'moved')), del(file('x', 'moved'))],
    expected: ['delete p', 'rename x -> p/q'],
  },
  {
    name: 'target that is a remote directory holding other files: not renamed',
    remote: [file('t/keep', 'k'), file('s', 'v')],
    changes: [del(file('s', 'v')), create(file('t', 'v'))],
    expected: ['delete s', 'write t (new)'],
  },
  {
    name: 'chmod changes pass through, sorted',
    remote: [file('b', '1'), file('a', '2')],
    changes: [{ kind: 'chmod', path: 'b', executable: true, entry: file('b', '1', { x: true, text: true }) }, del(file('a', '2'))],
    expected: ['delete a', 'chmod b +x'],
  },
];

describe('detectRenames', () => {
  it.each(rows)('$name', ({ remote, changes, expected }) => {
    expect(detectRenames(changes, snap(...remote)).map(show)).toEqual(expected);
  });

  it('a delete and a create of other content pair with nothing, and the remote tree is not read', () => {
    const entries = [file('a/x.txt', 'x'), file('b/y.txt', 'y')];
    const remote = new LazySnapshot(entries.length, () => entries);
    const out = detectRenames([del(entries[0]!), create(file('c/z.txt', 'z'))], remote);
    expect(out.map(show)).toEqual(['delete a/x.txt', 'write c/z.txt (new)']);
    expect(remote.lazy).toBe(true);
  });

  it('a rename carries the local entry of its target', () => {
    const target = create(file('b', 'hello', { x: true }));
    const out = detectRenames([del(file('a', 'hello')), target], snap(file('a', 'hello')));
    expect(out).toEqual([{ kind: 'rename', from: 'a', to: 'b', entry: (target as Extract<Change, { kind: 'write' }>).entry }]);
  });

  it('is idempotent and independent of input order', () => {
    const remote = snap(file('a/x', 'same'), file('b/z', 'same'), file('k', 'other'));
    const changes = [del(file('a/x', 'same')), del(file('b/z', 'same')), create(file('c/y', 'same')), create(file('d/x', 'same')), del(file('k', 'other'))];
    const once = detectRenames(changes, remote);
    expect(detectRenames(once, remote)).toEqual(once);
    expect(detectRenames([...changes].reverse(), remote)).toEqual(once);
  });

  it('pairs a whole moved folder file by file', () => {
    const names = Array.from({ length: 30 }, (_, i) => `f${String(i).padStart(2, '0')}.js`);
    const remote = snap(...names.map((n) => file(`src/${n}`, `body of ${n}`)));
    const changes = names.flatMap((n) => [del(file(`src/${n}`, `body of ${n}`)), create(file(`lib/${n}`, `body of ${n}`))]);
    expect(detectRenames(changes, remote).map(show)).toEqual(names.map((n) => `rename src/${n} -> lib/${n}`));
  });
});
