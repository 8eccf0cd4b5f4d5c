import { describe, expect, it } from 'vitest';
import { decide } from '../../src/sync/core/decide.js';
import { keptBitsNote } from '../../src/sync/core/platform-view.js';
import { platformFrom } from '../../src/local/platform.js';
import type { Entry, Snapshot } from '../../src/model/types.js';

const e = (p: string, executable = false, hash = '00000000000000aa'): Entry => ({ path: p, hash, size: 3, executable });
const snap = (...entries: Entry[]): Snapshot => new Map(entries.map((x) => [x.path, x]));
const run = (base: Snapshot | null, local: Snapshot, remote: Snapshot, fs?: string) =>
  decide({ base, scanned: local, skipped: [], remote: { snapshot: remote, symlinks: [] }, options: { force: false, mirror: false }, platform: platformFrom(fs, 'linux') });

describe('no-exec: the local bit is unknown and equals the deployment\'s', () => {
  it('an unchanged script keeps its bit (no chmod), as the base has it', () => {
    const base = snap(e('start.sh', true));
    expect(run(base, snap(e('start.sh', false)), base, 'no-exec').rec.changes).toEqual([]);
    expect(run(base, snap(e('start.sh', false)), base).rec.changes).toEqual([expect.objectContaining({ kind: 'chmod', executable: false })]);
  });

  it('an edited script is written with the base\'s bit', () => {
    const base = snap(e('start.sh', true));
    const [c] = run(base, snap(e('start.sh', false, '00000000000000bb')), base, 'no-exec').rec.changes;
    expect(c).toMatchObject({ kind: 'write', entry: { executable: true } });
  });

  it('on a first push, the remote\'s bit; a new file is not executable', () => {
    const remote = snap(e('start.sh', true));
    const d = run(null, snap(e('start.sh', false), e('new.sh', true, '00000000000000cc')), remote, 'no-exec');
    expect(d.rec.changes).toEqual([expect.objectContaining({ kind: 'write', path: 'new.sh', entry: expect.objectContaining({ executable: false }) })]);
    expect(d.rec.conflicts).toEqual([]);
    expect(keptBitsNote(d.local, platformFrom('no-exec', 'linux'))).toContain('1 executable file');
    expect(keptBitsNote(d.local, platformFrom(undefined, 'linux'))).toBeNull();
    const session = {};
    expect(keptBitsNote(d.local, platformFrom('no-exec', 'linux'), session)).not.toBeNull();
    expect(keptBitsNote(d.local, platformFrom('no-exec', 'linux'), session)).toBeNull();
  });
});

describe('names: an NFD local name is the NFC remote name', () => {
  it('no delete + add, and no conflict on a first push', () => {
    const remote = snap(e('caf\u00e9.txt'));
    expect(run(remote, snap(e('cafe\u0301.txt')), remote).rec.changes).toEqual([]);
    const first = run(null, snap(e('cafe\u0301.txt')), remote).rec;
    expect([first.changes, first.conflicts, first.remoteOnly]).toEqual([[], [], []]);
  });

  it('an edit goes to the NFC name, read from the NFD one', () => {
    const remote = snap(e('caf\u00e9.txt'));
    const [c] = run(remote, snap(e('cafe\u0301.txt', false, '00000000000000dd')), remote).rec.changes;
    expect(c).toMatchObject({ kind: 'write', path: 'caf\u00e9.txt', entry: { path: 'caf\u00e9.txt', local: 'cafe\u0301.txt' } });
  });
});
