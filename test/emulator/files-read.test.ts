import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, startTestEmulator, type TestEmulator } from './api-client.js';

let t: TestEmulator;
const vol = (p: string): string => path.join(t.emu.volume, p);
beforeAll(async () => {
  t = await startTestEmulator();
  mkdirSync(vol('src/lib'), { recursive: true });
  mkdirSync(vol('node_modules/pkg'), { recursive: true });
  writeFileSync(vol('src/index.js'), Array.from({ length: 10 }, (_, i) => `line ${i}`).join('\n') + '\n');
  writeFileSync(vol('src/lib/util.js'), 'export {}\n');
  writeFileSync(vol('node_modules/pkg/index.js'), 'module.exports = 1\n');
  writeFileSync(vol('README.md'), '# hi\n');
  writeFileSync(vol('logo.png'), Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 0, 0, 13]));
  writeFileSync(vol('latin1.txt'), Buffer.from([0x63, 0x61, 0x66, 0xe9])); // "café" in latin-1: invalid UTF-8
});
afterAll(() => t.close());

describe('files.list', () => {
  it('lists entries with name, type, sizeBytes, modifiedAt, mode; folders first', async () => {
    const a = await call(t.emu, 'GET', '~/files');
    expect(a.status).toBe(200);
    expect(a.json.path).toBe('/');
    const names = a.json.entries.map((e: any) => e.name);
    expect(names.slice(0, 2).sort()).toEqual(['node_modules', 'src']);
    const readme = a.json.entries.find((e: any) => e.name === 'README.md');
    expect(readme).toEqual({ name: 'README.md', type: 'file', sizeBytes: 5, modifiedAt: expect.any(String), mode: expect.stringMatching(/^0[0-7]{3}$/) });
    const sub = await call(t.emu, 'GET', '~/files', { query: { path: 'src' } });
    expect(sub.json.path).toBe('/src');
    expect(sub.json.entries.map((e: any) => e.name)).toEqual(['lib', 'index.js']);
    expect((await call(t.emu, 'GET', '~/files', { query: { path: 'nope' } })).status).toBe(404);
    expect((await call(t.emu, 'GET', '~/files', { query: { path: 'README.md' } })).status).toBe(400);
  });
});

describe('files.tree', () => {
  it('renders indented text with sizes, skipping vendor folders by default', async () => {
    const a = await call(t.emu, 'GET', '~/files/tree');
    expect(a.status).toBe(200);
    expect(a.json.root).toBe('/');
    expect(a.json.tree).toContain('src/');
    expect(a.json.tree).toContain('  index.js (');
    expect(a.json.tree).toContain('    util.js (10 B)');
    expect(a.json.tree).not.toContain('pkg');
    expect(a.json.note).toContain('node_modules');
    expect(a.json.truncated).toBe(false);
    expect(a.json.files).toBe(5); // README.md, logo.png, latin1.txt, src/index.js, src/lib/util.js
    expect(a.json.directories).toBe(3);
    const vendor = await call(t.emu, 'GET', '~/files/tree', { query: { includeVendor: true } });
    expect(vendor.json.tree).toContain('pkg/');
  });
  it('honours depth and maxEntries', async () => {
    const shallow = await call(t.emu, 'GET', '~/files/tree', { query: { depth: 1 } });
    expect(shallow.json.tree).not.toContain('index.js');
    const capped = await call(t.emu, 'GET', '~/files/tree', { query: { maxEntries: 2 } });
    expect(capped.json.truncated).toBe(true);
    expect(capped.json.tree.split('\n')).toHaveLength(2);
    expect((await call(t.emu, 'GET', '~/files/tree', { query: { depth: 'x' } })).status).toBe(400);
  });
});

describe('files.read', () => {
  it('pages by lines with offset, limit, hasMore and totalLines', async () => {
    const a = await call(t.emu, 'GET', '~/files/content', { query: { path: 'src/index.js', offset: 2, limit: 3 } });
    expect(a.status).toBe(200);
    expect(a.json).toMatchObject({ path: 'src/index.js', content: 'line 2\nline 3\nline 4\n', offset: 2, lines: 3, totalLines: 10, hasMore: true });
    expect(typeof a.json.note).toBe('string');
    const end = await call(t.emu, 'GET', '~/files/content', { query: { path: 'src/index.js', offset: 8 } });
    expect(end.json).toMatchObject({ lines: 2, hasMore: false, content: 'line 8\nline 9\n' });
    // Pages concatenate to the file.
    let offset = 0;
    let text = '';
    for (;;) {
      const p = await call(t.emu, 'GET', '~/files/content', { query: { path: 'src/index.js', offset, limit: 4 } });
      text += p.json.content;
      offset += p.json.lines;
      if (!p.json.hasMore) break;
    }
    expect(text).toBe(Array.from({ length: 10 }, (_, i) => `line ${i}`).join('\n') + '\n');
  });
  it('defaults to 400 lines', async () => {
    writeFileSync(vol('long.txt'), 'x\n'.repeat(1000));
    const a = await call(t.emu, 'GET', '~/files/content', { query: { path: 'long.txt' } });
    expect(a.json).toMatchObject({ lines: 400, totalLines: 1000, hasMore: true });
  });
  it('refuses binary files, missing paths and a missing path parameter', async () => {
    expect((await call(t.emu, 'GET', '~/files/content', { query: { path: 'logo.png' } })).status).toBe(400);
    expect((await call(t.emu, 'GET', '~/files/content', { query: { path: 'nope.txt' } })).status).toBe(404);
    expect((await call(t.emu, 'GET', '~/files/content')).status).toBe(400);
  });
});

describe('files.readMany', () => {
  it('returns text, reports binary files without content, and stops at the budget', async () => {
    const a = await call(t.emu, 'POST', '~/files/read-many', {
      body: { paths: ['/README.md', '/logo.png', '/latin1.txt', '/nope.txt', '/src/lib/util.js', '/src/index.js'], maxBytes: 20 },
    });
    expect(a.status).toBe(200);
    const [readme, logo, latin, nope, util, index] = a.json.files;
    expect(readme).toEqual({ path: '/README.md', content: '# hi\n', bytes: 5, skipped: null });
    expect(logo).toMatchObject({ path: '/logo.png', content: null, skipped: 'binary', bytes: 8 });
    expect(latin).toMatchObject({ content: null, skipped: 'binary' });
    expect(nope).toMatchObject({ content: null, skipped: 'not found' });
    expect(util).toMatchObject({ content: 'export {}\n', skipped: null });
    expect(index).toMatchObject({ content: null, skipped: 'budget' });
    expect(a.json.truncated).toBe(true);
    expect(a.json.note).not.toBe('');
    const all = await call(t.emu, 'POST', '~/files/read-many', { body: { paths: ['/src/index.js'] } });
    expect(all.json.truncated).toBe(false);
    expect(all.json.files[0].content).toContain('line 9');
    expect((await call(t.emu, 'POST', '~/files/read-many', { body: {} })).status).toBe(400);
  });
});

describe('files.downloadUrl', () => {
  it('gives a one-time URL outside /api/v1 that streams the bytes', async () => {
    const a = await call(t.emu, 'GET', '~/files/download-url', { query: { path: 'logo.png' } });
    expect(a.status).toBe(200);
    expect(a.json.url.startsWith(t.emu.baseUrl + '/')).toBe(true);
    expect(a.json.url).not.toContain('/api/v1');
    expect(Date.parse(a.json.expiresAt)).toBeGreaterThan(Date.now());
    t.emu.resetStats();
    const res = await fetch(a.json.url);
    expect(res.status).toBe(200);
    expect(Buffer.from(await res.arrayBuffer())).toEqual(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 0, 0, 13]));
    expect(t.emu.stats().requests.total).toBe(0);
    const again = await fetch(a.json.url);
    expect(again.status).toBe(403);
    expect((await call(t.emu, 'GET', '~/files/download-url', { query: { path: 'nope' } })).status).toBe(404);
    expect((await call(t.emu, 'GET', '~/files/download-url', { query: { path: 'src' } })).status).toBe(400);
  });
});

describe('symlinks inside the volume', () => {
  it('reads through a link that stays inside', async () => {
    symlinkSync('src/lib/util.js', vol('util-link.js'));
    const a = await call(t.emu, 'GET', '~/files/content', { query: { path: 'util-link.js' } });
    expect(a.status).toBe(200);
    expect(a.json.content).toBe('export {}\n');
  });
});
