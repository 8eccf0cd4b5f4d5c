import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startEmulator } from '../../src/emulator/index.js';
import { call } from './api-client.js';

let data: string;
afterEach(() => rmSync(data, { recursive: true, force: true }));

describe('emulator --data keeps keys and deployments across restarts', () => {
  it('same key, same ids, same files; a deleted deployment stays deleted', async () => {
    data = mkdtempSync(path.join(os.tmpdir(), 'hostsync-emu-persist-'));
    const a = await startEmulator({ dataDir: data });
    const bot = await a.createDeployment({ name: 'bot' });
    const gone = await a.createDeployment({ name: 'gone' });
    const w = await call(a, 'POST', '~/files/writeMany', { body: { files: [{ path: 'kept.txt', content: 'still here\n' }] } });
    expect(w.status, JSON.stringify(w.json)).toBe(200);
    // (A file in it: a safety backup of an empty volume fails today, which is not what this test is about.)
    writeFileSync(path.join(gone.volume, 'x.txt'), 'x');
    const del = await call(a, 'DELETE', `/deployments/${gone.id}`);
    expect(del.status, JSON.stringify(del.json)).toBe(200);
    await a.close();

    const b = await startEmulator({ dataDir: data });
    try {
      expect(b.apiKey).toBe(a.apiKey);
      expect(b.deploymentId).toBe(a.deploymentId);
      const list = await call(b, 'GET', '/deployments');
      expect(list.status).toBe(200);
      expect(list.json.deployments.map((d: { id: string; name: string }) => `${d.id}:${d.name}`).sort()).toEqual(
        [`${a.deploymentId}:app`, `${bot.id}:bot`].sort(),
      );
      const read = await call(b, 'GET', '~/files/content', { query: { path: 'kept.txt' } });
      expect(read.json.content).toBe('still here\n');
    } finally {
      await b.close();
    }
  });

  it('an unreadable record starts afresh instead of failing', async () => {
    data = mkdtempSync(path.join(os.tmpdir(), 'hostsync-emu-persist-'));
    writeFileSync(path.join(data, 'emulator.json'), '{not json');
    const emu = await startEmulator({ dataDir: data });
    expect((await call(emu, 'GET', '/deployments')).json.deployments).toHaveLength(1);
    await emu.close();
  });

  it('a temporary data folder keeps nothing', async () => {
    data = mkdtempSync(path.join(os.tmpdir(), 'hostsync-emu-persist-'));
    const one = await startEmulator({});
    const two = await startEmulator({});
    expect(two.apiKey).not.toBe(one.apiKey);
    await Promise.all([one.close(), two.close()]);
  });
});
