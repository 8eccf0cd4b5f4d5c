/**
 * The local write edge (local/place.ts, local/confine.ts): whatever a caller hands it, a
 * write stays inside the root and never passes through a symlink (issue 28, items 1-2,
 * defence in depth behind the answer schemas and the scan); a target edited since the
 * scan is kept (item 3).
 */
import { lstat, mkdir, readFile, readdir, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { placeBytes, placeTemp, removeFile, setExecutable, tempBeside } from '../../src/local/place.js';
import { EditedMeanwhileError } from '../../src/local/recheck.js';
import { xxh64Bytes } from '../../src/local/hash.js';
import { tempDir } from '../helpers/tree.js';

let work: { dir: string; cleanup: () => Promise<void> };
let root: string;
let outside: string;

beforeEach(async () => {
  work = await tempDir('hostsync-place-');
  root = path.join(work.dir, 'proj');
  outside = path.join(work.dir, 'outside');
  await mkdir(root);
  await mkdir(outside);
  await writeFile(path.join(outside, 'x.txt'), 'mine\n');
  await symlink('../outside', path.join(root, 'lib'));
});
afterEach(async () => {
  await work.cleanup();
});

const data = Buffer.from('PWNED\n');

describe('the write edge keeps every write inside the root', () => {
  it('refuses escaping paths before touching the disk', async () => {
    for (const rel of ['../victim.txt', 'sub/../../victim.txt', '/etc/x', 'a//b', '..\\victim.txt', 'a\0b']) {
      await expect(placeBytes(root, rel, data, false), rel).rejects.toThrow(/refused to write .*hostsync writes only inside the project folder/);
    }
    expect((await readdir(work.dir)).sort()).toEqual(['outside', 'proj']);
  });

  it('never writes, chmods or removes through a symlinked folder, and leaves no temp file', async () => {
    const why = /lib is a symlink here \(-> \.\.\/outside\): hostsync never writes through links, so lib\/x\.txt was left alone/;
    await expect(placeBytes(root, 'lib/x.txt', data, false)).rejects.toThrow(why);
    await expect(placeBytes(root, 'lib/new/y.txt', data, false)).rejects.toThrow(/lib is a symlink here/);
    await expect(setExecutable(root, 'lib/x.txt', true)).rejects.toThrow(why);
    await expect(removeFile(root, 'lib/x.txt')).rejects.toThrow(why);
    const tmp = path.join(work.dir, 'staged');
    await writeFile(tmp, data);
    await expect(placeTemp(tmp, root, 'lib/x.txt', false)).rejects.toThrow(why);
    expect(await readFile(path.join(outside, 'x.txt'), 'utf8')).toBe('mine\n');
    expect((await lstat(path.join(outside, 'x.txt'))).mode & 0o111).toBe(0);
    expect(await readdir(outside)).toEqual(['x.txt']);
  });

  it('replaces a symlink that is the target itself (the rename replaces the link) and never chmods through one', async () => {
    await symlink('../outside/x.txt', path.join(root, 'f.txt'));
    await expect(setExecutable(root, 'f.txt', true)).rejects.toThrow(/not a regular file here/);
    await placeBytes(root, 'f.txt', data, false);
    expect(await readFile(path.join(outside, 'x.txt'), 'utf8')).toBe('mine\n');
    expect((await lstat(path.join(root, 'f.txt'))).isFile()).toBe(true);
  });

  it('makes missing folders one by one and writes inside them', async () => {
    await placeBytes(root, 'a/b/c.txt', data, true);
    expect(await readFile(path.join(root, 'a/b/c.txt'), 'utf8')).toBe('PWNED\n');
    expect((await lstat(path.join(root, 'a/b/c.txt'))).mode & 0o100).toBe(0o100);
  });
});

describe('a target re-checked right before the rename', () => {
  it('keeps a file that differs from what the scan saw; takes one that does not', async () => {
    const abs = path.join(root, 'f.txt');
    await writeFile(abs, 'scanned\n');
    const scanned = { path: 'f.txt', hash: await xxh64Bytes(Buffer.from('scanned\n')), size: 8, executable: false };
    await writeFile(abs, 'EDITED!\n'); // same size, other bytes
    await expect(placeBytes(root, 'f.txt', data, false, { rel: 'f.txt', entry: scanned })).rejects.toBeInstanceOf(EditedMeanwhileError);
    expect(await readFile(abs, 'utf8')).toBe('EDITED!\n');
    await expect(placeBytes(root, 'new.txt', data, false, { rel: 'new.txt', entry: undefined })).resolves.toBeUndefined();
    await writeFile(path.join(root, 'appeared.txt'), 'mine\n');
    await expect(placeBytes(root, 'appeared.txt', data, false, { rel: 'appeared.txt', entry: undefined })).rejects.toBeInstanceOf(EditedMeanwhileError);
    await writeFile(abs, 'scanned\n');
    await placeBytes(root, 'f.txt', data, false, { rel: 'f.txt', entry: scanned });
    expect(await readFile(abs, 'utf8')).toBe('PWNED\n');
    // No temp file left by the refusals.
    expect((await readdir(root)).filter((n) => n.includes('.hostsync-'))).toEqual([]);
    expect(tempBeside(abs)).toMatch(/\/\.f\.txt\.hostsync-[0-9a-f]{8}\.tmp$/);
  });
});
