import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, renameSync, rmSync, symlinkSync, writeFileSync, chmodSync } from 'node:fs';
import path from 'node:path';
import xxhash from 'xxhash-wasm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, startTestEmulator, type TestEmulator } from './api-client.js';

let t: TestEmulator;
beforeAll(async () => {
  t = await startTestEmulator({ indexMaxEntries: 50 });
});
afterAll(() => t.close());

function hasXxhsum(): boolean {
  try {
    execFileSync('xxhsum', ['--version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

describe('files.index', () => {
  it('reports the XXH64 (seed 0) of the bytes on disk, as 16 lowercase hex digits', async () => {
    const files = {
      'src/a.js': 'console.log("a")\n',
      'src/deep/b.txt': 'bee\n'.repeat(1000),
      'empty.txt': '',
      'bin.dat': Buffer.from([0, 1, 2, 255, 254, 0, 10]),
    };
    const w = await call(t.emu, 'POST', '~/files/writeMany', {
      body: { files: Object.entries(files).filter(([, c]) => typeof c === 'string').map(([p, c]) => ({ path: p, content: c })) },
    });
    expect(w.status).toBe(200);
    writeFileSync(path.join(t.emu.volume, 'bin.dat'), files['bin.dat']);

    const r = await call(t.emu, 'POST', '~/files/index', { body: {} });
    expect(r.status).toBe(200);
    expect(r.json.unchanged).toBe(false);
    expect(r.json.truncated).toBe(false);
    expect(r.json.digest).toMatch(/^[0-9a-f]{16}$/);
    const h = await xxhash();
    const xxhsum = hasXxhsum();
    for (const p of Object.keys(files)) {
      const entry = r.json.entries.find((e: any) => e.path === p);
      expect(entry, p).toBeDefined();
      expect(entry.type).toBe('file');
      const bytes = readFileSync(path.join(t.emu.volume, p));
      const expected = h.h64Raw(bytes, 0n).toString(16).padStart(16, '0');
      expect(entry.hash).toBe(expected);
      expect(entry.hash).toMatch(/^[0-9a-f]{16}$/);
      expect(entry.sizeBytes).toBe(bytes.length);
      if (xxhsum) {
        const out = execFileSync('xxhsum', ['-H64', path.join(t.emu.volume, p)], { encoding: 'utf8' });
        expect(out.split(/\s+/)[0]).toBe(entry.hash);
      }
    }
    // Directories are entries too; paths are volume-relative POSIX without a leading slash.
    const dir = r.json.entries.find((e: any) => e.path === 'src/deep');
    expect(dir).toMatchObject({ type: 'directory', hash: null });
    expect(r.json.entries.every((e: any) => !e.path.startsWith('/'))).toBe(true);
    for (const e of r.json.entries) {
      expect(Object.keys(e).sort()).toEqual(['hash', 'mode', 'modifiedAt', 'path', 'sizeBytes', 'type']);
      expect(e.mode).toMatch(/^[0-7]{4}$/);
      expect(Number.isNaN(Date.parse(e.modifiedAt))).toBe(false);
    }
  });

  it('answers {unchanged: true} with no entries for the same digest, and a new digest after any change', async () => {
    const first = await call(t.emu, 'POST', '~/files/index', { body: {} });
    const again = await call(t.emu, 'POST', '~/files/index', { body: { digest: first.json.digest } });
    expect(again.status).toBe(200);
    expect(again.json).toEqual({ unchanged: true, digest: first.json.digest, truncated: false, entries: [] });

    // Same size, different content: the digest must still change.
    const before = readFileSync(path.join(t.emu.volume, 'src/a.js'), 'utf8');
    const after = before.replace('a', 'b');
    expect(after.length).toBe(before.length);
    await call(t.emu, 'POST', '~/files/content', { body: { path: 'src/a.js', content: after } });
    const changed = await call(t.emu, 'POST', '~/files/index', { body: { digest: first.json.digest } });
    expect(changed.json.unchanged).toBe(false);
    expect(changed.json.digest).not.toBe(first.json.digest);
    expect(changed.json.entries.length).toBe(first.json.entries.length);

    // A mode change alone changes it too.
    chmodSync(path.join(t.emu.volume, 'src/a.js'), 0o755);
    const chmodded = await call(t.emu, 'POST', '~/files/index', { body: { digest: changed.json.digest } });
    expect(chmodded.json.unchanged).toBe(false);
    expect(chmodded.json.entries.find((e: any) => e.path === 'src/a.js').mode).toBe('0755');

    // The request's own parameters are part of the digest.
    const withIgnore = await call(t.emu, 'POST', '~/files/index', { body: { digest: chmodded.json.digest, ignore: ['nothing-matches'] } });
    expect(withIgnore.json.unchanged).toBe(false);
  });

  it('answers an unchanged volume from memory, yet sees every change made behind its back', async () => {
    const vol = t.emu.volume;
    const index = async (digest?: string) => (await call(t.emu, 'POST', '~/files/index', { body: digest ? { digest } : {} })).json;
    let digest = (await index()).digest;
    expect((await index(digest)).unchanged).toBe(true);
    const changes: [string, () => void][] = [
      ['a same-size rewrite in a nested folder', () => writeFileSync(path.join(vol, 'src/deep/b.txt'), 'BEE\n'.repeat(1000))],
      ['a file in a new folder', () => (mkdirSync(path.join(vol, 'fresh/x'), { recursive: true }), writeFileSync(path.join(vol, 'fresh/x/n.txt'), 'n'))],
      ['a write in that new folder', () => writeFileSync(path.join(vol, 'fresh/x/n.txt'), 'm')],
      ['a folder deleted and made again', () => (rmSync(path.join(vol, 'fresh'), { recursive: true }), mkdirSync(path.join(vol, 'fresh/x'), { recursive: true }), writeFileSync(path.join(vol, 'fresh/x/n.txt'), 'p'))],
      ['a write in the re-made folder', () => writeFileSync(path.join(vol, 'fresh/x/n.txt'), 'o')],
      ['a rename', () => renameSync(path.join(vol, 'fresh/x/n.txt'), path.join(vol, 'fresh/x/o.txt'))],
      ['a mode change', () => chmodSync(path.join(vol, 'fresh/x/o.txt'), 0o700)],
    ];
    for (const [what, change] of changes) {
      change();
      const r = await index(digest);
      expect(r.unchanged, what).toBe(false);
      expect(r.digest, what).not.toBe(digest);
      digest = r.digest;
      expect((await index(digest)).unchanged, `${what}, asked again`).toBe(true);
    }
    rmSync(path.join(vol, 'fresh'), { recursive: true });
  });

  it('does not enter ignored directories and leaves out ignored files', async () => {
    mkdirSync(path.join(t.emu.volume, 'node_modules/x'), { recursive: true });
    writeFileSync(path.join(t.emu.volume, 'node_modules/x/i.js'), 'x');
    writeFileSync(path.join(t.emu.volume, 'debug.log'), 'x');
    const r = await call(t.emu, 'POST', '~/files/index', { body: { ignore: ['node_modules/', '*.log'] } });
    const paths: string[] = r.json.entries.map((e: any) => e.path);
    expect(paths.some((p) => p.startsWith('node_modules'))).toBe(false);
    expect(paths).not.toContain('debug.log');
    expect(paths).toContain('src/a.js');
    const all = await call(t.emu, 'POST', '~/files/index', { body: {} });
    expect(all.json.entries.map((e: any) => e.path)).toContain('node_modules/x/i.js');
  });

  it('lists files above hashMaxBytes without a hash; 0 disables hashing', async () => {
    const r = await call(t.emu, 'POST', '~/files/index', { body: { hashMaxBytes: 100 } });
    const big = r.json.entries.find((e: any) => e.path === 'src/deep/b.txt');
    const small = r.json.entries.find((e: any) => e.path === 'src/a.js');
    expect(big.sizeBytes).toBeGreaterThan(100);
    expect(big.hash).toBeNull();
    expect(small.hash).toMatch(/^[0-9a-f]{16}$/);
    const none = await call(t.emu, 'POST', '~/files/index', { body: { hashMaxBytes: 0 } });
    expect(none.json.entries.every((e: any) => e.hash === null)).toBe(true);
    const bad = await call(t.emu, 'POST', '~/files/index', { body: { hashMaxBytes: -1 } });
    expect(bad.status).toBe(400);
  });

  it('indexes a sub-path (paths stay volume-relative) and a single file', async () => {
    const sub = await call(t.emu, 'POST', '~/files/index', { body: { path: '/src' } });
    expect(sub.json.entries.map((e: any) => e.path).sort()).toEqual(['src/a.js', 'src/deep', 'src/deep/b.txt']);
    const one = await call(t.emu, 'POST', '~/files/index', { body: { path: 'src/a.js' } });
    expect(one.json.entries).toHaveLength(1);
    expect(one.json.entries[0].path).toBe('src/a.js');
    const missing = await call(t.emu, 'POST', '~/files/index', { body: { path: 'nope' } });
    expect(missing.status).toBe(404);
    expect(typeof missing.json.error).toBe('string');
  });

  it('lists symlinks as symlinks without following them', async () => {
    symlinkSync('src', path.join(t.emu.volume, 'link-to-src'));
    const r = await call(t.emu, 'POST', '~/files/index', { body: {} });
    const link = r.json.entries.find((e: any) => e.path === 'link-to-src');
    expect(link).toMatchObject({ type: 'symlink', hash: null });
    expect(r.json.entries.some((e: any) => e.path.startsWith('link-to-src/'))).toBe(false);
  });

  it('truncates past the entry cap, with a digest of the whole tree', async () => {
    const files = Array.from({ length: 60 }, (_, i) => ({ path: `many/f${String(i).padStart(2, '0')}.txt`, content: `${i}` }));
    await call(t.emu, 'POST', '~/files/writeMany', { body: { files } });
    const r = await call(t.emu, 'POST', '~/files/index', { body: {} });
    expect(r.json.truncated).toBe(true);
    expect(r.json.entries).toHaveLength(50);
    // The digest covers what was cut: changing a file beyond the cut changes it.
    writeFileSync(path.join(t.emu.volume, 'many/f59.txt'), 'changed');
    const r2 = await call(t.emu, 'POST', '~/files/index', { body: { digest: r.json.digest } });
    expect(r2.json.unchanged).toBe(false);
    // The sub-tree is complete when indexed on its own... up to the cap again.
    const sub = await call(t.emu, 'POST', '~/files/index', { body: { path: 'src' } });
    expect(sub.json.truncated).toBe(false);
  });

  it('refuses bad parameters with 400', async () => {
    expect((await call(t.emu, 'POST', '~/files/index', { body: { ignore: 'x' } })).status).toBe(400);
    expect((await call(t.emu, 'POST', '~/files/index', { body: { path: 5 } })).status).toBe(400);
  });
});
