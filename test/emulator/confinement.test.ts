/**
 * Every path is confined to the volume: `../` and symlinks leading out answer 404
 * and nothing outside is read or written.
 */
import { existsSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Volume } from '../../src/emulator/volume.js';
import { call, startTestEmulator, type TestEmulator } from './api-client.js';

let t: TestEmulator;
let outside: string;
const SECRET = 'top secret outside the volume';
const vol = (p: string): string => path.join(t.emu.volume, p);

function outsideSnapshot(): string {
  const list = (d: string): string[] =>
    readdirSync(d).flatMap((n) => {
      const p = path.join(d, n);
      const st = lstatSync(p);
      return st.isDirectory() ? [`${p}/`, ...list(p)] : [`${p}:${st.size}:${(st.mode & 0o7777).toString(8)}:${readFileSync(p, 'utf8')}`];
    });
  return list(outside).join('\n');
}

beforeAll(async () => {
  t = await startTestEmulator();
  outside = mkdtempSync(path.join(os.tmpdir(), 'hostsync-emu-outside-'));
  writeFileSync(path.join(outside, 'secret.txt'), SECRET, { mode: 0o600 });
  mkdirSync(path.join(outside, 'dir'));
  symlinkSync(outside, vol('out')); // directory link leading out
  symlinkSync(path.join(outside, 'secret.txt'), vol('secret-link')); // file link leading out
  symlinkSync(path.join(outside, 'not-yet.txt'), vol('dangling')); // dangling link leading out
  mkdirSync(vol('a/b'), { recursive: true });
  symlinkSync('../../..', vol('a/b/up')); // relative link climbing out
  symlinkSync('../out', vol('a/chain')); // link to a link leading out
  symlinkSync('b', vol('a/inside')); // stays inside: allowed
  writeFileSync(vol('a/b/ok.txt'), 'inside');
});
afterAll(async () => {
  await t.close();
  rmSync(outside, { recursive: true, force: true });
});

const escapes = ['../secret.txt', '/../../etc/passwd', 'a/../../x', 'out/secret.txt', 'secret-link', 'dangling', 'a/b/up/etc/passwd', 'a/chain/secret.txt'];

describe('path confinement', () => {
  it('reads nothing outside: read, readMany, list, tree, index, history, downloadUrl', async () => {
    for (const p of escapes) {
      const r = await call(t.emu, 'GET', '~/files/content', { query: { path: p } });
      expect(r.status, p).toBe(404);
      expect(JSON.stringify(r.json)).not.toContain(SECRET);
      expect((await call(t.emu, 'GET', '~/files/download-url', { query: { path: p } })).status, p).toBe(404);
      expect((await call(t.emu, 'GET', '~/files/history', { query: { path: p } })).status, p).toBe(404);
    }
    const many = await call(t.emu, 'POST', '~/files/read-many', { body: { paths: escapes } });
    expect(many.status).toBe(200);
    expect(many.json.files.every((f: any) => f.content === null)).toBe(true);
    expect(JSON.stringify(many.json)).not.toContain(SECRET);
    for (const p of ['out', 'a/chain', '..', 'a/b/up']) {
      expect((await call(t.emu, 'GET', '~/files', { query: { path: p } })).status, p).toBe(404);
      expect((await call(t.emu, 'GET', '~/files/tree', { query: { path: p } })).status, p).toBe(404);
    }
    expect((await call(t.emu, 'POST', '~/files/index', { body: { path: '../' } })).status).toBe(404);
    expect((await call(t.emu, 'POST', '~/files/index', { body: { path: 'out/dir' } })).status).toBe(404);
    // Indexing the link itself lists the link, never what it points at.
    const idx = await call(t.emu, 'POST', '~/files/index', { body: {} });
    expect(idx.json.entries.find((e: any) => e.path === 'out')).toMatchObject({ type: 'symlink', hash: null });
    expect(idx.json.entries.some((e: any) => e.path.startsWith('out/'))).toBe(false);
  });

  it('writes nothing outside: write, writeMany, edit, mkdir, chmod, copy, rename, move, delete, restore, uploadUrl, compress, decompress', async () => {
    const before = outsideSnapshot();
    for (const p of escapes) {
      expect((await call(t.emu, 'POST', '~/files/content', { body: { path: p, content: 'PWNED' } })).status, p).toBe(404);
      expect((await call(t.emu, 'POST', '~/files/content', { body: { path: p, content: 'PWNED', mode: 'append' } })).status, p).toBe(404);
      const wm = await call(t.emu, 'POST', '~/files/writeMany', { body: { files: [{ path: p, content: 'PWNED' }] } });
      expect(wm.json.ok, p).toBe(false);
      expect(wm.json.written).toEqual([]);
      expect((await call(t.emu, 'POST', '~/files/edit', { body: { path: p, oldString: 'top', newString: 'PWNED' } })).status, p).toBe(404);
      expect((await call(t.emu, 'POST', '~/files/chmod', { body: { file: p, mode: '777' } })).status, p).toBe(404);
      expect((await call(t.emu, 'POST', '~/files/copy', { body: { location: p } })).status, p).toBe(404);
      expect((await call(t.emu, 'POST', '~/files/restore', { body: { path: p, versionId: 'v1' } })).status, p).toBe(404);
    }
    for (const p of ['out/newdir', 'a/chain/x', '../newdir']) {
      expect((await call(t.emu, 'POST', '~/files/folder', { body: { name: p } })).status, p).toBe(404);
      expect((await call(t.emu, 'POST', '~/files/upload-url', { body: { path: p } })).status, p).toBe(404);
    }
    expect((await call(t.emu, 'POST', '~/files/folder', { body: { root: '../', name: 'x' } })).status).toBe(404);
    expect((await call(t.emu, 'POST', '~/files/rename', { body: { from: 'out/secret.txt', to: 'stolen.txt' } })).status).toBe(404);
    expect((await call(t.emu, 'POST', '~/files/rename', { body: { from: 'a/b/ok.txt', to: 'out/planted.txt' } })).status).toBe(404);
    expect((await call(t.emu, 'POST', '~/files/rename', { body: { root: '..', from: 'x', to: 'y' } })).status).toBe(404);
    expect((await call(t.emu, 'POST', '~/files/move', { body: { files: ['a/b/ok.txt'], to: 'out' } })).status).toBe(404);
    expect((await call(t.emu, 'POST', '~/files/move', { body: { files: ['out/secret.txt', 'a/b/ok.txt'], to: 'a' } })).status).toBe(404);
    expect(existsSync(vol('a/b/ok.txt'))).toBe(true); // the whole move was refused, nothing touched
    expect((await call(t.emu, 'POST', '~/files/delete', { body: { files: ['out/secret.txt'] } })).status).toBe(404);
    expect((await call(t.emu, 'POST', '~/files/delete', { body: { files: ['a/b/ok.txt', '../x'] } })).status).toBe(404);
    expect(existsSync(vol('a/b/ok.txt'))).toBe(true);
    expect((await call(t.emu, 'POST', '~/files/compress', { body: { files: ['out/secret.txt'] } })).status).toBe(404);
    expect((await call(t.emu, 'POST', '~/files/compress', { body: { root: 'out', files: ['secret.txt'] } })).status).toBe(404);
    expect((await call(t.emu, 'POST', '~/files/decompress', { body: { file: 'out/x.zip' } })).status).toBe(404);
    expect(outsideSnapshot()).toBe(before);
    expect(existsSync(path.join(outside, 'not-yet.txt'))).toBe(false);
    expect(statSync(path.join(outside, 'secret.txt')).mode & 0o777).toBe(0o600);
  });

  it('deletes a link leading out as a link, leaving its target alone', async () => {
    const a = await call(t.emu, 'POST', '~/files/delete', { body: { files: ['secret-link'] } });
    expect(a.json).toEqual({ ok: true, deleted: 1 });
    expect(existsSync(vol('secret-link'))).toBe(false);
    expect(readFileSync(path.join(outside, 'secret.txt'), 'utf8')).toBe(SECRET);
  });

  it('follows links that stay inside', async () => {
    const r = await call(t.emu, 'GET', '~/files/content', { query: { path: 'a/inside/ok.txt' } });
    expect(r.json.content).toBe('inside');
    const w = await call(t.emu, 'POST', '~/files/content', { body: { path: 'a/inside/new.txt', content: 'via link' } });
    expect(w.status).toBe(200);
    expect(readFileSync(vol('a/b/new.txt'), 'utf8')).toBe('via link');
  });
});

describe('Volume.resolve', () => {
  it('normalises inside paths and refuses climbing above the root', () => {
    const v = Volume.open(mkdtempSync(path.join(os.tmpdir(), 'hostsync-emu-vol-')));
    try {
      expect(v.normalize('/a/./b/../c')).toBe('a/c');
      expect(v.normalize('a', '/base')).toBe('base/a');
      expect(v.normalize('')).toBe('');
      expect(() => v.normalize('..')).toThrow();
      expect(() => v.normalize('../x', 'a/..')).toThrow();
      expect(() => v.normalize('a\0b')).toThrow();
      expect(v.resolve('x/y/z').abs).toBe(path.join(v.root, 'x/y/z'));
      mkdirSync(path.join(v.root, 'loop'));
      symlinkSync('l2', path.join(v.root, 'loop/l1'));
      symlinkSync('l1', path.join(v.root, 'loop/l2'));
      expect(() => v.resolve('loop/l1/x')).toThrow(); // a symlink loop never resolves
    } finally {
      rmSync(v.root, { recursive: true, force: true });
    }
  });
});
