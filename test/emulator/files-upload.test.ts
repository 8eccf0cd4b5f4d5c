import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SignedUrls } from '../../src/emulator/signed-urls.js';
import { call, startTestEmulator, type TestEmulator } from './api-client.js';

let t: TestEmulator;
const vol = (p: string): string => path.join(t.emu.volume, p);
beforeAll(async () => {
  t = await startTestEmulator({ uploadMaxBytes: 64 * 1024 });
});
afterAll(() => t.close());

function form(parts: Array<{ field?: string; name: string; data: Uint8Array | string }>): FormData {
  const f = new FormData();
  for (const p of parts) f.append(p.field ?? 'files', new Blob([p.data]), p.name);
  return f;
}

async function uploadUrl(p?: string): Promise<{ url: string; field: string; expiresAt: string }> {
  const a = await call(t.emu, 'POST', '~/files/upload-url', { body: p === undefined ? {} : { path: p } });
  expect(a.status).toBe(200);
  return a.json;
}

describe('files.uploadUrl', () => {
  it('returns a single-use URL outside /api/v1 that lands each "files" part in the target folder (created)', async () => {
    const u = await uploadUrl('up/dir');
    expect(u.field).toBe('files');
    expect(u.url.startsWith(t.emu.baseUrl)).toBe(true);
    expect(u.url).not.toContain('/api/v1');
    const ttl = Date.parse(u.expiresAt) - Date.now();
    expect(ttl).toBeGreaterThan(14 * 60_000);
    expect(ttl).toBeLessThanOrEqual(15 * 60_000);
    expect(existsSync(vol('up/dir'))).toBe(true);

    const bin = Buffer.from(Array.from({ length: 5000 }, (_, i) => i % 256));
    t.emu.resetStats();
    const res = await fetch(u.url, { method: 'POST', body: form([{ name: 'a.bin', data: bin }, { name: 'b.txt', data: 'hello' }, { field: 'other', name: 'ignored.txt', data: 'x' }]) });
    expect(res.status).toBe(200);
    expect(readFileSync(vol('up/dir/a.bin'))).toEqual(bin);
    expect(readFileSync(vol('up/dir/b.txt'), 'utf8')).toBe('hello');
    expect(existsSync(vol('up/dir/ignored.txt'))).toBe(false);
    expect(t.emu.stats().requests.total).toBe(0); // node routes are not API requests

    const again = await fetch(u.url, { method: 'POST', body: form([{ name: 'c.txt', data: 'second' }]) });
    expect(again.status).toBe(403);
    expect((await again.json()).error).toBe('upload URL already used or expired');
    expect(existsSync(vol('up/dir/c.txt'))).toBe(false);
  });

  it('overwrites an existing file and defaults to the volume root', async () => {
    const u = await uploadUrl();
    await fetch(u.url, { method: 'POST', body: form([{ name: 'root.txt', data: 'v1' }]) });
    const u2 = await uploadUrl('/');
    const r = await fetch(u2.url, { method: 'POST', body: form([{ name: 'root.txt', data: 'v2' }]) });
    expect(r.status).toBe(200);
    expect(readFileSync(vol('root.txt'), 'utf8')).toBe('v2');
  });

  it('keeps a UTF-8 file name as sent (FormData sends it raw, the node keeps the bytes)', async () => {
    const u = await uploadUrl('utf8');
    const r = await fetch(u.url, { method: 'POST', body: form([{ name: 'caf\u00e9 \u00fcber.bin', data: 'x' }]) });
    expect(r.status).toBe(200);
    expect(readdirSync(vol('utf8'))).toEqual(['caf\u00e9 \u00fcber.bin']);
  });

  it('refuses a part over the per-file limit with 413 and keeps nothing of it', async () => {
    const u = await uploadUrl('big');
    const res = await fetch(u.url, { method: 'POST', body: form([{ name: 'small.txt', data: 'ok' }, { name: 'huge.bin', data: new Uint8Array(64 * 1024 + 1) }]) });
    expect(res.status).toBe(413);
    expect(existsSync(vol('big/huge.bin'))).toBe(false);
    expect(readFileSync(vol('big/small.txt'), 'utf8')).toBe('ok');
    expect(readdirSync(vol('big')).filter((n) => n.startsWith('.'))).toEqual([]); // no temp files left
  });

  it('uses only plain file names: a name with a path or ".." is refused', async () => {
    for (const name of ['../escape.txt', 'a/b.txt', '..']) {
      const u = await uploadUrl('names');
      const res = await fetch(u.url, { method: 'POST', body: form([{ name, data: 'x' }]) });
      expect(res.status, name).toBe(400);
    }
    expect(existsSync(vol('escape.txt'))).toBe(false);
    expect(existsSync(path.join(t.emu.volume, '..', 'escape.txt'))).toBe(false);
    expect(readdirSync(vol('names'))).toEqual([]);
  });

  it('refuses a request that is not multipart, and unknown tokens', async () => {
    const u = await uploadUrl('nm');
    expect((await fetch(u.url, { method: 'POST', body: 'raw', headers: { 'Content-Type': 'text/plain' } })).status).toBe(400);
    expect((await fetch(`${t.emu.baseUrl}/__node/upload/not-a-token`, { method: 'POST', body: form([{ name: 'a', data: 'a' }]) })).status).toBe(403);
  });
});

describe('SignedUrls', () => {
  it('expires after 15 minutes and is spent by its first use', () => {
    let now = 0;
    const s = new SignedUrls(() => now);
    const a = s.issue({ kind: 'upload', deploymentId: 'd', rel: 'x' });
    const b = s.issue({ kind: 'upload', deploymentId: 'd', rel: 'y' });
    expect(a.expiresAt).toBe(new Date(15 * 60_000).toISOString());
    now = 15 * 60_000 - 1;
    expect(s.consume('download', a.token)).toBeNull(); // wrong kind does not spend it
    expect(s.consume('upload', a.token)).toMatchObject({ rel: 'x' });
    expect(s.consume('upload', a.token)).toBeNull();
    now = 15 * 60_000;
    expect(s.consume('upload', b.token)).toBeNull();
  });
});
