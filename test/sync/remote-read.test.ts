/** readRemote against the emulator: what a read costs, and what it never takes for the tree. */
import { symlink, utimes, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator, type RunningEmulator } from '../../src/emulator/index.js';
import { createIgnoreMatcher, DEFAULT_IGNORE_PATTERNS } from '../../src/local/ignore.js';
import { HostingClient } from '../../src/remote/client.js';
import { readRemote, readRemoteBeside, readRemoteScope } from '../../src/sync/remote-read/remote-read.js';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Entry } from '../../src/model/types.js';
import { writeTree } from '../helpers/tree.js';

let emu: RunningEmulator;
beforeAll(async () => {
  emu = await startEmulator({ indexMaxEntries: 10, rateLimit: 1_000_000, userRateLimit: 1_000_000 });
});
afterAll(async () => {
  await emu?.close();
});

const matcher = createIgnoreMatcher([...DEFAULT_IGNORE_PATTERNS, 'secret/']);

async function fresh(files: Record<string, string>) {
  const dep = await emu.createDeployment({ runtime: 'static' });
  await writeTree(dep.volume, files);
  const client = new HostingClient({ baseUrl: emu.baseUrl, apiKey: emu.apiKey, deploymentId: dep.id });
  return { dep, client };
}

describe('readRemoteBeside (the index asked while the local scan runs)', () => {
  const tree = Object.fromEntries(Array.from({ length: 30 }, (_, i) => [`d${i % 3}/f${i}.txt`, `${i}\n`]));
  /** A scan the test ends by hand: `end` with its tree, or `fail`. */
  const heldScan = () => {
    let end!: (s: Map<string, Entry>) => void;
    let fail!: (e: Error) => void;
    const done = new Promise<Map<string, Entry>>((resolve, reject) => {
      end = resolve;
      fail = reject;
    });
    return { scan: () => done, end, fail };
  };
  const untilAsked = async (client: HostingClient, n: number) => {
    while (client.stats().total < n) await sleep(5);
  };
  it('sends its first read at once; a truncated index waits for the scan, then reads as readRemote does', async () => {
    const { client } = await fresh(tree);
    try {
      const whole = await readRemote(client, matcher, null);
      client.resetStats();
      const held = heldScan();
      const beside = readRemoteBeside(client, matcher, null, held.scan, (s) => s);
      await untilAsked(client, 1);
      // The scan is still "running": the grouped reads need its tree and do not start.
      await sleep(150);
      expect(client.stats().total).toBe(1);
      held.end(new Map(Object.keys(tree).map((p) => [p, { path: p } as Entry])));
      await beside.local;
      const read = await beside.read;
      expect([...read.snapshot.keys()].sort()).toEqual([...whole.snapshot.keys()].sort());
      expect(client.stats().total).toBeGreaterThan(1);
    } finally {
      await client.close();
    }
  });
  it('a scan that fails ends it: no further read, no unhandled rejection', async () => {
    const { client } = await fresh(tree);
    try {
      const held = heldScan();
      const beside = readRemoteBeside(client, matcher, null, held.scan, (s) => s);
      await untilAsked(client, 1);
      held.fail(new Error('scan failed'));
      await expect(beside.local).rejects.toThrow('scan failed');
      await expect(beside.read).rejects.toThrow('scan failed');
      await sleep(50);
      expect(client.stats().total).toBe(1);
    } finally {
      await client.close();
    }
  });
});

describe('readRemote', () => {
  it('reads files with hashes and exec bits, drops ignored paths, lists symlinks and our leftover archives apart', async () => {
    const { dep, client } = await fresh({ 'a.txt': 'a\n', 'secret/key.txt': 'k', '.env': 'X=1', '.hostsync-upload-12-abc.tar.gz': 'junk' });
    const anHourAgo = new Date(Date.now() - 3_600_000);
    await utimes(path.join(dep.volume, '.hostsync-upload-12-abc.tar.gz'), anHourAgo, anHourAgo);
    // Young: another push may be between its upload and its decompress.
    await writeFile(path.join(dep.volume, '.hostsync-upload-13-abc.tar.gz'), 'in flight');
    await symlink('a.txt', path.join(dep.volume, 'link'));
    try {
      const r = await readRemote(client, matcher, null);
      expect([...r.snapshot.keys()]).toEqual(['a.txt']);
      expect(r.snapshot.get('a.txt')).toMatchObject({ size: 2, executable: false, hash: expect.stringMatching(/^[0-9a-f]{16}$/) });
      expect(r.symlinks).toEqual(['link']);
      expect(r.leftovers).toEqual(['.hostsync-upload-12-abc.tar.gz']);
      expect(r.fromCache).toBe(false);
    } finally {
      await client.close();
    }
  });

  it('answers an unchanged remote from the cache in one request; a changed one is read again', async () => {
    const { dep, client } = await fresh({ 'a.txt': 'a\n' });
    try {
      const first = await readRemote(client, matcher, null);
      const cache = { digest: first.digest, requestKey: first.requestKey, snapshot: first.snapshot, symlinks: first.symlinks, leftovers: first.leftovers, record: first.record };
      client.resetStats();
      const again = await readRemote(client, matcher, cache);
      expect(again.fromCache).toBe(true);
      expect(client.stats().total).toBe(1);
      expect(again.snapshot).toBe(first.snapshot);

      await writeTree(dep.volume, { 'b.txt': 'b\n' });
      const changed = await readRemote(client, matcher, cache);
      expect(changed.fromCache).toBe(false);
      expect([...changed.snapshot.keys()].sort()).toEqual(['a.txt', 'b.txt']);
    } finally {
      await client.close();
    }
  });

  it('does not use a cache made with other ignore rules', async () => {
    const { client } = await fresh({ 'a.txt': 'a\n' });
    try {
      const first = await readRemote(client, matcher, null);
      const other = await readRemote(client, createIgnoreMatcher(['*.md']), { ...first, leftovers: [] });
      expect(other.fromCache).toBe(false);
    } finally {
      await client.close();
    }
  });

  it('completes a truncated index folder by folder, never taking it for the whole tree', async () => {
    const files: Record<string, string> = {};
    for (let i = 0; i < 8; i++) files[`top${i}.txt`] = `${i}`;
    for (let d = 0; d < 3; d++) for (let i = 0; i < 12; i++) files[`d${d}/sub/f${i}.txt`] = `${d}.${i}`;
    const { client } = await fresh(files);
    try {
      const r = await readRemote(client, matcher, null);
      expect([...r.snapshot.keys()].sort()).toEqual(Object.keys(files).sort());
      expect(client.stats().byOperation['files.index']).toBeGreaterThan(1);
    } finally {
      await client.close();
    }
  });

  describe('with the tree the caller expects', () => {
    // 42 files in 6 folders: 48 entries against a cap of 10.
    const files: Record<string, string> = {};
    for (let d = 0; d < 6; d++) for (let i = 0; i < 7; i++) files[`g${d}/f${i}.txt`] = `${d}.${i}`;
    const budget = Math.ceil(Object.keys(files).length / 10) + 2;

    it('completes a truncated index in at most ceil(files / cap) + 2 reads, grouping folders', async () => {
      const { client } = await fresh(files);
      try {
        const r = await readRemote(client, matcher, null, () => Object.keys(files));
        expect([...r.snapshot.keys()].sort()).toEqual(Object.keys(files).sort());
        expect(client.stats().byOperation['files.index']).toBeLessThanOrEqual(budget);
        expect(client.stats().byOperation['files.list'] ?? 0).toBe(0);
      } finally {
        await client.close();
      }
    });

    it('still finds what the estimate did not know, and nothing it wrongly expected', async () => {
      const extra = { 'new/deep/x.txt': 'x', 'g3/more/y.txt': 'y', 'root.txt': 'r', 'g5/z.txt': 'z' };
      const { client } = await fresh({ ...files, ...extra });
      try {
        const expected = [...Object.keys(files), 'gone/a.txt', 'g2/missing.txt'];
        const r = await readRemote(client, matcher, null, () => expected);
        expect([...r.snapshot.keys()].sort()).toEqual(Object.keys({ ...files, ...extra }).sort());
        expect(r.snapshot.get('g3/more/y.txt')?.size).toBe(1);
      } finally {
        await client.close();
      }
    });

    it('completes a group that comes back truncated (a folder of more files than the cap) without re-reading the other groups', async () => {
      const flat: Record<string, string> = { ...files };
      for (let i = 0; i < 25; i++) flat[`h/flat/x${String(i).padStart(2, '0')}`] = 'x';
      const { client } = await fresh(flat);
      try {
        const r = await readRemote(client, matcher, null, () => Object.keys(flat));
        expect([...r.snapshot.keys()].sort()).toEqual(Object.keys(flat).sort());
        // The flat folder costs its own reads (a listing, then one read per missing file past the cap); no other folder is read twice.
        const stats = client.stats().byOperation;
        expect(stats['files.index']).toBeLessThanOrEqual(budget + 3 + 25 - 10);
        expect(stats['files.list']).toBeLessThanOrEqual(3); // the root, h, h/flat
      } finally {
        await client.close();
      }
    });

    /** Wraps the client's files.index: each read is held `delayMs`; counts reads and the most in flight at once. */
    function watchReads(client: HostingClient, opts: { delayMs: number; failRead?: number }) {
      const seen = { reads: 0, inFlight: 0, most: 0 };
      const index = client.files.index.bind(client.files);
      (client.files as { index: typeof index }).index = async (req) => {
        const n = ++seen.reads;
        seen.inFlight++;
        seen.most = Math.max(seen.most, seen.inFlight);
        try {
          await new Promise((r) => setTimeout(r, opts.delayMs));
          if (n === opts.failRead) throw new Error(`read ${n} failed`);
          return await index(req);
        } finally {
          seen.inFlight--;
        }
      };
      return seen;
    }

    it('has two grouped reads in flight at once, and the same tree as reading them one by one', async () => {
      const { client } = await fresh(files);
      try {
        const seen = watchReads(client, { delayMs: 30 });
        const r = await readRemote(client, matcher, null, () => Object.keys(files));
        expect(seen.reads).toBeGreaterThanOrEqual(4);
        expect(seen.most).toBe(2);
        expect([...r.snapshot.keys()].sort()).toEqual(Object.keys(files).sort());
      } finally {
        await client.close();
      }
    });

    it('starts no further grouped read once one has failed, and rejects', async () => {
      const { client } = await fresh(files);
      try {
        // Read 1 is the truncated first one; read 2 is the first group.
        const seen = watchReads(client, { delayMs: 30, failRead: 2 });
        await expect(readRemote(client, matcher, null, () => Object.keys(files))).rejects.toThrow('read 2 failed');
        await new Promise((r) => setTimeout(r, 100));
        // The first group and the one started beside it; none after the failure.
        expect(seen.reads).toBe(3);
      } finally {
        await client.close();
      }
    });

    it('re-checks paths whose scope is the root by grouped reads, not folder by folder, when given the trees it expects', async () => {
      const { client } = await fresh(files);
      try {
        const paths = ['g0/f1.txt', 'g4/f2.txt', 'g5/missing.txt'];
        const r = await readRemoteScope(client, matcher, paths, () => Object.keys(files));
        expect(r.snapshot.get('g0/f1.txt')?.size).toBe(3);
        expect(r.snapshot.get('g4/f2.txt')?.size).toBe(3);
        expect(r.snapshot.has('g5/missing.txt')).toBe(false);
        expect(client.stats().byOperation['files.index']).toBeLessThanOrEqual(budget);
        expect(client.stats().byOperation['files.list'] ?? 0).toBe(0);
        // Without the trees it expects, the same re-check lists folders.
        client.resetStats();
        await readRemoteScope(client, matcher, paths);
        expect(client.stats().byOperation['files.list']).toBeGreaterThan(0);
      } finally {
        await client.close();
      }
    });

    it('reads a folder with names that need escaping in a pattern', async () => {
      const odd: Record<string, string> = {};
      for (const name of ['[x]', 'a*b', '!bang', '#hash', 'q?', 'back\\slash', 'sp ace ']) {
        for (let i = 0; i < 6; i++) odd[`${name}/f${i}`] = name;
      }
      const { client } = await fresh(odd);
      try {
        const r = await readRemote(client, matcher, null, () => Object.keys(odd));
        expect([...r.snapshot.keys()].sort()).toEqual(Object.keys(odd).sort());
      } finally {
        await client.close();
      }
    });
  });
});
