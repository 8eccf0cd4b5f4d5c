/**
 * Issue 47, item 5: the app's data is the app's. Paths hostsync.json "remoteOwned" names are
 * never written, deleted, reverted or moved on the deployment (decide.ts, undo-plan.ts), and
 * a whole-tree pull leaves them (remote-owned.ts leaveOwnedForPull). Pure tables.
 */
import { describe, expect, it } from 'vitest';
import { decide } from '../../src/sync/core/decide.js';
import { verify } from '../../src/sync/core/verify.js';
import { journalRecords, planUndo } from '../../src/sync/core/undo-plan.js';
import { keepLeftBase, leaveOwnedForPull, NOTHING_OWNED, ownedPaths, pullNames, remoteOwnedMatcher } from '../../src/sync/core/remote-owned.js';
import { reconcilePull } from '../../src/sync/core/pull-reconcile.js';
import type { Change, Snapshot } from '../../src/model/types.js';
import { file, show, snap } from './fixtures.js';

const owned = remoteOwnedMatcher(['data/', '*.sqlite']);
const opts = (force = false, mirror = false) => ({ force, mirror });
const run = (base: Snapshot | null, local: Snapshot, remote: Snapshot, o = opts()) =>
  decide({ base, scanned: local, skipped: [], remote: { snapshot: remote, symlinks: [] }, options: o, owned });

describe('the matcher', () => {
  it('owns files below a folder pattern and by name anywhere; nothing without patterns', () => {
    expect(['data/bot.sqlite', 'data/x/state.json', 'cache.sqlite', 'src/db/app.sqlite', 'Data/BOT.db'].map((p) => owned.owns(p))).toEqual([true, true, true, true, true]);
    expect(['bot.js', 'database.js', 'src/data.js', 'metadata/x.json'].map((p) => owned.owns(p))).toEqual([false, false, false, false]);
    expect(remoteOwnedMatcher([])).toBe(NOTHING_OWNED);
    expect(ownedPaths(NOTHING_OWNED, [snap(file('data/a', '1'))]).size).toBe(0);
  });
});

describe('decide leaves the app data alone', () => {
  // The deployment's data, the developer's different copy, and the same file in the last base.
  const base = snap(file('bot.js', 'v1'), file('data/bot.sqlite', 'seed'));
  const local = snap(file('bot.js', 'v2'), file('data/bot.sqlite', 'LOCAL'), file('local.sqlite', 'mine'));
  const remote = snap(file('bot.js', 'v1'), file('data/bot.sqlite', 'APP'), file('data/state.json', 'APP'));

  it.each([
    ['a push', opts()],
    ['--force', opts(true)],
    ['--mirror', opts(false, true)],
    ['--force --mirror', opts(true, true)],
  ])('%s writes the code only: no conflict, no drift, nothing remote-only, base entries kept', (_name, o) => {
    const d = run(base, local, remote, o);
    expect(d.rec.changes.map(show)).toEqual(['write bot.js']);
    expect(d.rec.conflicts).toEqual([]);
    expect(d.rec.drift).toEqual([]);
    expect(d.rec.remoteOnly).toEqual([]);
    expect(d.rec.remoteOwned).toEqual(['data/bot.sqlite', 'data/state.json']);
    expect(d.rec.nextBase.get('data/bot.sqlite')).toEqual(base.get('data/bot.sqlite'));
    expect(d.rec.nextBase.has('data/state.json')).toBe(false);
    expect(d.rec.nextBase.has('local.sqlite')).toBe(false);
  });

  it('a local deletion of the data deletes nothing there, even with --mirror', () => {
    const d = run(base, snap(file('bot.js', 'v1')), remote, opts(true, true));
    expect(d.rec.changes).toEqual([]);
  });

  it('without the matcher the same trees overwrite and delete the data (the guard is what keeps them)', () => {
    const d = decide({ base, scanned: local, skipped: [], remote: { snapshot: remote, symlinks: [] }, options: opts(true, true) });
    expect(d.rec.changes.map(show).sort()).toEqual(['delete data/state.json', 'write bot.js', 'write data/bot.sqlite', 'write local.sqlite (new)']);
  });

  it('the app writing its data between the push and its verifying read is no failure, conflict or drift', () => {
    const before = run(base, local, remote);
    const after = snap(file('bot.js', 'v2'), file('data/bot.sqlite', 'APP2'), file('data/state.json', 'APP2'), file('data/new.json', 'x'));
    const verifying = run(base, local, after);
    const v = verify({
      oldBase: base, intended: before.rec.changes, failures: [], vanished: new Set(), held: new Set(), sent: new Map(),
      local: verifying.local, remote: after, rec: verifying.rec, firstConflicts: before.rec.conflicts,
    });
    expect(v.failures).toEqual([]);
    expect(v.conflicts).toEqual([]);
    expect(verifying.rec.drift).toEqual([]);
    expect(v.base.get('bot.js')?.hash).toBe(file('bot.js', 'v2').hash);
    expect(v.base.get('data/bot.sqlite')).toEqual(base.get('data/bot.sqlite'));
  });
});

describe('undo leaves the app data alone', () => {
  // A push made before "remoteOwned" was set created the data file and moved one out of data/.
  const before = snap(file('bot.js', 'v1'), file('data/old.json', 'old'));
  const changes: Change[] = [
    { kind: 'write', path: 'bot.js', entry: file('bot.js', 'v2'), create: false },
    { kind: 'write', path: 'data/bot.sqlite', entry: file('data/bot.sqlite', 'pushed'), create: true },
    { kind: 'rename', from: 'data/old.json', to: 'archive/old.json', entry: file('archive/old.json', 'old') },
  ];
  const records = journalRecords(changes, before, before);

  it('an owned path the app changed since the push does not refuse the undo, and is neither deleted nor restored', () => {
    const now = snap(file('bot.js', 'v2'), file('data/bot.sqlite', 'APP'), file('archive/old.json', 'old'));
    const plan = planUndo(records, now, owned);
    expect(plan.changed).toEqual([]);
    expect(plan.restores.map((r) => r.path)).toEqual(['bot.js']);
    expect(plan.deletes).toEqual([]);
    expect(plan.renames).toEqual([]);
    expect([...plan.expected.keys()]).toEqual(['bot.js']);
    expect(plan.owned).toEqual(['archive/old.json', 'data/bot.sqlite', 'data/old.json']);
    // Without the matcher: refused, because the app wrote its data since.
    expect(planUndo(records, now).changed.map((c) => c.path)).toEqual(['data/bot.sqlite']);
  });

  it('an owned path as the push left it is not deleted either', () => {
    const now = snap(file('bot.js', 'v2'), file('data/bot.sqlite', 'pushed'), file('archive/old.json', 'old'));
    expect(planUndo(records, now, owned).deletes).toEqual([]);
    expect(planUndo(records, now).deletes).toEqual(['data/bot.sqlite']);
  });
});

describe('pull leaves the app data unless named', () => {
  const base = snap(file('bot.js', 'v1'), file('data/bot.sqlite', 'seed'));
  const local = snap(file('bot.js', 'v1'), file('data/bot.sqlite', 'seed'));
  const remote = snap(file('bot.js', 'v2'), file('data/bot.sqlite', 'APP'), file('data/state.json', 'APP'));

  it('a whole-tree pull compares none of it and keeps its base entries', () => {
    const { trees, left } = leaveOwnedForPull({ base, local, remote }, owned, null);
    expect(left).toEqual(['data/bot.sqlite', 'data/state.json']);
    const rec = reconcilePull(trees.base, trees.local, trees.remote, { force: true });
    expect(rec.fetch.map((e) => e.path)).toEqual(['bot.js']);
    keepLeftBase(rec.nextBase, base, left);
    expect(rec.nextBase.get('data/bot.sqlite')).toEqual(base.get('data/bot.sqlite'));
    expect(rec.nextBase.has('data/state.json')).toBe(false);
  });

  it('a named path at or above the data brings it; the root names nothing', () => {
    expect(pullNames('data/bot.sqlite', ['data/bot.sqlite'])).toBe(true);
    expect(pullNames('data/bot.sqlite', ['data'])).toBe(true);
    expect(pullNames('data/bot.sqlite', [''])).toBe(false);
    expect(pullNames('data/bot.sqlite', ['bot.js'])).toBe(false);
    const { trees, left } = leaveOwnedForPull({ base, local, remote }, owned, ['data/bot.sqlite']);
    expect(left).toEqual(['data/state.json']);
    expect(reconcilePull(trees.base, trees.local, trees.remote, { force: false }).fetch.map((e) => e.path)).toEqual(['bot.js', 'data/bot.sqlite']);
  });
});
