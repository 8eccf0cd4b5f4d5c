import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { EnvDigests } from '../../src/state/env-digests.js';
import { tempDir } from '../helpers/tree.js';

let work: { dir: string; cleanup: () => Promise<void> };
beforeEach(async () => {
  work = await tempDir('hostsync-digests-');
});
afterEach(async () => {
  await work.cleanup();
});

describe('EnvDigests', () => {
  it('remembers a salted digest, never the value, and compares after a reload', async () => {
    const d = await EnvDigests.load(work.dir);
    d.remember('TOKEN', 'hunter2-very-secret');
    await d.save();
    const text = await readFile(path.join(work.dir, 'env-digests.json'), 'utf8');
    expect(text).not.toContain('hunter2');
    const again = await EnvDigests.load(work.dir);
    expect(again.matches('TOKEN', 'hunter2-very-secret')).toBe(true);
    expect(again.matches('TOKEN', 'other')).toBe(false);
    expect(again.matches('UNKNOWN', 'x')).toBeNull();
  });

  it('two state folders salt differently, so equal values give different digests', async () => {
    const other = await tempDir('hostsync-digests-b-');
    try {
      for (const dir of [work.dir, other.dir]) {
        const d = await EnvDigests.load(dir);
        d.remember('K', 'same');
        await d.save();
      }
      const a = JSON.parse(await readFile(path.join(work.dir, 'env-digests.json'), 'utf8'));
      const b = JSON.parse(await readFile(path.join(other.dir, 'env-digests.json'), 'utf8'));
      expect(a.digests.K).not.toBe(b.digests.K);
    } finally {
      await other.cleanup();
    }
  });

  it('forget drops a key; a corrupt file starts afresh instead of failing', async () => {
    const d = await EnvDigests.load(work.dir);
    d.remember('K', 'v');
    d.forget('K');
    expect(d.matches('K', 'v')).toBeNull();
    const { writeFile } = await import('node:fs/promises');
    await writeFile(path.join(work.dir, 'env-digests.json'), '{nope');
    expect((await EnvDigests.load(work.dir)).matches('K', 'v')).toBeNull();
  });
});
