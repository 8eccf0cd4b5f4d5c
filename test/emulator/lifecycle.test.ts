import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { startEmulator } from '../../src/emulator/index.js';
import { call } from './api-client.js';

describe('startEmulator', () => {
  it('binds 127.0.0.1 and prints the ready line of DESIGN.md', async () => {
    const emu = await startEmulator();
    try {
      expect(emu.baseUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      const ready = JSON.parse(emu.readyLine());
      expect(Object.keys(ready)).toEqual(['baseUrl', 'apiKey', 'deploymentId', 'volume']);
      expect(ready).toEqual({ baseUrl: emu.baseUrl, apiKey: emu.apiKey, deploymentId: emu.deploymentId, volume: emu.volume });
      expect(emu.readyLine()).not.toContain('\n');
      expect(path.isAbsolute(emu.volume)).toBe(true);
      expect((await call(emu, 'GET', '~')).status).toBe(200);
    } finally {
      await emu.close();
    }
    // Its own temp data dir is removed on close.
    expect(existsSync(emu.volume)).toBe(false);
  });

  it('keeps a data dir it was given', async () => {
    const dataDir = mkdtempSync(path.join(os.tmpdir(), 'hostsync-emu-keep-'));
    const emu = await startEmulator({ dataDir });
    await emu.close();
    expect(existsSync(emu.volume)).toBe(true);
    expect(emu.volume.startsWith(dataDir) || emu.volume.includes(path.basename(dataDir))).toBe(true);
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('refuses bad options with a one-line message naming the fix', async () => {
    const first = await startEmulator();
    try {
      const port = Number(new URL(first.baseUrl).port);
      await expect(startEmulator({ port })).rejects.toThrow(new RegExp(`port ${port} is already in use.*--port`));
    } finally {
      await first.close();
    }
    await expect(startEmulator({ faults: '5xx=3' })).rejects.toThrow(/5xx/);
    await expect(startEmulator({ keys: ['bad'] })).rejects.toThrow(/TOKEN:scope/);
    await expect(startEmulator({ rateLimit: 0 })).rejects.toThrow(/--rate-limit/);
    await expect(startEmulator({ port: 70000 })).rejects.toThrow(/--port/);
  });

  it('applies run-time latency and faults through its handle and admin routes', async () => {
    const emu = await startEmulator({ latencyMs: 0 });
    try {
      emu.setLatency(5);
      const f = await (await fetch(`${emu.baseUrl}/__emulator/faults`)).json();
      expect(f.latencyMs).toBe(5);
      expect(() => emu.setLatency(-1)).toThrow();
      expect(() => emu.setFaults('nope=1')).toThrow(/nope/);
      const reset = await fetch(`${emu.baseUrl}/__emulator/stats/reset`, { method: 'POST' });
      expect(await reset.json()).toEqual({ requests: { total: 0, byOperation: {} }, rateLimited: 0 });
      expect((await fetch(`${emu.baseUrl}/elsewhere`)).status).toBe(404);
      expect(emu.stats().requests.total).toBe(0);
    } finally {
      await emu.close();
    }
  });
});
