import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startEmulator } from '../../src/emulator/index.js';
import { call } from './api-client.js';
import { makeRepo } from './git-repo.js';

let data: string;
afterEach(() => rmSync(data, { recursive: true, force: true }));

describe('emulator --data keeps keys, deployments, git links and env across restarts', () => {
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

  it('the linked git source and the environment variables survive a restart, a secret still masked', async () => {
    data = mkdtempSync(path.join(os.tmpdir(), 'hostsync-emu-persist-'));
    const repo = await makeRepo();
    const a = await startEmulator({ dataDir: data });
    const base = `/deployments/${a.deploymentId}`;
    expect((await call(a, 'POST', `${base}/sync`, { body: { repo } })).status).toBe(200);
    expect((await call(a, 'PATCH', `${base}/git`, { body: { autoPull: true } })).status).toBe(200);
    expect((await call(a, 'POST', `${base}/env`, { body: { key: 'TOKEN', value: 's3cret', secret: true } })).status).toBe(200);
    expect((await call(a, 'POST', `${base}/env`, { body: { key: 'MODE', value: 'prod' } })).status).toBe(200);
    expect((await call(a, 'POST', `${base}/env`, { body: { key: 'GONE', value: 'x' } })).status).toBe(200);
    expect((await call(a, 'DELETE', `${base}/env/GONE`)).status).toBe(200);
    await a.close();

    const b = await startEmulator({ dataDir: data });
    try {
      const git = await call(b, 'GET', `${base}/git`);
      expect(git.json).toMatchObject({ linked: true, repo, branch: 'main', autoPull: true });
      const env = await call(b, 'GET', `${base}/env`);
      const user = (env.json.variables as { key: string; value: string; secret: boolean; system: boolean }[]).filter((v) => !v.system);
      expect(user.map((v) => v.key).sort()).toEqual(['MODE', 'TOKEN']);
      expect(user.find((v) => v.key === 'MODE')!.value).toBe('prod');
      const token = user.find((v) => v.key === 'TOKEN')!;
      expect(token.secret).toBe(true);
      expect(token.value).not.toBe('s3cret');
    } finally {
      await b.close();
      rmSync(repo, { recursive: true, force: true });
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
