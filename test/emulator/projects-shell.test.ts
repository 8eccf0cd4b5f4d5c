import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, startTestEmulator, type TestEmulator } from './api-client.js';

let t: TestEmulator;
beforeAll(async () => {
  t = await startTestEmulator({ keys: ['read-only:deployments:read'] });
});
afterAll(() => t.close());

describe('projects and the deployments in them', () => {
  it('deleting a project deletes its deployments, at once, files gone in the background', async () => {
    const p = (await call(t.emu, 'POST', '/projects', { body: { name: 'bots' } })).json;
    expect(p).toMatchObject({ name: 'bots', isOwner: true });
    const dep = await t.emu.createDeployment({ name: 'bot' });
    expect((await call(t.emu, 'POST', `/deployments/${dep.id}/move`, { body: { toProjectId: p.id } })).json.projectId).toBe(p.id);
    expect((await call(t.emu, 'DELETE', `/projects/${p.id}`)).json).toEqual({ ok: true });
    expect((await call(t.emu, 'GET', `/deployments/${dep.id}`)).status).toBe(404);
    const listed = (await call(t.emu, 'GET', '/projects')).json.projects.map((x: any) => x.id);
    expect(listed).not.toContain(p.id);
    await expect.poll(() => existsSync(dep.volume), { timeout: 10_000 }).toBe(false);
  });

  it('update renames; the short record has no startup or connection', async () => {
    const dep = await t.emu.createDeployment({ name: 'before' });
    const r = (await call(t.emu, 'PATCH', `/deployments/${dep.id}`, { body: { name: 'after' } })).json;
    expect(r.name).toBe('after');
    expect(r).not.toHaveProperty('startup');
    expect(r).not.toHaveProperty('connection');
  });

  it('resize draws on the pool: account.get counts it, and over-asking is refused', async () => {
    const dep = await t.emu.createDeployment({ name: 'big' });
    const before = (await call(t.emu, 'GET', '/account')).json.quota.used.ramMB;
    const r = await call(t.emu, 'PATCH', `/deployments/${dep.id}/resize`, { body: { ramMB: 2048, cpuPct: 100, storageMB: 5120 } });
    expect(r.json.resources.ramMB).toBe(2048);
    expect((await call(t.emu, 'GET', '/account')).json.quota.used.ramMB).toBe(before - 256 + 2048);
    const pool = (await call(t.emu, 'GET', '/account')).json.quota.pool.ramMB;
    const over = await call(t.emu, 'PATCH', `/deployments/${dep.id}/resize`, { body: { ramMB: pool + 1, cpuPct: 100, storageMB: 5120 } });
    expect(over.status).toBe(400);
    expect(over.json.error).toMatch(/pool/);
  });

  it('sftp needs deployments:write as well as read', async () => {
    const a = await call(t.emu, 'GET', '~/sftp', { key: 'read-only' });
    expect(a.status).toBe(403);
    expect(a.json.error).toContain('deployments:write');
  });
});

describe('deployments.shell', () => {
  it('runs in the volume with the app environment, reports the exit code and where it ended', async () => {
    writeFileSync(path.join(t.emu.volume, 'marker.txt'), 'here\n');
    const r = (await call(t.emu, 'POST', '~/shell', { body: { command: 'cat marker.txt; mkdir -p sub && cd sub; echo "port=$SERVER_PORT"; exit 7' } })).json;
    expect(r.exitCode).toBe(7);
    expect(r.output).toContain('here');
    expect(r.output).toMatch(/port=\d*/);
    expect(r.cwd).toBe('/home/container/sub');
    expect(r.target).toBe('temporary');
    expect(r.untrusted).toBe(true);
  });

  it('a background job does not outlive the command', async () => {
    const r = (await call(t.emu, 'POST', '~/shell', { body: { command: 'sleep 60 & echo $! > bg.pid; echo started' } })).json;
    expect(r.output).toContain('started');
    expect(r.backgroundStopped).toBeGreaterThanOrEqual(1);
    const pid = Number(readFileSync(path.join(t.emu.volume, 'bg.pid'), 'utf8'));
    // A killed orphan may linger as a zombie until init reaps it: dead all the same.
    const alive = (): boolean => {
      try {
        return !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
      } catch {
        return false;
      }
    };
    await expect.poll(alive).toBe(false);
  });

  it('timeout stops the command; maxChars keeps the start and the end', async () => {
    const slow = (await call(t.emu, 'POST', '~/shell', { body: { command: 'sleep 30', timeout: 1 } })).json;
    expect(slow.timedOut).toBe(true);
    const long = (await call(t.emu, 'POST', '~/shell', { body: { command: 'echo START; seq 1 20000; echo END', maxChars: 500 } })).json;
    expect(long.truncated).toBe(true);
    expect(long.outputLimit).toBe(true);
    expect(long.output.startsWith('START')).toBe(true);
    expect(long.output.trimEnd().endsWith('END')).toBe(true);
    expect(long.output.length).toBeLessThanOrEqual(500);
  });

  it('cwd outside the volume is refused', async () => {
    const r = await call(t.emu, 'POST', '~/shell', { body: { command: 'pwd', cwd: '/home/container/../../etc' } });
    expect(r.status).toBe(400);
  });
});
