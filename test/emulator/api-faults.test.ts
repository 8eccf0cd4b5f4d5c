import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { parseFaultSpec } from '../../src/emulator/index.js';
import { FaultInjector } from '../../src/emulator/faults.js';
import { call, startTestEmulator, type TestEmulator } from './api-client.js';

let t: TestEmulator;
beforeAll(async () => {
  t = await startTestEmulator({ seed: 42 });
});
afterEach(() => t.emu.setFaults(''));
afterAll(() => t.close());

async function admin(path: string, body?: unknown): Promise<{ status: number; json: any }> {
  const res = await fetch(`${t.emu.baseUrl}${path}`, {
    method: body === undefined ? 'GET' : 'POST',
    headers: body === undefined ? {} : { 'Content-Type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, json: await res.json() };
}

describe('parseFaultSpec', () => {
  it('parses kind=probability lists', () => {
    expect(parseFaultSpec('5xx=0.1,reset=0.05,429=0.02,partial=0.1')).toEqual({ '5xx': 0.1, reset: 0.05, '429': 0.02, partial: 0.1, html403: 0 });
    expect(parseFaultSpec('')).toEqual({ '5xx': 0, reset: 0, '429': 0, partial: 0, html403: 0 });
    expect(parseFaultSpec('html403=0.1')).toMatchObject({ html403: 0.1 });
    expect(parseFaultSpec(' reset=1 ')).toMatchObject({ reset: 1 });
  });
  it('throws one line naming the bad part', () => {
    expect(() => parseFaultSpec('5xx=2')).toThrow(/"2".*5xx/);
    expect(() => parseFaultSpec('boom=0.1')).toThrow(/boom/);
    expect(() => parseFaultSpec('5xx')).toThrow(/"5xx"/);
    expect(() => parseFaultSpec('5xx=abc')).toThrow(/abc/);
    expect(() => parseFaultSpec('5xx=0.1,5xx=0.2')).toThrow(/twice/);
    for (const bad of ['5xx=2', 'boom=0.1']) {
      try {
        parseFaultSpec(bad);
      } catch (err) {
        expect((err as Error).message).not.toContain('\n');
      }
    }
  });
  it('draws the same sequence for the same seed', () => {
    const a = new FaultInjector('5xx=0.5', 7);
    const b = new FaultInjector('5xx=0.5', 7);
    const sa = Array.from({ length: 50 }, () => a.roll('5xx'));
    const sb = Array.from({ length: 50 }, () => b.roll('5xx'));
    expect(sa).toEqual(sb);
    expect(sa.some(Boolean)).toBe(true);
    expect(sa.every(Boolean)).toBe(false);
  });
});

describe('injected faults', () => {
  it('5xx answers 503 JSON before doing anything', async () => {
    t.emu.setFaults('5xx=1');
    const a = await call(t.emu, 'POST', '~/files/content', { body: { path: 'never.txt', content: 'x' } });
    expect(a.status).toBe(503);
    expect(a.json.code).toBe('unavailable');
    t.emu.setFaults('');
    expect((await call(t.emu, 'GET', '~/files/content', { query: { path: 'never.txt' } })).status).toBe(404);
  });

  it('429 answers with Retry-After: 1 and counts as rate limited', async () => {
    t.emu.resetStats();
    t.emu.setFaults('429=1');
    const a = await call(t.emu, 'GET', '~/files');
    expect(a.status).toBe(429);
    expect(a.headers.get('retry-after')).toBe('1');
    expect(a.headers.get('x-ratelimit-remaining')).toMatch(/^\d+$/);
    expect(t.emu.stats().rateLimited).toBe(1);
  });

  it('reset drops the connection, before or after the handler ran', async () => {
    t.emu.setFaults('reset=1');
    let ran = 0;
    for (let i = 0; i < 12; i++) {
      await expect(call(t.emu, 'POST', '~/files/content', { body: { path: `reset/${i}.txt`, content: 'x' } })).rejects.toThrow();
    }
    t.emu.setFaults('');
    for (let i = 0; i < 12; i++) {
      const r = await call(t.emu, 'GET', '~/files/content', { query: { path: `reset/${i}.txt` } });
      if (r.status === 200) ran++;
    }
    // With a seeded 50/50 split over 12 calls, both outcomes occur: the client cannot know which.
    expect(ran).toBeGreaterThan(0);
    expect(ran).toBeLessThan(12);
  });

  it('partial makes writeMany stop part-way, reporting the next file as failed', async () => {
    t.emu.setFaults('partial=1');
    const files = Array.from({ length: 5 }, (_, i) => ({ path: `partial/${i}.txt`, content: `${i}` }));
    const a = await call(t.emu, 'POST', '~/files/writeMany', { body: { files } });
    expect(a.status).toBe(200);
    expect(a.json.ok).toBe(false);
    expect(a.json.failed).toHaveLength(1);
    expect(a.json.failed[0].error).toBe('node write failed (injected)');
    const k = a.json.written.length;
    expect(k).toBeLessThan(5);
    expect(a.json.failed[0].path).toBe(files[k]!.path);
    expect(a.json.written.map((w: any) => w.path)).toEqual(files.slice(0, k).map((f) => f.path));
    t.emu.setFaults('');
    for (let i = 0; i < 5; i++) {
      const r = await call(t.emu, 'GET', '~/files/content', { query: { path: `partial/${i}.txt` } });
      expect(r.status).toBe(i < k ? 200 : 404);
    }
  });

  it('applies 5xx and reset to the node routes too', async () => {
    const u = (await call(t.emu, 'POST', '~/files/upload-url', { body: { path: 'node-faults' } })).json;
    const form = (): FormData => {
      const f = new FormData();
      f.append('files', new Blob(['x']), 'n.txt');
      return f;
    };
    t.emu.setFaults('5xx=1');
    expect((await fetch(u.url, { method: 'POST', body: form() })).status).toBe(503);
    t.emu.setFaults('reset=1');
    await expect(fetch(u.url, { method: 'POST', body: form() })).rejects.toThrow();
  });

  it('is settable at run time through the admin route, which validates and is never faulted', async () => {
    const set = await admin('/__emulator/faults', { faults: '5xx=1', latencyMs: 0 });
    expect(set.status).toBe(200);
    expect(set.json.faults['5xx']).toBe(1);
    expect((await call(t.emu, 'GET', '~/files')).status).toBe(503);
    // Admin routes still answer.
    expect((await admin('/__emulator/stats')).status).toBe(200);
    const bad = await admin('/__emulator/faults', { faults: '5xx=7' });
    expect(bad.status).toBe(400);
    expect(bad.json.error).toContain('5xx');
    expect((await admin('/__emulator/faults', { latencyMs: -1 })).status).toBe(400);
    await admin('/__emulator/faults', { faults: '' });
    expect((await call(t.emu, 'GET', '~/files')).status).toBe(200);
  });
});
