import { createHmac } from 'node:crypto';
import { readFile, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DIGEST_KEY_FILE, EnvDigests } from '../../src/state/env-digests.js';
import { tempDir } from '../helpers/tree.js';

let work: { dir: string; cleanup: () => Promise<void> };
/** The user's config folder: a temp dir, never the real ~/.config. */
let keys: { dir: string; cleanup: () => Promise<void> };
beforeEach(async () => {
  work = await tempDir('hostsync-digests-');
  keys = await tempDir('hostsync-digest-key-');
});
afterEach(async () => {
  await work.cleanup();
  await keys.cleanup();
});

const load = (dir = work.dir) => EnvDigests.load(dir, keys.dir);
const stored = async (dir = work.dir) => JSON.parse(await readFile(path.join(dir, 'env-digests.json'), 'utf8'));

describe('EnvDigests', () => {
  it('remembers a keyed digest, never the value, and compares after a reload', async () => {
    const d = await load();
    d.remember('TOKEN', 'hunter2-very-secret');
    await d.save();
    const text = await readFile(path.join(work.dir, 'env-digests.json'), 'utf8');
    expect(text).not.toContain('hunter2');
    const again = await load();
    expect(again.matches('TOKEN', 'hunter2-very-secret')).toBe(true);
    expect(again.matches('TOKEN', 'other')).toBe(false);
    expect(again.matches('UNKNOWN', 'x')).toBeNull();
  });

  it('the project file alone does not let a short secret be brute-forced: the key is in the user config folder (issue 28, Low)', async () => {
    const d = await load();
    d.remember('PIN', '4821');
    await d.save();
    const file = await stored();
    // The attack of the issue: every 4-digit value through an HMAC keyed by what the file holds.
    const found = [];
    for (let i = 0; i < 10_000; i++) {
      const guess = String(i).padStart(4, '0');
      if (createHmac('sha256', Buffer.from(file.salt, 'hex')).update(guess).digest('hex') === file.digests.PIN) found.push(guess);
    }
    expect(found).toEqual([]);
    // The key lives in the user's folder, readable by the user alone, and nowhere in the project.
    const key = (await readFile(path.join(keys.dir, DIGEST_KEY_FILE), 'utf8')).trim();
    expect(key).toMatch(/^[0-9a-f]{64}$/);
    expect((await stat(path.join(keys.dir, DIGEST_KEY_FILE))).mode & 0o077).toBe(0);
    expect(JSON.stringify(file)).not.toContain(key);
    // Another user (another key) cannot vouch for the value either.
    const other = await tempDir('hostsync-digest-key-b-');
    try {
      expect((await EnvDigests.load(work.dir, other.dir)).matches('PIN', '4821')).toBe(false);
    } finally {
      await other.cleanup();
    }
  });

  it('two state folders salt differently, so equal values give different digests', async () => {
    const other = await tempDir('hostsync-digests-b-');
    try {
      for (const dir of [work.dir, other.dir]) {
        const d = await load(dir);
        d.remember('K', 'same');
        await d.save();
      }
      expect((await stored()).digests.K).not.toBe((await stored(other.dir)).digests.K);
    } finally {
      await other.cleanup();
    }
  });

  it('a file from before the key still vouches for what it holds, re-keyed when compared; the rest is dropped at the save', async () => {
    const salt = Buffer.alloc(32, 7);
    const old = (v: string) => createHmac('sha256', salt).update(v).digest('hex');
    await writeFile(path.join(work.dir, 'env-digests.json'), JSON.stringify({ salt: salt.toString('hex'), digests: { A: old('a-value'), B: old('b-value') } }));
    const d = await load();
    expect(d.matches('A', 'a-value')).toBe(true);
    expect(d.matches('A', 'nope')).toBe(false);
    await d.save();
    const file = await stored();
    expect(file.version).toBe(2);
    expect(Object.keys(file.digests)).toEqual(['A']);
    expect(file.digests.A).not.toBe(old('a-value'));
    expect((await load()).matches('A', 'a-value')).toBe(true);
    expect((await load()).matches('B', 'b-value')).toBeNull();
  });

  it('forget drops a key; a corrupt file starts afresh instead of failing; a corrupt key file is exit 2 naming it', async () => {
    const d = await load();
    d.remember('K', 'v');
    d.forget('K');
    expect(d.matches('K', 'v')).toBeNull();
    await writeFile(path.join(work.dir, 'env-digests.json'), '{nope');
    expect((await load()).matches('K', 'v')).toBeNull();
    await writeFile(path.join(keys.dir, DIGEST_KEY_FILE), 'garbage\n');
    await expect(load()).rejects.toMatchObject({ exitCode: 2, message: expect.stringContaining(DIGEST_KEY_FILE) });
  });
});
