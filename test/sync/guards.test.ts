import { describe, expect, it } from 'vitest';
import { guardRemoteSymlinks, protectSkipped } from '../../src/sync/core/guards.js';
import { reconcile } from '../../src/sync/core/reconcile.js';
import { file, snap } from './fixtures.js';

const none = { force: false, mirror: false };

describe('protectSkipped: a path the scan could not read is never taken as deleted', () => {
  it.each([
    { name: 'skipped file tracked in base is not deleted', skipped: ['config.js'], mirror: false },
    { name: 'skipped file is not deleted even with mirror', skipped: ['config.js'], mirror: true },
    { name: 'unreadable folder protects everything below it', skipped: ['lib/'], mirror: true },
  ])('$name', ({ skipped, mirror }) => {
    const base = snap(file('config.js', 'c'), file('lib/a.js', 'a'), file('app.js', 'x'));
    const remote = snap(file('config.js', 'c'), file('lib/a.js', 'a'), file('app.js', 'x'), file('lib/remote-only.js', 'r'));
    const local = snap(file('app.js', 'x2'));
    const protectedLocal = protectSkipped(local, base, remote, skipped);
    const rec = reconcile(base, protectedLocal, remote, { force: false, mirror });
    const deleted = rec.changes.filter((c) => c.kind === 'delete').map((c) => c.path);
    for (const s of skipped) {
      const prefix = s.endsWith('/') ? s : null;
      for (const d of deleted) expect(prefix ? d.startsWith(prefix) : d === s).toBe(false);
    }
    expect(rec.changes.map((c) => c.kind === 'rename' ? c.to : c.path)).toContain('app.js');
  });

  it('without skipped paths the snapshot is returned as is', () => {
    const local = snap(file('a', '1'));
    expect(protectSkipped(local, null, snap(), [])).toBe(local);
  });

  it('a file the scan did not skip is still deleted normally', () => {
    const base = snap(file('gone.js', 'g'), file('link', 'l'));
    const remote = snap(file('gone.js', 'g'), file('link', 'l'));
    const rec = reconcile(base, protectSkipped(snap(), base, remote, ['link']), remote, none);
    expect(rec.changes.map((c) => `${c.kind} ${c.kind === 'rename' ? c.to : c.path}`)).toEqual(['delete gone.js']);
  });
});

describe('guardRemoteSymlinks: never write through a link on the deployment', () => {
  it.each([
    { name: 'write onto a symlinked file', links: ['cfg.txt'], path: 'cfg.txt' },
    { name: 'write below a symlinked folder', links: ['static'], path: 'static/logo.png' },
    { name: 'write deep below a symlinked folder', links: ['a/b'], path: 'a/b/c/d.txt' },
  ])('$name becomes a remote-symlink conflict and keeps its base', ({ links, path }) => {
    const base = snap();
    const local = snap(file(path, 'local'), file('ok.txt', 'fine'));
    const rec = guardRemoteSymlinks(reconcile(base, local, snap(), none), links, base);
    expect(rec.changes.map((c) => (c.kind === 'rename' ? c.to : c.path))).toEqual(['ok.txt']);
    expect(rec.conflicts.map((c) => `${c.path} ${c.reason}`)).toEqual([`${path} remote-symlink`]);
    expect(rec.nextBase.has(path)).toBe(false);
    expect(rec.nextBase.has('ok.txt')).toBe(true);
  });

  it('a sibling whose name only starts like the link is not blocked', () => {
    const rec = guardRemoteSymlinks(reconcile(snap(), snap(file('static2/a.txt', 'x')), snap(), none), ['static'], snap());
    expect(rec.conflicts).toEqual([]);
    expect(rec.changes).toHaveLength(1);
  });

  it('a rename into a symlinked folder is refused whole: its source stays', () => {
    const base = snap(file('old/a.txt', 'same'));
    const remote = snap(file('old/a.txt', 'same'));
    const local = snap(file('static/a.txt', 'same'));
    const rec = guardRemoteSymlinks(reconcile(base, local, remote, none), ['static'], base);
    expect(rec.changes).toEqual([]);
    expect(rec.conflicts.map((c) => c.reason)).toEqual(['remote-symlink']);
    expect(rec.nextBase.get('old/a.txt')).toEqual(file('old/a.txt', 'same'));
  });
});
