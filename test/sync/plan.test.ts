import { describe, expect, it } from 'vitest';
import { ARCHIVE_MIN_FILES, MASS_DELETE_MIN_FILES, TEXT_UPLOAD_THRESHOLD_BYTES, WRITE_MANY_BATCH_BYTES } from '../../src/sync/tunables.js';
import { massDeleteGuard, planChanges } from '../../src/sync/core/plan.js';
import type { Change, Entry, Plan, Step } from '../../src/model/types.js';
import { file, MiB, sized, snap } from './fixtures.js';

// ---- builders: local entries (with text flag) and the changes reconcile would emit ----
const text = (path: string, content: string, x = false): Entry => file(path, content, { text: true, x });
const textOf = (path: string, size: number, x = false): Entry => sized(path, 'text', size, { text: true, x });
const bin = (path: string, size: number, x = false): Entry => sized(path, 'bin', size, { text: false, x });
const remoteOf = (e: Entry, x = e.executable): Entry => ({ path: e.path, hash: e.hash, size: e.size, executable: x });

const create = (e: Entry): Change => ({ kind: 'write', path: e.path, entry: e, create: true });
const overwrite = (e: Entry): Change => ({ kind: 'write', path: e.path, entry: e, create: false });
const del = (e: Entry): Change => ({ kind: 'delete', path: e.path, base: remoteOf(e) });
const chmod = (e: Entry): Change => ({ kind: 'chmod', path: e.path, executable: e.executable, entry: e });
const rename = (from: string, e: Entry): Change => ({ kind: 'rename', from, to: e.path, entry: e });

/** A step as one exact line. */
function show(s: Step): string {
  const paths = (fs: Entry[]): string => fs.map((f) => f.path).join(', ');
  switch (s.op) {
    case 'delete':
      return `delete [${s.paths.join(', ')}]`;
    case 'rename':
      return `rename ${s.from} -> ${s.to}`;
    case 'move':
      return `move [${s.files.join(', ')}] -> '${s.to}'`;
    case 'writeMany':
      return `writeMany [${paths(s.files)}] ${s.bytes}`;
    case 'upload':
      return `upload '${s.dir}' [${paths(s.files)}] ${s.bytes}`;
    case 'archive':
      return `archive [${paths(s.files)}] ${s.bytes}`;
    case 'chmod':
      return `chmod ${s.path} ${s.mode}`;
  }
}

/**
 * Invariants every plan keeps, checked independently of the planner's own bookkeeping:
 * totals add up; each delete is deleted; each write (and each rename's target) lands exactly
 * once, by a write step or by a rename/move whose source is the rename's source.
 */
function checkPlan(changes: Change[], plan: Plan): void {
  let requests = 0;
  let bytes = 0;
  let node = 0;
  const written = new Map<string, number>();
  const deleted = new Set<string>();
  const renamed = new Map<string, string>(); // to -> from
  plan.steps.forEach((s) => {
    requests += s.op === 'archive' ? 2 : 1;
    if (s.op === 'writeMany' || s.op === 'upload' || s.op === 'archive') {
      bytes += s.bytes;
      expect(s.bytes).toBe(s.files.reduce((n, f) => n + f.size, 0));
      for (const f of s.files) written.set(f.path, (written.get(f.path) ?? 0) + 1);
    }
    if (s.op === 'upload' || s.op === 'archive') node++;
    if (s.op === 'writeMany') expect(s.bytes).toBeLessThanOrEqual(WRITE_MANY_BATCH_BYTES);
    if (s.op === 'delete') for (const p of s.paths) deleted.add(p);
    if (s.op === 'rename') renamed.set(s.to, s.from);
    if (s.op === 'move') for (const f of s.files) renamed.set(`${s.to === '' ? '' : `${s.to}/`}${f.slice(f.lastIndexOf('/') + 1)}`, f);
  });
  expect({ requests: plan.requests, bytes: plan.bytes, nodeRequests: plan.nodeRequests }).toEqual({ requests, bytes, nodeRequests: node });
  for (const c of changes) {
    if (c.kind === 'delete') expect(deleted.has(c.path)).toBe(true);
    if (c.kind === 'write') expect([c.path, written.get(c.path)]).toEqual([c.path, 1]);
    if (c.kind === 'rename') {
      const byRename = renamed.get(c.to) === c.from;
      const resent = written.get(c.to) === 1 && deleted.has(c.from);
      expect([c.to, byRename !== resent]).toEqual([c.to, true]);
    }
  }
  for (const p of written.keys()) expect(deleted.has(p)).toBe(false);
}

interface Row {
  name: string;
  remote: Entry[];
  changes: Change[];
  steps: string[];
  requests: number;
}

const many = <T>(n: number, f: (i: number) => T): T[] => Array.from({ length: n }, (_, i) => f(i));
const pad = (i: number): string => String(i).padStart(2, '0');

const rows: Row[] = [
  { name: 'nothing to do', remote: [], changes: [], steps: [], requests: 0 },
  {
    name: 'order: delete, rename, writeMany, upload, chmod',
    remote: [text('old.txt', 'o'), bin('r1.bin', 5 * MiB), text('s.sh', '#!')],
    changes: [create(text('t.txt', '0123456789', true)), create(bin('assets/img.png', 300)), del(text('old.txt', 'o')), rename('r1.bin', bin('r2.bin', 5 * MiB)), chmod(text('s.sh', '#!', true))],
    steps: ['delete [old.txt]', 'rename r1.bin -> r2.bin', 'writeMany [t.txt] 10', "upload 'assets' [assets/img.png] 300", 'chmod s.sh 0755', 'chmod t.txt 0755'],
    requests: 6,
  },
  {
    name: 'all deletes in ONE step, sorted',
    remote: [text('z', '1'), text('a/b', '2'), text('m', '3')],
    changes: [del(text('z', '1')), del(text('a/b', '2')), del(text('m', '3'))],
    steps: ['delete [a/b, m, z]'],
    requests: 1,
  },
  {
    name: 'file -> directory: the delete precedes the write',
    remote: [text('a', 'x')],
    changes: [del(text('a', 'x')), create(text('a/b', 'y'))],
    steps: ['delete [a]', 'writeMany [a/b] 1'],
    requests: 2,
  },
  {
    name: 'directory -> file: the delete precedes the write',
    remote: [text('a/b', 'y')],
    changes: [create(text('a', 'x')), del(text('a/b', 'y'))],
    steps: ['delete [a/b]', 'writeMany [a] 1'],
    requests: 2,
  },
  {
    name: '3 x 2 MiB text: two writeMany batches',
    remote: [],
    changes: [create(textOf('t1', 2 * MiB)), create(textOf('t2', 2 * MiB)), create(textOf('t3', 2 * MiB))],
    steps: [`writeMany [t1, t2] ${4 * MiB}`, `writeMany [t3] ${2 * MiB}`],
    requests: 2,
  },
  {
    // In path order, first-fit needs 4 batches ([a, b, c], [d], [e], [f]).
    name: 'batches packed first-fit-decreasing: 3 batches, not 4',
    remote: [],
    changes: [...['a', 'b', 'c'].map((n) => create(textOf(n, 1 * MiB))), ...['d', 'e', 'f'].map((n) => create(textOf(n, 3 * MiB)))],
    steps: [`writeMany [a, d] ${4 * MiB}`, `writeMany [b, e] ${4 * MiB}`, `writeMany [c, f] ${4 * MiB}`],
    requests: 3,
  },
  {
    name: 'a batch fills exactly to the cap',
    remote: [],
    changes: [create(textOf('a', 3 * MiB)), create(textOf('b', 1.5 * MiB)), create(textOf('c', 1))],
    steps: [`writeMany [a, b] ${WRITE_MANY_BATCH_BYTES}`, 'writeMany [c] 1'],
    requests: 2,
  },
  {
    name: 'text at the upload threshold goes by upload; one byte under by writeMany',
    remote: [],
    changes: [create(textOf('big.txt', TEXT_UPLOAD_THRESHOLD_BYTES)), create(textOf('under.txt', TEXT_UPLOAD_THRESHOLD_BYTES - 1))],
    steps: [`writeMany [under.txt] ${TEXT_UPLOAD_THRESHOLD_BYTES - 1}`, `upload '' [big.txt] ${TEXT_UPLOAD_THRESHOLD_BYTES}`],
    requests: 2,
  },
  {
    name: 'CRLF and BOM text travel inline; invalid UTF-8 (text false) and unknown text go by upload',
    remote: [],
    changes: [
      create(text('crlf.txt', 'a\r\nb\r\n')),
      create(text('bom.txt', '\ufeffhello')),
      create({ ...file('latin1.txt', 'caf\u00e9'), size: 4, text: false }),
      create(file('unknown.dat', 'zz')),
    ],
    steps: ['writeMany [bom.txt, crlf.txt] 14', "upload '' [latin1.txt, unknown.dat] 6"],
    requests: 2,
  },
  {
    name: 'binary files: one upload per directory, unicode and spaces kept',
    remote: [],
    changes: [create(bin('my dir/b.png', 10)), create(bin('my dir/ä.png', 20)), create(bin('文件/c.bin', 30)), create(bin('root.bin', 5))],
    steps: ["upload '' [root.bin] 5", "upload 'my dir' [my dir/b.png, my dir/ä.png] 30", "upload '文件' [文件/c.bin] 30"],
    requests: 3,
  },
  {
    name: 'empty files are written (writeMany with empty content)',
    remote: [],
    changes: [create(text('pkg/__init__.py', '')), create(text('.keep', ''))],
    steps: ['writeMany [.keep, pkg/__init__.py] 0'],
    requests: 1,
  },
  // ---- modes ----
  { name: 'new executable lands 0644: chmod 0755', remote: [], changes: [create(text('run.sh', '#!', true))], steps: ['writeMany [run.sh] 2', 'chmod run.sh 0755'], requests: 2 },
  { name: 'new executable binary by upload: chmod 0755', remote: [], changes: [create(bin('bin/tool', 9, true))], steps: ["upload 'bin' [bin/tool] 9", 'chmod bin/tool 0755'], requests: 2 },
  { name: 'new regular file: no chmod', remote: [], changes: [create(text('a', 'x'))], steps: ['writeMany [a] 1'], requests: 1 },
  { name: 'overwrite keeps the remote +x: local regular needs 0644', remote: [text('a', 'old', true)], changes: [overwrite(text('a', 'new'))], steps: ['writeMany [a] 3', 'chmod a 0644'], requests: 2 },
  { name: 'overwrite keeps the remote +x: local +x needs nothing', remote: [text('a', 'old', true)], changes: [overwrite(text('a', 'new', true))], steps: ['writeMany [a] 3'], requests: 1 },
  { name: 'overwrite of a regular file with +x: chmod 0755', remote: [text('a', 'old')], changes: [overwrite(text('a', 'new', true))], steps: ['writeMany [a] 3', 'chmod a 0755'], requests: 2 },
  { name: 'exec bit only: chmod, no bytes', remote: [text('a', 'x')], changes: [chmod(text('a', 'x', true))], steps: ['chmod a 0755'], requests: 1 },
  { name: 'exec bit cleared only', remote: [text('a', 'x', true)], changes: [chmod(text('a', 'x'))], steps: ['chmod a 0644'], requests: 1 },
  {
    name: 'a rename keeps the source mode: chmod the target where local differs',
    remote: [bin('a.bin', 2 * MiB, true)],
    changes: [rename('a.bin', bin('b.bin', 2 * MiB))],
    steps: ['rename a.bin -> b.bin', 'chmod b.bin 0644'],
    requests: 2,
  },
  // ---- renames and moves ----
  {
    name: 'case-only rename alone: one rename, no bytes',
    remote: [text('Readme.md', '# hi')],
    changes: [rename('Readme.md', text('README.md', '# hi'))],
    steps: ['rename Readme.md -> README.md'],
    requests: 1,
  },
  {
    name: 'a moved folder is ONE files.move',
    remote: ['a', 'b', 'c'].map((n) => text(`src/${n}.js`, n)),
    changes: ['a', 'b', 'c'].map((n) => rename(`src/${n}.js`, text(`lib/${n}.js`, n))),
    steps: ["move [src/a.js, src/b.js, src/c.js] -> 'lib'"],
    requests: 1,
  },
  {
    name: 'moves to the root, and a lone same-name move stays a rename',
    remote: [text('a/x', 'x'), text('a/y', 'y'), text('p/q', 'q')],
    changes: [rename('a/x', text('x', 'x')), rename('a/y', text('y', 'y')), rename('p/q', text('r/q', 'q'))],
    steps: ["move [a/x, a/y] -> ''", 'rename p/q -> r/q'],
    requests: 2,
  },
  {
    name: 'small rename beside other writes: resent, since it saves a request',
    remote: [text('x', 'gone'), text('a', 'a'.repeat(100))],
    changes: [del(text('x', 'gone')), create(text('y', 'tenbytes!!')), rename('a', text('b', 'a'.repeat(100)))],
    steps: ['delete [a, x]', 'writeMany [b, y] 110'],
    requests: 2,
  },
  {
    name: '60 renamed extensions: resent as 1 delete + 1 writeMany instead of 60 renames',
    remote: many(60, (i) => text(`a/f${pad(i)}.txt`, `${pad(i)}`.repeat(50))),
    changes: many(60, (i) => rename(`a/f${pad(i)}.txt`, text(`a/f${pad(i)}.md`, `${pad(i)}`.repeat(50)))),
    steps: [`delete [${many(60, (i) => `a/f${pad(i)}.txt`).join(', ')}]`, `writeMany [${many(60, (i) => `a/f${pad(i)}.md`).join(', ')}] 6000`],
    requests: 2,
  },
  {
    name: 'a moved folder stays one move while 60 one-off renames are resent',
    remote: [...many(100, (i) => bin(`src/m${pad(i)}.bin`, 20_000)), ...many(60, (i) => text(`a/f${pad(i)}.txt`, `${pad(i)}`.repeat(50)))],
    changes: [
      ...many(100, (i) => rename(`src/m${pad(i)}.bin`, bin(`lib/m${pad(i)}.bin`, 20_000))),
      ...many(60, (i) => rename(`a/f${pad(i)}.txt`, text(`a/f${pad(i)}.md`, `${pad(i)}`.repeat(50)))),
    ],
    steps: [
      `delete [${many(60, (i) => `a/f${pad(i)}.txt`).join(', ')}]`,
      `move [${many(100, (i) => `src/m${pad(i)}.bin`).join(', ')}] -> 'lib'`,
      `writeMany [${many(60, (i) => `a/f${pad(i)}.md`).join(', ')}] 6000`,
    ],
    requests: 3,
  },
  {
    name: 'resending big renames too when that brings the set to an archive',
    remote: many(5, (i) => bin(`big/r${i}.bin`, 2 * MiB)),
    changes: [
      ...many(ARCHIVE_MIN_FILES - 5, (i) => create(bin(`d${pad(i)}/f.bin`, 100))),
      ...many(5, (i) => rename(`big/r${i}.bin`, bin(`big/s${i}.bin`, 2 * MiB))),
    ],
    steps: [
      `delete [${many(5, (i) => `big/r${i}.bin`).join(', ')}]`,
      `archive [${many(5, (i) => `big/s${i}.bin`).join(', ')}, ${many(ARCHIVE_MIN_FILES - 5, (i) => `d${pad(i)}/f.bin`).join(', ')}] ${10 * MiB + (ARCHIVE_MIN_FILES - 5) * 100}`,
    ],
    requests: 3,
  },
  {
    name: 'a small moved folder resent beside a kept big rename',
    remote: [text('gone.txt', 'g'), text('src/a.js', 'a'), text('src/b.js', 'b'), bin('data/big.bin', 2 * MiB)],
    changes: [
      del(text('gone.txt', 'g')),
      rename('src/a.js', text('lib/a.js', 'a')),
      rename('src/b.js', text('lib/b.js', 'b')),
      rename('data/big.bin', bin('data/big2.bin', 2 * MiB)),
      create(text('other.txt', 'o')),
    ],
    steps: ['delete [gone.txt, src/a.js, src/b.js]', 'rename data/big.bin -> data/big2.bin', 'writeMany [lib/a.js, lib/b.js, other.txt] 3'],
    requests: 3,
  },
  {
    name: 'big renames kept, small ones resent',
    remote: [text('gone.txt', 'g'), bin('data/big.bin', 2 * MiB), text('notes.txt', 'n')],
    changes: [del(text('gone.txt', 'g')), rename('data/big.bin', bin('data/big2.bin', 2 * MiB)), rename('notes.txt', text('notes.md', 'n')), create(text('other.txt', 'o'))],
    steps: ['delete [gone.txt, notes.txt]', 'rename data/big.bin -> data/big2.bin', 'writeMany [notes.md, other.txt] 2'],
    requests: 3,
  },
  // ---- archive ----
  {
    name: `${ARCHIVE_MIN_FILES + 10} binaries in as many directories: ONE archive, exec bits inside it`,
    remote: [],
    changes: many(ARCHIVE_MIN_FILES + 10, (i) => create(bin(`d${pad(i)}/f.bin`, 100, i % 2 === 0))),
    steps: [`archive [${many(ARCHIVE_MIN_FILES + 10, (i) => `d${pad(i)}/f.bin`).join(', ')}] ${(ARCHIVE_MIN_FILES + 10) * 100}`],
    requests: 2,
  },
  {
    name: `${ARCHIVE_MIN_FILES - 1} binaries in as many directories: below the archive minimum`,
    remote: [],
    changes: many(ARCHIVE_MIN_FILES - 1, (i) => create(bin(`d${pad(i)}/f.bin`, 100))),
    steps: many(ARCHIVE_MIN_FILES - 1, (i) => `upload 'd${pad(i)}' [d${pad(i)}/f.bin] 100`),
    requests: ARCHIVE_MIN_FILES - 1,
  },
  {
    name: `${ARCHIVE_MIN_FILES + 10} small text files: one writeMany beats an archive`,
    remote: [],
    changes: many(ARCHIVE_MIN_FILES + 10, (i) => create(text(`t${pad(i)}.txt`, 'x'))),
    steps: [`writeMany [${many(ARCHIVE_MIN_FILES + 10, (i) => `t${pad(i)}.txt`).join(', ')}] ${ARCHIVE_MIN_FILES + 10}`],
    requests: 1,
  },
  {
    name: 'writeMany batch + 2 upload dirs (3 requests) vs archive (2): archive; deletes and renames stay steps',
    remote: [text('old', 'o'), bin('big/a.bin', 3 * MiB)],
    changes: [
      ...many(ARCHIVE_MIN_FILES, (i) => create(text(`t${pad(i)}.txt`, 'x'))),
      create(bin('img/a.png', 10)),
      create(bin('fonts/b.woff', 20)),
      del(text('old', 'o')),
      rename('big/a.bin', bin('big/b.bin', 3 * MiB)),
    ],
    steps: [
      'delete [old]',
      'rename big/a.bin -> big/b.bin',
      `archive [fonts/b.woff, img/a.png, ${many(ARCHIVE_MIN_FILES, (i) => `t${pad(i)}.txt`).join(', ')}] ${ARCHIVE_MIN_FILES + 30}`,
    ],
    requests: 4,
  },
  {
    name: `${ARCHIVE_MIN_FILES + 10} chmod-only changes of small files: resent in one archive`,
    remote: many(ARCHIVE_MIN_FILES + 10, (i) => text(`s${pad(i)}.sh`, 'echo')),
    changes: many(ARCHIVE_MIN_FILES + 10, (i) => chmod(text(`s${pad(i)}.sh`, 'echo', true))),
    steps: [`archive [${many(ARCHIVE_MIN_FILES + 10, (i) => `s${pad(i)}.sh`).join(', ')}] ${(ARCHIVE_MIN_FILES + 10) * 4}`],
    requests: 2,
  },
  {
    name: 'a few chmod-only changes stay chmod steps',
    remote: [text('a', '1'), text('b', '2'), text('c', '3')],
    changes: [chmod(text('c', '3', true)), chmod(text('a', '1', true)), chmod(text('b', '2'))],
    steps: ['chmod a 0755', 'chmod b 0644', 'chmod c 0755'],
    requests: 3,
  },
  {
    name: 'archive of writes, but a chmod of a 50 MiB file is not resent for it',
    remote: [bin('huge.bin', 50 * MiB)],
    changes: [...many(ARCHIVE_MIN_FILES + 10, (i) => create(bin(`d${pad(i)}/f.bin`, 100))), chmod(bin('huge.bin', 50 * MiB, true))],
    steps: [`archive [${many(ARCHIVE_MIN_FILES + 10, (i) => `d${pad(i)}/f.bin`).join(', ')}] ${(ARCHIVE_MIN_FILES + 10) * 100}`, 'chmod huge.bin 0755'],
    requests: 3,
  },
];

describe('planChanges', () => {
  it.each(rows)('$name', ({ remote, changes, steps, requests }) => {
    const plan = planChanges(changes, snap(...remote));
    expect(plan.steps.map(show)).toEqual(steps);
    expect(plan.requests).toBe(requests);
    checkPlan(changes, plan);
  });

  it('reports bytes and node POSTs', () => {
    const plan = planChanges([create(text('a.txt', 'hello')), create(bin('img/x.png', 1000)), create(bin('img/y.png', 24))], snap());
    expect({ requests: plan.requests, bytes: plan.bytes, nodeRequests: plan.nodeRequests }).toEqual({ requests: 2, bytes: 1029, nodeRequests: 1 });
  });

  it('steps carry the local entries (the executor reads and tars them)', () => {
    const e = bin('x/tool', 7, true);
    const plan = planChanges([create(e)], snap());
    expect(plan.steps[0]).toEqual({ op: 'upload', dir: 'x', files: [e], bytes: 7 });
  });

  it('is deterministic: input order does not matter', () => {
    const remote = snap(text('old', 'o'), text('m', 'm', true), bin('big/a.bin', 3 * MiB));
    const changes: Change[] = [
      ...many(12, (i) => create(textOf(`t${pad(i)}`, (i + 1) * 300_000))),
      ...many(5, (i) => create(bin(`b${i % 2}/f${i}`, 10, i === 3))),
      del(text('old', 'o')),
      overwrite(text('m', 'new')),
      rename('big/a.bin', bin('big/b.bin', 3 * MiB)),
      chmod(text('c', 'c', true)),
    ];
    const a = planChanges(changes, remote);
    const b = planChanges([...changes].reverse(), remote);
    expect(b).toEqual(a);
    checkPlan(changes, a);
  });

  it('packs writeMany batches first-fit-decreasing (ties by path), each listing its files in path order', () => {
    // The reference packing, written plainly: sort by size (largest first, then path), put
    // each file in the first batch with room, sort each batch by path.
    const reference = (files: Entry[]): string[] => {
      const order = [...files].sort((x, y) => y.size - x.size || (x.path < y.path ? -1 : 1));
      const batches: Entry[][] = [];
      const room: number[] = [];
      for (const f of order) {
        let i = room.findIndex((left) => left >= f.size);
        if (i < 0) {
          i = batches.push([]) - 1;
          room.push(WRITE_MANY_BATCH_BYTES);
        }
        batches[i]!.push(f);
        room[i]! -= f.size;
      }
      return batches.map((b) => b.sort((x, y) => (x.path < y.path ? -1 : 1)).map((f) => f.path).join(','));
    };
    let seed = 11;
    const rand = (n: number): number => ((seed = (seed * 1103515245 + 12345) % 2147483648) % n);
    for (let round = 0; round < 30; round++) {
      // Fewer files than an archive needs, so the plan is writeMany batches; sizes repeat
      // often (ties), from a few bytes to 3 MiB.
      const files = many(1 + rand(ARCHIVE_MIN_FILES - 1), (i) => textOf(`d${rand(4)}/f${pad(i)}`, [1, 100, 1 * MiB, 2 * MiB, 3 * MiB][rand(5)]! + rand(3)));
      const shuffled = files.map((f) => create(f)).sort(() => rand(3) - 1);
      const plan = planChanges(shuffled, snap());
      expect(plan.steps.map((st) => (st.op === 'writeMany' ? st.files.map((f) => f.path).join(',') : st.op))).toEqual(reference(files));
    }
  });
});

describe('massDeleteGuard', () => {
  const deletes = (n: number): Change[] => many(n, (i) => del(text(`f${i}`, `${i}`)));
  it.each([
    // [deletes, tracked, refuse]: refused when deletes > 20 AND deletes > tracked / 2, or when they are every tracked file.
    [0, 0, false],
    [20, 30, false], // 20 is not more than 20
    [1, 1, true], // a one-file project emptied: every tracked file (issue 27, item 4)
    [5, 5, true],
    [4, 5, false],
    [20, 20, true],
    [20, 0, true], // first push with mirror: more deleted than tracked
    [21, 40, true], // 21 > 20 and 21 > 20
    [21, 41, true], // 21 > 20.5
    [21, 42, false], // 21 is not more than half of 42
    [30, 60, false],
    [31, 60, true],
    [21, 0, true], // first push with mirror deleting many remote-only files
    [100, 1000, false],
  ])('%i deletes of %i tracked: refuse %s', (n, tracked, refuse) => {
    expect(massDeleteGuard(deletes(n), tracked)).toEqual({ refuse, deletes: n, tracked });
  });

  it('counts deletes only: renames, writes and chmods are not deletions', () => {
    const changes: Change[] = [
      ...deletes(MASS_DELETE_MIN_FILES),
      ...many(30, (i) => rename(`r${i}`, text(`s${i}`, `${i}`))),
      create(text('w', 'w')),
      chmod(text('c', 'c', true)),
    ];
    expect(massDeleteGuard(changes, 40)).toEqual({ refuse: false, deletes: MASS_DELETE_MIN_FILES, tracked: 40 });
    expect(massDeleteGuard([...changes, del(text('one-more', '1'))], 40).refuse).toBe(true);
  });

  it('hostsync\'s own files that stay do not make the project non-empty (issue 44, item 14)', () => {
    // 7 tracked: 6 app files deleted, hostsync.json kept.
    expect(massDeleteGuard(deletes(6), 7, 0, 1)).toEqual({ refuse: true, deletes: 6, tracked: 7 });
    expect(massDeleteGuard(deletes(5), 7, 0, 1).refuse).toBe(false);
  });

  it("counts watch's earlier deletions of its window with this plan's, and never refuses a plan that deletes nothing", () => {
    // 200 tracked, 90 already deleted (110 left in the base): 45 more is 135 of 200.
    expect(massDeleteGuard(deletes(45), 110 + 90, 90)).toEqual({ refuse: true, deletes: 135, tracked: 200 });
    expect(massDeleteGuard(deletes(5), 110 + 90, 90).refuse).toBe(false);
    expect(massDeleteGuard([], 110 + 150, 150).refuse).toBe(false);
  });
});
