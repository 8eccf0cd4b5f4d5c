/** Issue #12 "Also: messages" and the pure parts of its fixes. */
import { describe, expect, it } from 'vitest';
import { decide, massDeleteVerdict } from '../../src/sync/core/decide.js';
import { verify } from '../../src/sync/core/verify.js';
import { renderPush } from '../../src/cli/render.js';
import { emptyPushResult } from '../../src/app/push.js';
import { file, snap } from './fixtures.js';

describe('mass-delete guard counts what it deletes', () => {
  it('a --mirror push deleting 100 remote-only files over 1 tracked file reports 100 of 101, never "100 of 1"', () => {
    const base = snap(file('app.js', 'a'));
    const remote = snap(file('app.js', 'a'), ...Array.from({ length: 100 }, (_, i) => file(`up/${i}.txt`, `${i}`)));
    const d = decide({ base, scanned: base, skipped: [], remote: { snapshot: remote, symlinks: [] }, options: { force: false, mirror: true } });
    const v = massDeleteVerdict(d, base, remote);
    expect(v).toEqual({ refuse: true, deletes: 100, tracked: 101 });
  });
});

describe('push counts', () => {
  it('a rename counts as moved whichever requests carried it', () => {
    const base = snap(file('old.js', 'same'));
    const local = snap(file('new.js', 'same'));
    const after = snap(file('new.js', 'same'));
    const before = decide({ base, scanned: local, skipped: [], remote: { snapshot: base, symlinks: [] }, options: { force: false, mirror: false } });
    const verifying = decide({ base, scanned: local, skipped: [], remote: { snapshot: after, symlinks: [] }, options: { force: false, mirror: false } });
    expect(before.rec.changes.map((c) => c.kind)).toEqual(['rename']);
    const v = verify({
      oldBase: base, intended: before.rec.changes, failures: [], vanished: new Set(), held: new Set(), sent: new Map(),
      local: verifying.local, remote: after, rec: verifying.rec, firstConflicts: [],
    });
    expect(v.counts).toEqual({ written: 0, deleted: 0, moved: 1, chmod: 0 });
  });
});

describe('push text', () => {
  it('does not say "Up to date" above a list of conflicts', () => {
    const text = renderPush({ ...emptyPushResult(), conflicts: [{ path: 'a.js', reason: 'both-modified' }] });
    expect(text).not.toMatch(/Up to date/);
    expect(text).toMatch(/Nothing pushed .*1 conflict/);
  });
});
