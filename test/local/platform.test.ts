import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { platformFrom } from '../../src/local/platform.js';
import { localPathOf, wireRelative } from '../../src/local/platform-paths.js';
import { windowsNameProblem } from '../../src/local/windows-names.js';
import { caseCollisions, removalsFirst } from '../../src/local/case-fold.js';
import { diskNamer, toWireSnapshot, wireName } from '../../src/local/names.js';
import type { Entry, Snapshot } from '../../src/model/types.js';

describe('platformFrom (HOSTSYNC_FS over the OS defaults)', () => {
  it.each([
    ['linux', undefined, { caseInsensitive: false, noExec: false, windowsNames: false }],
    ['darwin', undefined, { caseInsensitive: true, noExec: false, windowsNames: false }],
    ['win32', undefined, { caseInsensitive: true, noExec: true, windowsNames: true }],
    ['linux', 'case-insensitive,no-exec', { caseInsensitive: true, noExec: true, windowsNames: false }],
    ['linux', ' Windows ', { caseInsensitive: true, noExec: true, windowsNames: true }],
    ['win32', 'case-sensitive,exec,posix-names', { caseInsensitive: false, noExec: false, windowsNames: false }],
    ['darwin', 'linux,windows-names', { caseInsensitive: false, noExec: false, windowsNames: true }],
    ['linux', '', { caseInsensitive: false, noExec: false, windowsNames: false }],
  ])('%s with %s', (os, spec, want) => {
    expect(platformFrom(spec, os)).toEqual(want);
  });

  it('an unknown word is a usage error (exit 2) naming it', () => {
    expect(() => platformFrom('case-insensitve', 'linux')).toThrow(expect.objectContaining({ exitCode: 2, message: expect.stringContaining('case-insensitve') }));
  });
});

describe('wire paths from local ones: path.win32 and path.posix', () => {
  it.each([
    // flavour, root, local path, wire path (null: outside)
    ['win32', 'C:\\proj', 'C:\\proj\\src\\app.js', 'src/app.js'],
    ['win32', 'C:\\proj', 'src\\lib\\a.js', 'src/lib/a.js'],
    ['win32', 'C:\\proj', 'src/lib/a.js', 'src/lib/a.js'],
    ['win32', 'C:\\proj', 'c:\\PROJ\\x.txt', 'x.txt'],
    ['win32', 'C:\\proj', 'C:\\proj', ''],
    ['win32', 'C:\\proj', 'C:\\other\\x', null],
    ['win32', 'C:\\proj', 'D:\\proj\\x', null],
    ['win32', 'C:\\proj', '..\\x', null],
    ['win32', 'C:\\proj', '..data\\x', '..data/x'],
    ['win32', '\\\\server\\share\\proj', '\\\\server\\share\\proj\\a\\b', 'a/b'],
    ['posix', '/home/u/proj', '/home/u/proj/src/app.js', 'src/app.js'],
    ['posix', '/home/u/proj', 'src/a\\b.js', 'src/a\\b.js'],
    ['posix', '/home/u/proj', '/home/u/proj', ''],
    ['posix', '/home/u/proj', '/home/u/other', null],
    ['posix', '/home/u/proj', '../x', null],
    ['posix', '/home/u/proj', '..data/x', '..data/x'],
  ] as const)('%s: %s + %s -> %s', (flavour, root, p, want) => {
    const got = wireRelative(root, p, path[flavour]);
    expect(got).toBe(want);
    if (got !== null) expect(got).not.toMatch(flavour === 'win32' ? /\\/ : /^\//);
  });

  it.each([
    ['win32', 'C:\\proj', 'src/lib/a.js', 'C:\\proj\\src\\lib\\a.js'],
    ['win32', 'C:\\proj', '', 'C:\\proj'],
    ['posix', '/p', 'src/lib/a.js', '/p/src/lib/a.js'],
  ] as const)('%s: local path of %s + %s', (flavour, root, wire, want) => {
    expect(localPathOf(root, wire, path[flavour])).toBe(want);
  });
});

describe('names Windows cannot hold', () => {
  it.each([
    ['con', 'reserved'], ['CON.txt', 'reserved'], ['src/aux.js', 'reserved'], ['nul.tar.gz', 'reserved'], ['Prn', 'reserved'],
    ['com1', 'reserved'], ['lpt9.log', 'reserved'], ['COM\u00b9', 'reserved'],
    ['a:b.txt', '":"'], ['what?.md', '"?"'], ['x<y', '"<"'], ['pipe|d', '"|"'], ['q"uote', '"""'], ['star*', '"*"'], ['back\\slash', '"\\"'],
    ['tab\tname', 'control character'], ['dot.', 'dot'], ['dir./x', 'dot'], ['space ', 'space'],
    [`${'d/'.repeat(130)}f`, 'characters'],
  ])('%s: %s', (rel, why) => {
    expect(windowsNameProblem(rel)).toContain(why);
  });

  it.each(['console.log', 'com10', 'lpt', 'auxiliary.js', 'con-fig.json', '.env', 'a..b', 'caf\u00e9.txt', 'nul_/x'])('%s is fine', (rel) => {
    expect(windowsNameProblem(rel)).toBeNull();
  });

  it('counts the root in the path length', () => {
    expect(windowsNameProblem('a'.repeat(200), 'C:\\' + 'r'.repeat(70))).toContain('characters');
    expect(windowsNameProblem('a'.repeat(200), 'C:\\proj')).toBeNull();
  });
});

describe('case collisions', () => {
  it('names both files, and folders that differ only in case', () => {
    expect(caseCollisions(['A.txt', 'a.txt', 'b.txt'])).toEqual([['A.txt', 'a.txt']]);
    expect(caseCollisions(['Docs/a.md', 'docs/b.md'])).toEqual([['Docs', 'docs']]);
    expect(caseCollisions(['x/A.txt', 'x/a.txt', 'y/a.txt'])).toEqual([['x/A.txt', 'x/a.txt']]);
    expect(caseCollisions(['caf\u00e9', 'CAFE\u0301'])).toEqual([['CAFE\u0301', 'caf\u00e9']]);
    expect(caseCollisions(['a', 'b/a', 'a'])).toEqual([]);
  });

  it('a case-only rename removes the old name before the new one lands', () => {
    expect(removalsFirst(['Readme.md', 'gone.txt'], ['README.md', 'new.txt'])).toEqual(['Readme.md']);
    expect(removalsFirst(['gone.txt'], ['new.txt'])).toEqual([]);
  });
});

describe('NFC on the wire, the local form on disk', () => {
  const e = (p: string, extra: Partial<Entry> = {}): Entry => ({ path: p, hash: '0000000000000001', size: 1, executable: false, ...extra });
  const snap = (...entries: Entry[]): Snapshot => new Map(entries.map((x) => [x.path, x]));

  it('renames only non-ASCII names that are not NFC, keeping the disk name', () => {
    const ascii = snap(e('a.txt'), e('b/c.txt'));
    expect(toWireSnapshot(ascii)).toBe(ascii);
    const nfc = snap(e('caf\u00e9.txt'));
    expect(toWireSnapshot(nfc)).toBe(nfc);
    const wire = toWireSnapshot(snap(e('a.txt'), e('cafe\u0301/x.txt')));
    expect([...wire.keys()].sort()).toEqual(['a.txt', 'caf\u00e9/x.txt']);
    expect(wire.get('caf\u00e9/x.txt')).toEqual(e('caf\u00e9/x.txt', { local: 'cafe\u0301/x.txt' }));
  });

  it('both forms on disk (Linux can hold them) stay two files', () => {
    const wire = toWireSnapshot(snap(e('caf\u00e9.txt'), e('cafe\u0301.txt')));
    expect([...wire.keys()].sort()).toEqual(['caf\u00e9.txt', 'cafe\u0301.txt'].sort());
    expect(wire.get('cafe\u0301.txt')?.local).toBeUndefined();
  });

  it('maps wire names back to disk names, including new files under a folder the disk names in NFD', () => {
    const disk = diskNamer(toWireSnapshot(snap(e('cafe\u0301/x.txt'), e('plain.txt'))));
    expect(disk('caf\u00e9/x.txt')).toBe('cafe\u0301/x.txt');
    expect(disk('caf\u00e9/new.txt')).toBe('cafe\u0301/new.txt');
    expect(disk('plain.txt')).toBe('plain.txt');
    expect(disk('r\u00e9sum\u00e9.md')).toBe('r\u00e9sum\u00e9.md');
    expect(wireName('cafe\u0301')).toBe('caf\u00e9');
  });
});
