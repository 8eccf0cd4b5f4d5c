import { describe, expect, it } from 'vitest';
import { judgePosition, mayPushFrom, type Relation } from '../../src/sync/core/copy-position.js';
import { copyBase } from '../../src/sync/core/copy-base.js';
import { appendedText, batchText, parseRecord, snapshotText, type BatchHeader, type GitStamp } from '../../src/state/base-record.js';
import type { GitHead } from '../../src/local/git.js';
import { file, snap } from './fixtures.js';

const id = (c: string): string => c.repeat(40);
const ab = (c: string): string => c.repeat(12);
const head = (c: string, time: number, anc: string[] = [], shallow = false): GitHead => ({ head: id(c), time, anc: anc.map(ab), shallow, subject: '' });
const stamp = (c: string, time: number, anc: string[] = []): GitStamp => ({ head: id(c), clean: true, time, anc: anc.map(ab) });
const H = (git?: GitStamp): BatchHeader => ({ t: new Date().toISOString(), id: 'p1', kind: 'push', host: 'laptop', dir: 'site', v: '0.1.0', ...(git ? { git } : {}) });

describe('judgePosition (copy X against the last push Y)', () => {
  const rows: Array<[string, GitHead | null, GitStamp | undefined, Relation | null, string, boolean]> = [
    ['X = Y', head('a', 10), stamp('a', 10), null, 'same', true],
    ['X among Y\'s recorded ancestors', head('a', 10), stamp('b', 20, ['a']), null, 'behind', false],
    ['Y among X\'s ancestors (a depth-1 clone names its parent)', head('b', 20, ['a'], true), stamp('a', 10), null, 'ahead', true],
    ['git holds Y, Y before X', head('c', 30), stamp('a', 10), { hasY: true, yBeforeX: true, xBeforeY: false }, 'ahead', true],
    ['git holds Y, X before Y (further back than the recorded ancestors)', head('c', 5), stamp('a', 10), { hasY: true, yBeforeX: false, xBeforeY: true }, 'behind', false],
    ['git holds Y, neither before the other', head('c', 30), stamp('a', 10), { hasY: true, yBeforeX: false, xBeforeY: false }, 'diverged', false],
    ['Y not here, a recent common ancestor', head('c', 30, ['d']), stamp('a', 10, ['d']), { hasY: false }, 'diverged', false],
    ['Y not here, shallow, X newer: assumed ahead', head('c', 30, [], true), stamp('a', 10), { hasY: false }, 'ahead', true],
    ['Y not here, shallow, X older: unknown (refused)', head('c', 5, [], true), stamp('a', 10), { hasY: false }, 'unknown', false],
    ['Y not here, full clone: unknown (refused)', head('c', 30), stamp('a', 10), { hasY: false }, 'unknown', false],
    ['no git here: nothing to compare (not refused)', null, stamp('a', 10), null, 'unknown', true],
    ['last push without a git stamp: nothing to compare', head('a', 10), undefined, null, 'unknown', true],
  ];
  it.each(rows)('%s', (_n, x, y, rel, state, may) => {
    const p = judgePosition(x, H(y), rel);
    expect(p.state).toBe(state);
    expect(mayPushFrom(p)).toBe(may);
  });
  it('names the push it compared against', () => {
    expect(judgePosition(head('a', 10), H(stamp('b', 20, ['a'])), null).against).toMatchObject({ commit: id('b'), host: 'laptop', dir: 'site', kind: 'push' });
  });
});

describe('copyBase (a copy without a base of its own)', () => {
  const F = (p: string, c: string) => file(p, c);
  const T = (p: string, c: string) => file(p, c, { text: true });
  // The last push had app.js and lib.js from its commit, .env.production sent as a secret (no g).
  const text = snapshotText(H(stamp('a', 10)), [F('app.js', '1'), F('lib.js', '1'), F('.env.production', 's')], 'a'.repeat(32), (p) => p !== '.env.production');
  const record = parseRecord(text);
  const remote = snap(F('app.js', '1'), F('lib.js', '1'), F('.env.production', 's'));
  const at = (x: GitHead | null) => judgePosition(x, record.batches[0]!.header, null);
  const input = { record, recordPath: '.hostsync/base-x.rec', remote, own: new Set<string>(), planned: null, contact: null };

  it('a git copy lacking a file its writer had from the commit deletes it; one sent as a secret it never deletes', () => {
    const got = copyBase({ ...input, local: snap(T('app.js', '1')), position: at(head('a', 10)) });
    expect([...got.merged.base.keys()].sort()).toEqual(['app.js', 'lib.js']);
    expect(got.adopted).toBe(false);
    expect(got.newContact).toBeNull();
  });
  it('a copy without git adopts the record at first contact, less what it did not hold as recorded', () => {
    const got = copyBase({ ...input, local: snap(T('app.js', '1'), T('lib.js', 'mine')), position: at(null) });
    expect([...got.merged.base.keys()]).toEqual(['app.js']);
    expect(got.adopted).toBe(true);
    expect(got.newContact).toMatchObject({ seen: [record.batches[0]!.header.id], differing: ['.env.production', 'lib.js'] });
  });
  it('after contact, a batch another machine recorded is elsewhere, not this copy\'s base', () => {
    const contact = { record: input.recordPath, at: '', seen: [record.batches[0]!.header.id], differing: [] as string[] };
    const later = parseRecord(
      appendedText(text, 'a'.repeat(32), batchText({ ...H(stamp('b', 20)), id: 'p2' }, [{ path: 'app.js', before: { hash: F('app.js', '1').hash, size: 1, executable: false }, after: { hash: F('app.js', '2').hash, size: 1, executable: false, git: true } }]), 'b'.repeat(32)),
    );
    const got = copyBase({ ...input, record: later, remote: snap(F('app.js', '2'), F('lib.js', '1')), local: snap(T('app.js', '1'), T('lib.js', '1')), position: at(null), contact });
    expect(got.merged.base.get('app.js')!.hash).toBe(F('app.js', '1').hash);
    expect([...got.merged.elsewhere.keys()]).toEqual(['app.js']);
  });
});
