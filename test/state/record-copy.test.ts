import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { RecordCopyStore, type RecordCopyMeta } from '../../src/state/record-copy.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'hostsync-record-copy-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const TEXT = '@hostsync-record 1\nnaïve/ファイル.txt 12\n@tail 7f3a\n';
const metaOf = (text: string, over: Partial<RecordCopyMeta> = {}): RecordCopyMeta => ({ path: '.hostsync-record', hash: 'h', size: Buffer.byteLength(text), tail: '7f3a', own: [], ...over });

describe('RecordCopyStore.text', () => {
  it('gives back the saved text, non-ASCII paths and a leading BOM included', async () => {
    const store = new RecordCopyStore(dir);
    for (const text of [TEXT, `\uFEFF${TEXT}`]) {
      await store.save(metaOf(text), text);
      expect(await store.text(metaOf(text))).toBe(text);
    }
  });

  it('is null when the size in bytes, the tail or the file differ from the meta', async () => {
    const store = new RecordCopyStore(dir);
    await store.save(metaOf(TEXT), TEXT);
    // The same number of characters, more bytes: sizes are counted in bytes.
    expect(await store.text(metaOf(TEXT, { size: TEXT.length }))).toBeNull();
    expect(await store.text(metaOf(TEXT, { tail: '0000' }))).toBeNull();
    await rm(path.join(dir, 'record.txt'));
    expect(await store.text(metaOf(TEXT))).toBeNull();
  });

  it('is null for bytes that are not UTF-8, even at the right size and tail', async () => {
    const store = new RecordCopyStore(dir);
    const bytes = Buffer.concat([Buffer.from('@hostsync-record 1\n'), Buffer.from([0xff, 0xfe, 0x41]), Buffer.from('\n@tail 7f3a\n')]);
    await store.save(metaOf(TEXT), TEXT);
    await writeFile(path.join(dir, 'record.txt'), bytes);
    expect(await store.text({ ...metaOf(TEXT), size: bytes.length })).toBeNull();
  });
});
