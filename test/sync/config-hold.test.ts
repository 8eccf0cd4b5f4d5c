import { describe, expect, it } from 'vitest';
import { configFiles, holdConfigChanges } from '../../src/sync/two-way/config-hold.js';
import { reconcilePull } from '../../src/sync/core/pull-reconcile.js';
import type { Entry } from '../../src/model/types.js';
import { file, snap } from './fixtures.js';

const L = (path: string, content: string, x = false): Entry => file(path, content, { x, text: true });
const R = (path: string, content: string, x = false): Entry => file(path, content, { x });
const FILES = configFiles({ envFiles: ['.env', 'config/prod.env'], gitignore: null });

interface Row {
  name: string;
  base: Entry[];
  local: Entry[];
  remote: Entry[];
  named: string[] | null;
  force?: boolean;
  fetch: string[];
  remove: string[];
  held: string[];
  /** path -> content hash the next base holds for it (null: absent). */
  nextBase: Record<string, string | null>;
}

const rows: Row[] = [
  {
    name: 'whole tree: a changed .syncignore is held and keeps its base; app.js comes down',
    base: [R('.syncignore', 'a'), R('app.js', '1')], local: [L('.syncignore', 'a'), L('app.js', '1')], remote: [R('.syncignore', 'a\n!.env'), R('app.js', '2')],
    named: null, fetch: ['app.js'], remove: [], held: ['.syncignore'], nextBase: { '.syncignore': R('x', 'a').hash, 'app.js': R('x', '2').hash },
  },
  {
    name: 'a new remote hostsync.json is held and stays out of the base',
    base: [], local: [], remote: [R('hostsync.json', '{}')], named: null, fetch: [], remove: [], held: ['hostsync.json'], nextBase: { 'hostsync.json': null },
  },
  {
    name: 'a remote deletion of .gitignore is held',
    base: [R('.gitignore', 'x')], local: [L('.gitignore', 'x')], remote: [], named: null, fetch: [], remove: [], held: ['.gitignore'], nextBase: { '.gitignore': R('x', 'x').hash },
  },
  {
    name: 'a pull naming the file takes it',
    base: [R('.syncignore', 'a')], local: [L('.syncignore', 'a')], remote: [R('.syncignore', 'b')], named: ['.syncignore'], fetch: ['.syncignore'], remove: [], held: [], nextBase: { '.syncignore': R('x', 'b').hash },
  },
  {
    name: 'naming the folder holding it is not naming it',
    base: [R('config/prod.env', 'a')], local: [L('config/prod.env', 'a')], remote: [R('config/prod.env', 'b')], named: ['config'], fetch: [], remove: [], held: ['config/prod.env'], nextBase: { 'config/prod.env': R('x', 'a').hash },
  },
  {
    name: '--force does not take a conflicting hostsync.json either',
    base: [R('hostsync.json', 'a')], local: [L('hostsync.json', 'mine')], remote: [R('hostsync.json', 'theirs')], named: null, force: true, fetch: [], remove: [], held: ['hostsync.json'], nextBase: { 'hostsync.json': R('x', 'a').hash },
  },
  {
    name: 'a nested file of the same name is not configuration',
    base: [], local: [], remote: [R('sub/hostsync.json', '{}')], named: null, fetch: ['sub/hostsync.json'], remove: [], held: [], nextBase: { 'sub/hostsync.json': R('x', '{}').hash },
  },
];

describe('holdConfigChanges', () => {
  it.each(rows)('$name', (row) => {
    const rec = reconcilePull(snap(...row.base), snap(...row.local), snap(...row.remote), { force: row.force ?? false });
    const out = holdConfigChanges(rec, snap(...row.base), FILES, row.named);
    expect(out.rec.fetch.map((e) => e.path)).toEqual(row.fetch);
    expect(out.rec.remove).toEqual(row.remove);
    expect(out.held.map((h) => h.path)).toEqual(row.held);
    for (const [p, hash] of Object.entries(row.nextBase)) expect(out.rec.nextBase.get(p)?.hash ?? null, p).toBe(hash);
  });

  it('.gitignore is configuration unless hostsync.json turned it off', () => {
    expect(FILES.has('.gitignore')).toBe(true);
    expect(configFiles({ envFiles: ['.env'], gitignore: false }).has('.gitignore')).toBe(false);
  });
});
