import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, startTestEmulator, type TestEmulator } from './api-client.js';

let t: TestEmulator;
const vol = (p: string): string => path.join(t.emu.volume, p);
beforeAll(async () => {
  t = await startTestEmulator();
});
afterAll(() => t.close());

describe('files.write', () => {
  it('overwrites (default) and appends, creating folders', async () => {
    const a = await call(t.emu, 'POST', '~/files/content', { body: { path: 'w/one.txt', content: 'a\nb\n' } });
    expect(a.status).toBe(200);
    expect(a.json).toMatchObject({ ok: true, path: 'w/one.txt', bytes: 4, lines: 2 });
    expect(typeof a.json.note).toBe('string');
    expect(typeof a.json.hint).toBe('string');
    const b = await call(t.emu, 'POST', '~/files/content', { body: { path: 'w/one.txt', content: 'c', mode: 'append' } });
    expect(b.json).toMatchObject({ ok: true, bytes: 5, lines: 3 });
    expect(readFileSync(vol('w/one.txt'), 'utf8')).toBe('a\nb\nc');
    await call(t.emu, 'POST', '~/files/content', { body: { path: '/w/one.txt', content: 'new' } });
    expect(readFileSync(vol('w/one.txt'), 'utf8')).toBe('new');
  });

  it('stores a JSON object stringified', async () => {
    const obj = { name: 'x', nested: { n: 1 } };
    await call(t.emu, 'POST', '~/files/content', { body: { path: 'w/obj.json', content: obj } });
    const text = readFileSync(vol('w/obj.json'), 'utf8');
    expect(JSON.parse(text)).toEqual(obj);
  });

  it('writes nothing without content, and refuses bad modes and directories', async () => {
    const a = await call(t.emu, 'POST', '~/files/content', { body: { path: 'w/none.txt' } });
    expect(a.status).toBe(400);
    expect(existsSync(vol('w/none.txt'))).toBe(false);
    expect((await call(t.emu, 'POST', '~/files/content', { body: { path: 'w/x.txt', content: 1 } })).status).toBe(400);
    expect((await call(t.emu, 'POST', '~/files/content', { body: { path: 'w/x.txt', content: 'x', mode: 'prepend' } })).status).toBe(400);
    expect((await call(t.emu, 'POST', '~/files/content', { body: { path: 'w', content: 'x' } })).status).toBe(400);
    expect(existsSync(vol('w/x.txt'))).toBe(false);
  });
});

describe('files.writeMany', () => {
  it('writes in order and reports each landed file', async () => {
    const files = [
      { path: 'm/a.txt', content: 'first' },
      { path: 'm/a.txt', content: ' second', mode: 'append' },
      { path: 'm/sub/b.txt', content: 'x\ny\nz' },
    ];
    const a = await call(t.emu, 'POST', '~/files/writeMany', { body: { files } });
    expect(a.status).toBe(200);
    expect(a.json.ok).toBe(true);
    expect(a.json.failed).toEqual([]);
    expect(a.json.written).toEqual([
      { path: 'm/a.txt', bytes: 5, lines: 1 },
      { path: 'm/a.txt', bytes: 12, lines: 1 },
      { path: 'm/sub/b.txt', bytes: 5, lines: 3 },
    ]);
    expect(readFileSync(vol('m/a.txt'), 'utf8')).toBe('first second');
  });

  it('refuses more than 5 MB of content in one call with 413 and writes nothing', async () => {
    const half = 'x'.repeat(2.5 * 1024 * 1024);
    const files = [
      { path: 'big/1.txt', content: half },
      { path: 'big/2.txt', content: half },
      { path: 'big/3.txt', content: 'y' },
    ];
    const a = await call(t.emu, 'POST', '~/files/writeMany', { body: { files } });
    expect(a.status).toBe(413);
    expect(a.json.error).toMatch(/5000000|5 ?MB/);
    expect(existsSync(vol('big'))).toBe(false);
    // Exactly 5 MB (5,000,000 bytes, the strict reading) is within the cap; one byte more is not.
    const over = await call(t.emu, 'POST', '~/files/writeMany', {
      body: { files: [{ path: 'big/over.txt', content: 'z'.repeat(5_000_001) }] },
    });
    expect(over.status).toBe(413);
    const ok = await call(t.emu, 'POST', '~/files/writeMany', {
      body: { files: [{ path: 'big/exact.txt', content: 'z'.repeat(5_000_000) }] },
    });
    expect(ok.status).toBe(200);
  });

  it('counts the cap in UTF-8 bytes, not characters', async () => {
    const euro = '€'.repeat(1.9 * 1024 * 1024); // 3 bytes each: ~5.7 MB
    const a = await call(t.emu, 'POST', '~/files/writeMany', { body: { files: [{ path: 'big/euro.txt', content: euro }] } });
    expect(a.status).toBe(413);
    expect(existsSync(vol('big/euro.txt'))).toBe(false);
  });

  it('stops at the first failing file: written lists the landed ones, failed the failure, later ones untouched', async () => {
    mkdirSync(vol('m/dir'), { recursive: true });
    const files = [
      { path: 'm/s1.txt', content: '1' },
      { path: 'm/dir', content: 'cannot write a folder' },
      { path: 'm/s3.txt', content: '3' },
    ];
    const a = await call(t.emu, 'POST', '~/files/writeMany', { body: { files } });
    expect(a.status).toBe(200);
    expect(a.json.ok).toBe(false);
    expect(a.json.written.map((w: any) => w.path)).toEqual(['m/s1.txt']);
    expect(a.json.failed).toHaveLength(1);
    expect(a.json.failed[0].path).toBe('m/dir');
    expect(a.json.failed[0].error).toMatch(/directory/);
    expect(existsSync(vol('m/s3.txt'))).toBe(false);
  });

  it('puts an escaping path in failed and writes nothing outside', async () => {
    const a = await call(t.emu, 'POST', '~/files/writeMany', {
      body: { files: [{ path: 'm/ok.txt', content: 'ok' }, { path: '../../escape.txt', content: 'bad' }, { path: 'm/after.txt', content: 'x' }] },
    });
    expect(a.json.ok).toBe(false);
    expect(a.json.failed[0].path).toBe('../../escape.txt');
    expect(existsSync(path.join(t.emu.volume, '..', '..', 'escape.txt'))).toBe(false);
    expect(existsSync(vol('m/after.txt'))).toBe(false);
  });

  it('refuses malformed bodies with 400 before writing anything', async () => {
    for (const body of [{}, { files: [] }, { files: [{ path: 'm/q.txt' }] }, { files: [{ path: 'm/q.txt', content: 'x', mode: 'bad' }] }, { files: ['x'] }]) {
      expect((await call(t.emu, 'POST', '~/files/writeMany', { body })).status, JSON.stringify(body)).toBe(400);
    }
    const mixed = await call(t.emu, 'POST', '~/files/writeMany', { body: { files: [{ path: 'm/q.txt', content: 'x' }, { path: 'm/r.txt', content: 5 }] } });
    expect(mixed.status).toBe(400);
    expect(existsSync(vol('m/q.txt'))).toBe(false);
  });
});

describe('files.edit and files.editMany', () => {
  it('replaces a snippet that occurs exactly once', async () => {
    writeFileSync(vol('e.js'), 'const a = 1;\nconst b = 2;\nconst b2 = 2;\n');
    const a = await call(t.emu, 'POST', '~/files/edit', { body: { path: 'e.js', oldString: 'const a = 1;', newString: 'const a = 10;' } });
    expect(a.status).toBe(200);
    expect(a.json).toMatchObject({ ok: true, path: 'e.js', replacements: 1, lines: 3 });
    expect(a.json.context).toContain('const a = 10;');
    expect(readFileSync(vol('e.js'), 'utf8')).toBe('const a = 10;\nconst b = 2;\nconst b2 = 2;\n');
  });

  it('does not apply a missing or ambiguous snippet unless replaceAll', async () => {
    const before = readFileSync(vol('e.js'), 'utf8');
    const missing = await call(t.emu, 'POST', '~/files/edit', { body: { path: 'e.js', oldString: 'nope', newString: 'x' } });
    expect(missing.status).toBe(409);
    const ambiguous = await call(t.emu, 'POST', '~/files/edit', { body: { path: 'e.js', oldString: '= 2;', newString: '= 3;' } });
    expect(ambiguous.status).toBe(409);
    expect(ambiguous.json.error).toMatch(/2 times/);
    expect(readFileSync(vol('e.js'), 'utf8')).toBe(before);
    const all = await call(t.emu, 'POST', '~/files/edit', { body: { path: 'e.js', oldString: '= 2;', newString: '= $&3;', replaceAll: true } });
    expect(all.json.replacements).toBe(2);
    // newString is literal text ($& is not a replacement pattern).
    expect(readFileSync(vol('e.js'), 'utf8')).toBe('const a = 10;\nconst b = $&3;\nconst b2 = $&3;\n');
    const del = await call(t.emu, 'POST', '~/files/edit', { body: { path: 'e.js', oldString: 'const a = 10;\n', newString: '' } });
    expect(del.status).toBe(200);
    expect(readFileSync(vol('e.js'), 'utf8')).toBe('const b = $&3;\nconst b2 = $&3;\n');
    expect((await call(t.emu, 'POST', '~/files/edit', { body: { path: 'missing.js', oldString: 'a', newString: 'b' } })).status).toBe(404);
  });

  it('editMany applies all edits or none, naming the failing edit', async () => {
    writeFileSync(vol('m.js'), 'alpha\nbeta\ngamma\n');
    const bad = await call(t.emu, 'POST', '~/files/editMany', {
      body: { path: 'm.js', edits: [{ oldString: 'alpha', newString: 'ALPHA' }, { oldString: 'delta', newString: 'DELTA' }] },
    });
    expect(bad.status).toBe(409);
    expect(bad.json.error).toMatch(/edit 2/);
    expect(readFileSync(vol('m.js'), 'utf8')).toBe('alpha\nbeta\ngamma\n');
    const good = await call(t.emu, 'POST', '~/files/editMany', {
      body: { path: 'm.js', edits: [{ oldString: 'alpha', newString: 'ALPHA' }, { oldString: 'gamma', newString: 'GAMMA' }] },
    });
    expect(good.status).toBe(200);
    expect(good.json).toMatchObject({ ok: true, path: 'm.js', edits: 2, replacements: 2, lines: 3 });
    expect(readFileSync(vol('m.js'), 'utf8')).toBe('ALPHA\nbeta\nGAMMA\n');
  });
});

describe('files.history and files.restore', () => {
  it('keeps previous contents of overwrites and edits, newest first, and restores them (itself undoable)', async () => {
    await call(t.emu, 'POST', '~/files/content', { body: { path: 'h.txt', content: 'v1' } });
    await call(t.emu, 'POST', '~/files/content', { body: { path: 'h.txt', content: 'v2' } });
    await call(t.emu, 'POST', '~/files/edit', { body: { path: 'h.txt', oldString: 'v2', newString: 'v3' } });
    const h = await call(t.emu, 'GET', '~/files/history', { query: { path: 'h.txt' } });
    expect(h.status).toBe(200);
    expect(h.json.path).toBe('h.txt');
    expect(h.json.versions).toHaveLength(2);
    for (const v of h.json.versions) expect(Object.keys(v).sort()).toEqual(['bytes', 'id', 'savedAt']);
    const [newest, oldest] = h.json.versions;
    expect(Date.parse(newest.savedAt)).toBeGreaterThanOrEqual(Date.parse(oldest.savedAt));
    const r = await call(t.emu, 'POST', '~/files/restore', { body: { path: 'h.txt', versionId: oldest.id } });
    expect(r.status).toBe(200);
    expect(r.json).toMatchObject({ ok: true, path: 'h.txt', bytes: 2, lines: 1 });
    expect(readFileSync(vol('h.txt'), 'utf8')).toBe('v1');
    const h2 = await call(t.emu, 'GET', '~/files/history', { query: { path: 'h.txt' } });
    expect(h2.json.versions).toHaveLength(3); // what the restore replaced (v3) was saved
    const undo = await call(t.emu, 'POST', '~/files/restore', { body: { path: 'h.txt', versionId: h2.json.versions[0].id } });
    expect(undo.status).toBe(200);
    expect(readFileSync(vol('h.txt'), 'utf8')).toBe('v3');
  });

  it('brings back a deleted file', async () => {
    await call(t.emu, 'POST', '~/files/content', { body: { path: 'gone/d.txt', content: 'precious' } });
    const d = await call(t.emu, 'POST', '~/files/delete', { body: { files: ['gone/d.txt'] } });
    expect(d.json).toEqual({ ok: true, deleted: 1 });
    expect(existsSync(vol('gone/d.txt'))).toBe(false);
    const h = await call(t.emu, 'GET', '~/files/history', { query: { path: 'gone/d.txt' } });
    expect(h.json.versions).toHaveLength(1);
    const r = await call(t.emu, 'POST', '~/files/restore', { body: { path: 'gone/d.txt', versionId: h.json.versions[0].id } });
    expect(r.status).toBe(200);
    expect(readFileSync(vol('gone/d.txt'), 'utf8')).toBe('precious');
  });

  it('answers an empty list for a path never changed, and 404 for an unknown version', async () => {
    const h = await call(t.emu, 'GET', '~/files/history', { query: { path: 'never/touched.txt' } });
    expect(h.json.versions).toEqual([]);
    const r = await call(t.emu, 'POST', '~/files/restore', { body: { path: 'h.txt', versionId: 'v-nope' } });
    expect(r.status).toBe(404);
  });

  it('keeps history outside the volume', async () => {
    const idx = await call(t.emu, 'POST', '~/files/index', { body: {} });
    expect(idx.json.entries.every((e: any) => !/history|\.hostsync/.test(e.path))).toBe(true);
    const historyDir = path.join(t.dataDir, 'history');
    expect(existsSync(historyDir)).toBe(true);
    expect(path.relative(t.emu.volume, historyDir).startsWith('..')).toBe(true);
  });
});
