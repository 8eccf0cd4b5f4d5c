import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { appendedText, batchText, parseRecord, snapshotText, type BatchHeader } from '../../src/state/base-record.js';
import { commitBatch, parsedRecord, readRecord, type RecordRead } from '../../src/sync/record/remote-record.js';
import { replayRecord } from '../../src/sync/core/record-merge.js';
import { RecordCopyStore } from '../../src/state/record-copy.js';
import { READ_MANY_BUDGET_BYTES, RECORD_COMPACT_MIN_BYTES, RECORD_KEEP_PUSHES } from '../../src/sync/tunables.js';
import { ApiError } from '../../src/remote/errors.js';
import type { Entry } from '../../src/model/types.js';
import { file } from './fixtures.js';

const H = (id: string): BatchHeader => ({ t: '2026-01-01T00:00:00.000Z', id, kind: 'push', host: 'h', dir: 'd', v: '0' });
const rec = (e: Entry) => ({ hash: e.hash, size: e.size, executable: e.executable });
const dirs: string[] = [];
afterEach(async () => {
  for (const d of dirs.splice(0)) await rm(d, { recursive: true, force: true });
});

/** A session whose files.edit applies the edit to `remote.text` as the API does (exact, unique), or answers 409. */
async function fakeSession(remote: { text: string }) {
  const stateDir = await mkdtemp(path.join(tmpdir(), 'hostsync-record-'));
  dirs.push(stateDir);
  const edits: Array<{ oldString: string; newString: string }> = [];
  const client = {
    files: {
      edit: async (_p: string, oldString: string, newString: string) => {
        edits.push({ oldString, newString });
        const n = remote.text.split(oldString).length - 1;
        if (n !== 1) throw new ApiError('snippet', { operation: 'files.edit', status: 409, serverMessage: 'not found', retryable: false, code: 'snippet_not_found', host: undefined, retryAfterMs: undefined });
        remote.text = remote.text.replace(oldString, () => newString);
        return { ok: true };
      },
      write: async (_p: string, content: string) => {
        remote.text = content;
        return { ok: true };
      },
    },
  };
  return { session: { client, stateDir, config: { root: '/x/site' } } as never, edits, stateDir };
}

describe('commitBatch', () => {
  it('appends by replacing the tail; a moved tail (another machine recorded) is a lost compare-and-swap, nothing changed', async () => {
    const remote = { text: snapshotText(H('s'), [file('a', '1')], 'a'.repeat(32)) };
    const { session, edits, stateDir } = await fakeSession(remote);
    const read: RecordRead = { path: '.hostsync/base-x.rec', text: remote.text, record: null, own: [], current: true, requests: 0, warning: null };
    const ok = await commitBatch(session, read, 'push', [{ path: 'a', before: rec(file('a', '1')), after: rec(file('a', '2')) }], () => []);
    expect(ok.ok).toBe(true);
    expect(edits[0]!.oldString).toBe(`@tail ${'a'.repeat(32)}\n`);
    expect(parseRecord(remote.text).batches.map((b) => b.header.id)).toEqual(['s', ok.id]);
    // The local copy is what the deployment now holds.
    const meta = await new RecordCopyStore(stateDir).meta();
    expect(await new RecordCopyStore(stateDir).text(meta!)).toBe(remote.text);
    expect(meta!.own).toEqual([ok.id]);
    // The same (now stale) read again: its tail is gone.
    const before = remote.text;
    const lost = await commitBatch(session, read, 'push', [{ path: 'a', before: rec(file('a', '1')), after: rec(file('a', '3')) }], () => []);
    expect(lost.ok).toBe(false);
    expect(remote.text).toBe(before);
  });

  it("a watch's cycles commit from the copy without parsing it again: each read's record is the text's, made once", async () => {
    const remote = { text: snapshotText(H('s'), [file('a', '1'), file('b/\u65e5.js', '2')], 'a'.repeat(32)) };
    const { session, stateDir } = await fakeSession(remote);
    const store = new RecordCopyStore(stateDir);
    const copyRead = async (): Promise<RecordRead> => {
      const meta = await store.meta();
      return { path: '.hostsync/base-x.rec', text: meta === null ? remote.text : await store.text(meta), record: null, own: meta?.own ?? [], current: true, requests: 0, warning: null };
    };
    for (const v of ['2', '3', '4']) {
      const read = await copyRead();
      const ok = await commitBatch(session, read, 'watch', [{ path: 'a', before: null, after: rec(file('a', v)) }], () => []);
      expect(ok.ok).toBe(true);
      const [next, again] = [await copyRead(), await copyRead()];
      expect(next.text).toBe(remote.text);
      expect(parsedRecord(next)).toEqual(parseRecord(remote.text));
      expect(parsedRecord(again)).toBe(parsedRecord(next));
    }
  });

  it('compacts once the batches older than the kept 50 pushes outgrow the snapshot: one snapshot of them, the newest 50 kept, the same replay', async () => {
    let text = snapshotText(H('s'), [file('a', '0')], 'a'.repeat(32));
    let tail = 'a'.repeat(32);
    let n = 0;
    const sizes: number[] = [];
    const older = (): number => sizes.slice(0, Math.max(0, sizes.length - RECORD_KEEP_PUSHES)).reduce((a, b) => a + b, 0);
    while (older() < RECORD_COMPACT_MIN_BYTES + 1000) {
      const next = String(n).padStart(32, '0');
      const paths = [
        { path: 'a', before: rec(file('a', String(n))), after: rec(file('a', String(n + 1))) },
        { path: `f/${n}`, before: null, after: n % 3 === 0 ? null : rec(file(`f/${n}`, 'x')) },
      ];
      const b = batchText(H(`b${n}`), paths);
      sizes.push(Buffer.byteLength(b));
      text = appendedText(text, tail, b, next);
      tail = next;
      n++;
    }
    const remote = { text };
    const { session, edits } = await fakeSession(remote);
    const read: RecordRead = { path: '.hostsync/base-x.rec', text, record: null, own: [], current: true, requests: 0, warning: null };
    const ok = await commitBatch(session, read, 'push', [{ path: 'z', before: null, after: rec(file('z', 'z')) }], () => []);
    expect(ok.ok).toBe(true);
    expect(edits[0]!.oldString).toBe(text);
    const compacted = parseRecord(remote.text);
    expect(compacted.batches[0]!.snapshot).toBe(true);
    expect(compacted.batches.slice(1).map((b) => b.header.id)).toEqual([...Array.from({ length: RECORD_KEEP_PUSHES }, (_, i) => `b${n - RECORD_KEEP_PUSHES + i}`), ok.id]);
    expect(Buffer.byteLength(remote.text)).toBeLessThan(Buffer.byteLength(text) / 2);
    // Against a remote where every write landed, both records give the same base (a path
    // recorded as deleted is simply not in the snapshot).
    const uncompacted = parseRecord(appendedText(text, tail, batchText(H('z'), [{ path: 'z', before: null, after: rec(file('z', 'z')) }]), 'f'.repeat(32)));
    const landed = new Map<string, Entry>();
    for (const [p, r] of replayRecord(uncompacted, new Map())) if (r.after) landed.set(p, r.after);
    const want = replayRecord(uncompacted, landed);
    const got = replayRecord(compacted, landed);
    const bases = (m: typeof want) => new Map([...m].filter(([, r]) => r.base !== null).map(([p, r]) => [p, [r.state, r.base!.hash]]));
    expect(bases(got)).toEqual(bases(want));
    expect(bases(got).size).toBeGreaterThan(100);
  });
});

describe('compaction keeps 50 pushes', () => {
  it('50 large pushes over a small snapshot do not compact on every push: only the bytes older than the kept pushes count', async () => {
    let text = snapshotText(H('s'), [file('a', '0')], 'a'.repeat(32));
    let tail = 'a'.repeat(32);
    // Each push names 60 paths (~2.5 KB): 50 of them outweigh the snapshot and the minimum alike.
    for (let n = 0; n < RECORD_KEEP_PUSHES; n++) {
      const next = String(n).padStart(32, '0');
      const paths = Array.from({ length: 60 }, (_, i) => ({ path: `big/${n}/${String(i).padStart(3, '0')}`, before: null, after: rec(file(`big/${n}/${i}`, 'x')) }));
      text = appendedText(text, tail, batchText(H(`b${n}`), paths), next);
      tail = next;
    }
    expect(Buffer.byteLength(text)).toBeGreaterThan(RECORD_COMPACT_MIN_BYTES);
    const remote = { text };
    const { session, edits } = await fakeSession(remote);
    const read: RecordRead = { path: '.hostsync/base-x.rec', text, record: null, own: [], current: true, requests: 0, warning: null };
    const ok = await commitBatch(session, read, 'push', [{ path: 'z', before: null, after: rec(file('z', 'z')) }], () => []);
    expect(ok.ok).toBe(true);
    // An append (the tail line), not a rewrite of the whole text.
    expect(edits[0]!.oldString).toBe(`@tail ${tail}\n`);
    expect(parseRecord(remote.text).batches).toHaveLength(RECORD_KEEP_PUSHES + 2);
  });
});

describe('readRecord', () => {
  it('a record past readMany\'s budget is downloaded, also where no state folder exists yet (a fresh clone\'s first status)', async () => {
    let text = snapshotText(H('s'), [file('a', '1')], 'a'.repeat(32));
    for (let n = 0; Buffer.byteLength(text) <= READ_MANY_BUDGET_BYTES; n++) {
      text = appendedText(text, 'a'.repeat(32), batchText(H(`b${n}`), [{ path: `f/${n}`, before: null, after: rec(file(`f/${n}`, 'x')) }]), 'a'.repeat(32));
    }
    const parent = await mkdtemp(path.join(tmpdir(), 'hostsync-record-'));
    dirs.push(parent);
    const stateDir = path.join(parent, '.hostsync', 'dep_x');
    const downloads: string[] = [];
    const client = {
      files: {
        readMany: async () => {
          throw new Error('a record past the budget is not read inline');
        },
        download: async (from: string, to: string) => {
          downloads.push(from);
          await writeFile(to, text);
        },
      },
    };
    const listed = { path: '.hostsync/base-x.rec', hash: 'f'.repeat(16), size: Buffer.byteLength(text), executable: false, text: true } as Entry;
    const read = await readRecord({ client, stateDir } as never, { record: listed });
    expect(downloads).toEqual(['.hostsync/base-x.rec']);
    expect(read).toMatchObject({ path: '.hostsync/base-x.rec', text, warning: null, requests: 1 });
    expect(read.record?.batches.length).toBeGreaterThan(1);
    // The download's temp folder is gone again.
    expect(existsSync(stateDir)).toBe(true);
    expect(await readdir(stateDir)).toEqual([]);
  });
});
