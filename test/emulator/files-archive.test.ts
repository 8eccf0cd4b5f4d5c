import { lstatSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, symlinkSync, utimesSync, writeFileSync, chmodSync, existsSync, renameSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import * as tar from 'tar';
import yazl from 'yazl';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, startTestEmulator, type TestEmulator } from './api-client.js';
import { xxh64Bytes } from '../../src/emulator/hash.js';

let t: TestEmulator;
let outside: string;
const vol = (p: string): string => path.join(t.emu.volume, p);
const put = (p: string, c: string | Buffer): void => {
  mkdirSync(path.dirname(vol(p)), { recursive: true });
  writeFileSync(vol(p), c);
};
beforeAll(async () => {
  t = await startTestEmulator();
  outside = mkdtempSync(path.join(os.tmpdir(), 'hostsync-emu-outside-'));
});
afterAll(async () => {
  await t.close();
  rmSync(outside, { recursive: true, force: true });
});

const MTIME = new Date('2021-03-04T05:06:07Z');

/** A zip built with yazl; names given as [placeholder, real] are patched in after (yazl refuses unsafe names). */
function buildZip(entries: Array<{ name: string; data?: string; mode?: number; dir?: boolean; realName?: string }>): Promise<Buffer> {
  return new Promise((resolve) => {
    const z = new yazl.ZipFile();
    for (const e of entries) {
      if (e.dir) z.addEmptyDirectory(e.name, { mtime: MTIME });
      else z.addBuffer(Buffer.from(e.data ?? ''), e.name, { mtime: MTIME, mode: e.mode ?? 0o100644 });
    }
    const chunks: Buffer[] = [];
    z.outputStream.on('data', (c: Buffer) => chunks.push(c));
    z.outputStream.on('end', () => {
      let buf = Buffer.concat(chunks);
      for (const e of entries) {
        if (!e.realName) continue;
        expect(e.realName.length).toBe(e.name.length);
        const from = Buffer.from(e.name);
        const to = Buffer.from(e.realName);
        let at = buf.indexOf(from);
        while (at >= 0) {
          to.copy(buf, at);
          at = buf.indexOf(from, at + 1);
        }
      }
      resolve(buf);
    });
    z.end();
  });
}

describe('files.compress', () => {
  it('writes archive-<time>.tar.gz in root holding the named files', async () => {
    put('arc/a.txt', 'A');
    put('arc/sub/b.txt', 'B');
    const a = await call(t.emu, 'POST', '~/files/compress', { body: { root: '/arc', files: ['a.txt', 'sub'] } });
    expect(a.status).toBe(200);
    expect(a.json.ok).toBe(true);
    expect(a.json.archive).toMatch(/^\/arc\/archive-\d{4}-\d{2}-\d{2}T\d{6}\.tar\.gz$/);
    const listed: string[] = [];
    await tar.t({ file: vol(a.json.archive), onReadEntry: (e) => listed.push(e.path) });
    expect(listed.sort()).toEqual(['a.txt', 'sub/', 'sub/b.txt']);
    expect((await call(t.emu, 'POST', '~/files/compress', { body: { root: '/arc', files: ['nope'] } })).status).toBe(404);
  });
});

describe('files.decompress', () => {
  it('round-trips a tar.gz: files keep mode and mtime, existing files are overwritten, removeArchive deletes it', async () => {
    put('rt/src/run.sh', '#!/bin/sh\necho hi\n');
    chmodSync(vol('rt/src/run.sh'), 0o754);
    utimesSync(vol('rt/src/run.sh'), MTIME, MTIME);
    put('rt/src/emptydir/.keep', '');
    rmSync(vol('rt/src/emptydir/.keep'));
    const c = await call(t.emu, 'POST', '~/files/compress', { body: { root: '/rt/src', files: ['run.sh', 'emptydir'] } });
    mkdirSync(vol('rt/out'));
    renameSync(vol(c.json.archive), vol('rt/out/bundle.tgz'));
    put('rt/out/run.sh', 'old content');
    const d = await call(t.emu, 'POST', '~/files/decompress', { body: { root: '/rt/out', file: 'bundle.tgz', removeArchive: true } });
    expect(d.status).toBe(200);
    expect(d.json).toEqual({ ok: true, archiveRemoved: true });
    expect(readFileSync(vol('rt/out/run.sh'), 'utf8')).toBe('#!/bin/sh\necho hi\n');
    const st = statSync(vol('rt/out/run.sh'));
    expect(st.mode & 0o7777).toBe(0o754);
    expect(Math.round(st.mtimeMs / 1000)).toBe(MTIME.getTime() / 1000);
    expect(existsSync(vol('rt/out/emptydir'))).toBe(false); // directory entries are skipped
    expect(existsSync(vol('rt/out/bundle.tgz'))).toBe(false);
  });

  it('files.index right after a decompress reports the bytes on disk, also for a file rewritten since (old mtime and all)', async () => {
    put('ix/src/a.txt', 'alpha');
    put('ix/src/b.txt', 'bravo');
    for (const f of ['a.txt', 'b.txt']) utimesSync(vol(`ix/src/${f}`), MTIME, MTIME);
    mkdirSync(vol('ix/out'));
    await tar.c({ gzip: true, file: vol('ix/out/in.tgz'), cwd: vol('ix/src') }, ['a.txt', 'b.txt']);
    expect((await call(t.emu, 'POST', '~/files/decompress', { body: { root: '/ix/out', file: 'in.tgz', removeArchive: true } })).status).toBe(200);
    // Behind the emulator's back: same size, other bytes, an old mtime of its own.
    writeFileSync(vol('ix/out/b.txt'), 'BRAVO');
    utimesSync(vol('ix/out/b.txt'), MTIME, new Date(MTIME.getTime() + 5_000));
    const r = await call(t.emu, 'POST', '~/files/index', { body: { path: '/ix/out' } });
    const hashOf = (p: string): string => r.json.entries.find((e: { path: string }) => e.path === p).hash;
    expect(hashOf('ix/out/a.txt')).toBe(await xxh64Bytes(Buffer.from('alpha')));
    expect(hashOf('ix/out/b.txt')).toBe(await xxh64Bytes(Buffer.from('BRAVO')));
  });

  it('extracts a plain .tar and keeps the archive without removeArchive', async () => {
    put('pt/dir/x.txt', 'x');
    await tar.c({ file: vol('pt/p.tar'), cwd: vol('pt') }, ['dir']);
    rmSync(vol('pt/dir'), { recursive: true });
    const d = await call(t.emu, 'POST', '~/files/decompress', { body: { root: 'pt', file: 'p.tar' } });
    expect(d.json).toEqual({ ok: true, archiveRemoved: false });
    expect(readFileSync(vol('pt/dir/x.txt'), 'utf8')).toBe('x');
    expect(existsSync(vol('pt/p.tar'))).toBe(true);
    // Like Wings, entries land in `root` (default the volume root), not beside the archive.
    const r = await call(t.emu, 'POST', '~/files/decompress', { body: { file: 'pt/p.tar' } });
    expect(r.status).toBe(200);
    expect(readFileSync(vol('dir/x.txt'), 'utf8')).toBe('x');
  });

  it('extracts a zip: modes and mtimes kept, directory, symlink, zip-slip and absolute entries skipped', async () => {
    const zip = await buildZip([
      { name: 'app/run.sh', data: 'run', mode: 0o100755 },
      { name: 'app/readme.txt', data: 'read me' },
      { name: 'emptydir/', dir: true },
      { name: 'app/link', data: '../../../../etc/passwd', mode: 0o120777 },
      { name: 'zz/evil-slip.txt', data: 'slip', realName: '../evil-slip.txt' },
      { name: 'Xtmp-evil-abs.txt', data: 'abs', realName: '/tmp-evil-abs.txt' },
    ]);
    put('zp/a.zip', zip);
    put('zp/app/readme.txt', 'will be overwritten');
    const d = await call(t.emu, 'POST', '~/files/decompress', { body: { root: 'zp', file: 'a.zip' } });
    expect(d.status).toBe(200);
    expect(d.json).toEqual({ ok: true, archiveRemoved: false });
    expect(readFileSync(vol('zp/app/run.sh'), 'utf8')).toBe('run');
    expect(statSync(vol('zp/app/run.sh')).mode & 0o7777).toBe(0o755);
    expect(statSync(vol('zp/app/run.sh')).mtime.getTime()).toBe(MTIME.getTime());
    expect(readFileSync(vol('zp/app/readme.txt'), 'utf8')).toBe('read me');
    expect(existsSync(vol('zp/emptydir'))).toBe(false);
    expect(existsSync(vol('zp/app/link'))).toBe(false);
    expect(existsSync(vol('evil-slip.txt'))).toBe(false);
    expect(existsSync(vol('zp/evil-slip.txt'))).toBe(false);
    expect(existsSync('/tmp-evil-abs.txt')).toBe(false);
  });

  it('skips tar entries that climb out, symlinks, and entries through a symlink leading out', async () => {
    mkdirSync(vol('ev/inner'), { recursive: true });
    writeFileSync(vol('ev/escape.txt'), 'climbs');
    put('ev/inner/ok.txt', 'fine');
    symlinkSync('/etc/hostname', vol('ev/inner/lnk'));
    await tar.c({ file: vol('ev/inner/evil.tar'), cwd: vol('ev/inner'), preservePaths: true }, ['../escape.txt', 'ok.txt', 'lnk']);
    rmSync(vol('ev/escape.txt'));
    rmSync(vol('ev/inner/ok.txt'));
    rmSync(vol('ev/inner/lnk'));
    symlinkSync(outside, vol('ev/inner/out'));
    // An entry "out/x.txt" would be written through the symlink to outside the volume.
    mkdirSync(path.join(outside, 'src-out'), { recursive: true });
    writeFileSync(path.join(outside, 'src-out', 'x.txt'), 'outside');
    const stage = mkdtempSync(path.join(os.tmpdir(), 'hostsync-emu-stage-'));
    mkdirSync(path.join(stage, 'out'));
    writeFileSync(path.join(stage, 'out', 'x.txt'), 'INJECTED');
    await tar.c({ file: vol('ev/inner/out.tar'), cwd: stage }, ['out/x.txt']);
    rmSync(stage, { recursive: true, force: true });

    const d = await call(t.emu, 'POST', '~/files/decompress', { body: { root: 'ev/inner', file: 'evil.tar' } });
    expect(d.status).toBe(200);
    expect(readFileSync(vol('ev/inner/ok.txt'), 'utf8')).toBe('fine');
    expect(existsSync(vol('ev/escape.txt'))).toBe(false);
    expect(existsSync(vol('ev/inner/lnk'))).toBe(false);
    const o = await call(t.emu, 'POST', '~/files/decompress', { body: { root: 'ev/inner', file: 'out.tar' } });
    expect(o.status).toBe(200);
    expect(existsSync(path.join(outside, 'x.txt'))).toBe(false);
    expect(lstatSync(vol('ev/inner/out')).isSymbolicLink()).toBe(true);
  });

  it('refuses unsupported formats and corrupt archives with 400', async () => {
    put('bad/a.rar', 'not supported');
    expect((await call(t.emu, 'POST', '~/files/decompress', { body: { file: 'bad/a.rar' } })).status).toBe(400);
    put('bad/b.zip', 'not a zip at all');
    const z = await call(t.emu, 'POST', '~/files/decompress', { body: { file: 'bad/b.zip' } });
    expect(z.status).toBe(400);
    put('bad/c.tar.gz', 'not gzip either, long enough to look like something '.repeat(20));
    const g = await call(t.emu, 'POST', '~/files/decompress', { body: { file: 'bad/c.tar.gz' } });
    expect(g.status).toBe(400);
    put('bad/d.tar', 'plain garbage that is no tar header at all '.repeat(30));
    const p = await call(t.emu, 'POST', '~/files/decompress', { body: { file: 'bad/d.tar' } });
    expect(p.status).toBe(400);
    expect((await call(t.emu, 'POST', '~/files/decompress', { body: { file: 'bad/none.zip' } })).status).toBe(404);
  });
});
