import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { copyName } from '../../src/emulator/files-manage.js';
import { call, startTestEmulator, type TestEmulator } from './api-client.js';

let t: TestEmulator;
const vol = (p: string): string => path.join(t.emu.volume, p);
const put = (p: string, c: string): void => {
  mkdirSync(path.dirname(vol(p)), { recursive: true });
  writeFileSync(vol(p), c);
};
beforeAll(async () => {
  t = await startTestEmulator();
});
afterAll(() => t.close());

describe('files.delete', () => {
  it('deletes files (keeping a copy in history) and folders (gone for good), skipping missing entries', async () => {
    put('del/a.txt', 'a');
    put('del/dir/b.txt', 'b');
    const a = await call(t.emu, 'POST', '~/files/delete', { body: { root: '/del', files: ['a.txt', 'dir', 'missing.txt'] } });
    expect(a.status).toBe(200);
    expect(a.json).toEqual({ ok: true, deleted: 2 });
    expect(existsSync(vol('del/a.txt'))).toBe(false);
    expect(existsSync(vol('del/dir'))).toBe(false);
    const ha = await call(t.emu, 'GET', '~/files/history', { query: { path: 'del/a.txt' } });
    expect(ha.json.versions).toHaveLength(1);
    const hb = await call(t.emu, 'GET', '~/files/history', { query: { path: 'del/dir/b.txt' } });
    expect(hb.json.versions).toEqual([]);
  });
  it('refuses the volume root and bad bodies', async () => {
    expect((await call(t.emu, 'POST', '~/files/delete', { body: { files: ['/'] } })).status).toBe(400);
    expect((await call(t.emu, 'POST', '~/files/delete', { body: { files: 'a' } })).status).toBe(400);
    expect(existsSync(t.emu.volume)).toBe(true);
  });
});

describe('files.rename', () => {
  it('renames, creating a missing parent of the target', async () => {
    put('ren/a.txt', 'A');
    const a = await call(t.emu, 'POST', '~/files/rename', { body: { root: '/ren', from: 'a.txt', to: 'new/dir/b.txt' } });
    expect(a.status).toBe(200);
    expect(a.json).toEqual({ ok: true });
    expect(readFileSync(vol('ren/new/dir/b.txt'), 'utf8')).toBe('A');
    expect(existsSync(vol('ren/a.txt'))).toBe(false);
  });
  it('fails when the target exists (400 "destination already exists") and changes nothing', async () => {
    put('ren/x.txt', 'X');
    put('ren/y.txt', 'Y');
    const a = await call(t.emu, 'POST', '~/files/rename', { body: { from: 'ren/x.txt', to: 'ren/y.txt' } });
    expect(a.status).toBe(400);
    expect(a.json.error).toBe('destination already exists');
    expect(readFileSync(vol('ren/x.txt'), 'utf8')).toBe('X');
    expect(readFileSync(vol('ren/y.txt'), 'utf8')).toBe('Y');
  });
  it('answers 404 for a missing source', async () => {
    expect((await call(t.emu, 'POST', '~/files/rename', { body: { from: 'ren/none.txt', to: 'ren/z.txt' } })).status).toBe(404);
  });
});

describe('files.move', () => {
  it('moves into a folder (created if missing), never overwriting: a taken name goes to failed', async () => {
    put('mv/a.txt', 'new a');
    put('mv/b.txt', 'b');
    put('dest/a.txt', 'existing a');
    const a = await call(t.emu, 'POST', '~/files/move', { body: { files: ['mv/a.txt', 'mv/b.txt', 'mv/none.txt'], to: 'dest' } });
    expect(a.status).toBe(200);
    expect(a.json.ok).toBe(false);
    expect(a.json.moved).toEqual([{ from: 'mv/b.txt', to: '/dest/b.txt' }]);
    expect(a.json.failed).toEqual([
      { from: 'mv/a.txt', reason: 'destination already exists' },
      { from: 'mv/none.txt', reason: 'source not found' },
    ]);
    expect(readFileSync(vol('dest/a.txt'), 'utf8')).toBe('existing a');
    expect(readFileSync(vol('mv/a.txt'), 'utf8')).toBe('new a');
    const fresh = await call(t.emu, 'POST', '~/files/move', { body: { files: ['/mv/a.txt'], to: 'fresh/deep' } });
    expect(fresh.json).toEqual({ ok: true, moved: [{ from: '/mv/a.txt', to: '/fresh/deep/a.txt' }], failed: [] });
    const toRoot = await call(t.emu, 'POST', '~/files/move', { body: { files: ['fresh/deep/a.txt'], to: '' } });
    expect(toRoot.json.moved).toEqual([{ from: 'fresh/deep/a.txt', to: '/a.txt' }]);
  });
});

describe('files.copy', () => {
  it('duplicates in place with the " copy" suffix (then " copy 1", " copy 2")', async () => {
    put('cp/a.txt', 'A');
    for (let i = 0; i < 3; i++) expect((await call(t.emu, 'POST', '~/files/copy', { body: { location: 'cp/a.txt' } })).json).toEqual({ ok: true });
    expect(readFileSync(vol('cp/a copy.txt'), 'utf8')).toBe('A');
    expect(existsSync(vol('cp/a copy 1.txt'))).toBe(true);
    expect(existsSync(vol('cp/a copy 2.txt'))).toBe(true);
    expect((await call(t.emu, 'POST', '~/files/copy', { body: { location: 'cp' } })).status).toBe(400);
    expect((await call(t.emu, 'POST', '~/files/copy', { body: { location: 'cp/none' } })).status).toBe(404);
  });
  it('names copies like the node', () => {
    expect(copyName('a.tar.gz', () => false)).toBe('a copy.tar.gz');
    expect(copyName('Makefile', (n) => n === 'Makefile copy')).toBe('Makefile copy 1');
  });
});

describe('files.mkdir', () => {
  it('creates a folder under root', async () => {
    const a = await call(t.emu, 'POST', '~/files/folder', { body: { root: '/mk', name: 'a/b' } });
    expect(a.json).toEqual({ ok: true });
    expect(statSync(vol('mk/a/b')).isDirectory()).toBe(true);
    put('mk/file', 'f');
    expect((await call(t.emu, 'POST', '~/files/folder', { body: { root: '/mk', name: 'file' } })).status).toBe(400);
    expect((await call(t.emu, 'POST', '~/files/folder', { body: {} })).status).toBe(400);
  });
});

describe('files.chmod', () => {
  it('sets an octal mode; a bad mode is 400', async () => {
    put('ch/run.sh', '#!/bin/sh\n');
    const a = await call(t.emu, 'POST', '~/files/chmod', { body: { root: '/ch', file: 'run.sh', mode: '0755' } });
    expect(a.json).toEqual({ ok: true });
    expect(statSync(vol('ch/run.sh')).mode & 0o777).toBe(0o755);
    await call(t.emu, 'POST', '~/files/chmod', { body: { file: 'ch/run.sh', mode: '640' } });
    expect(statSync(vol('ch/run.sh')).mode & 0o777).toBe(0o640);
    for (const mode of ['999', 'rwx', '75', 755, '0o755', '07555']) {
      const bad = await call(t.emu, 'POST', '~/files/chmod', { body: { file: 'ch/run.sh', mode } });
      expect(bad.status, String(mode)).toBe(400);
    }
    expect(statSync(vol('ch/run.sh')).mode & 0o777).toBe(0o640);
    expect((await call(t.emu, 'POST', '~/files/chmod', { body: { file: 'ch/none', mode: '644' } })).status).toBe(404);
  });
});
