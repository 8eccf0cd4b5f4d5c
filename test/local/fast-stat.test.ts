import fs from 'node:fs';
import { mkdir, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { fastStatInUse, fstatOf, kindOfMode, lstatOf } from '../../src/local/fast-stat.js';
import { fileStatOf } from '../../src/local/filestat.js';
import { tempDir } from '../helpers/tree.js';
import { mkfifoSync } from './mkfifo.js';

/** What a stat function answers: its value, or the code it threw. */
function outcome<T>(f: () => T): T | string {
  try {
    return f();
  } catch (err) {
    return `throws ${(err as NodeJS.ErrnoException).code}`;
  }
}

describe('fast-stat answers as the public fs functions do', () => {
  let root: string;
  let cleanup: () => Promise<void>;
  beforeEach(async () => {
    ({ dir: root, cleanup } = await tempDir());
    await writeFile(path.join(root, 'file.txt'), 'hello\n');
    await fs.promises.chmod(path.join(root, 'file.txt'), 0o755);
    await mkdir(path.join(root, 'dir'));
    await symlink('file.txt', path.join(root, 'link'));
    await symlink('nowhere', path.join(root, 'dangling'));
    mkfifoSync(path.join(root, 'fifo'));
  });
  afterEach(async () => cleanup());

  it('lstatOf: every field, never following a link; undefined or the same error when there is nothing', () => {
    for (const name of ['file.txt', 'dir', 'link', 'dangling', 'fifo', 'absent', 'file.txt/below']) {
      const abs = path.join(root, name);
      const want = outcome(() => {
        const st = fs.lstatSync(abs, { throwIfNoEntry: false });
        return st === undefined ? undefined : fileStatOf(st);
      });
      expect(outcome(() => lstatOf(abs)), name).toEqual(want);
    }
  });

  it('is in use on Node 20 on Linux (what CI runs), and only there', () => {
    expect(fastStatInUse).toBe(process.versions.node.startsWith('20.') && process.platform === 'linux');
  });

  it('kindOfMode says what the Stats methods say', () => {
    const kinds = { 'file.txt': 'file', dir: 'dir', link: 'symlink', dangling: 'symlink', fifo: 'fifo' } as const;
    for (const [name, kind] of Object.entries(kinds)) expect(kindOfMode(lstatOf(path.join(root, name))!.mode), name).toBe(kind);
    expect(kindOfMode(lstatOf('/dev/null')!.mode)).toBe('device');
  });

  it('fstatOf: every field of the open file, equal to lstatOf of its path', () => {
    const abs = path.join(root, 'file.txt');
    const fd = fs.openSync(abs, 'r');
    try {
      expect(fstatOf(fd)).toEqual(fileStatOf(fs.fstatSync(fd)));
      expect(fstatOf(fd)).toEqual(lstatOf(abs));
    } finally {
      fs.closeSync(fd);
    }
  });
});
