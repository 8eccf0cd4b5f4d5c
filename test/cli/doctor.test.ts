/** `hostsync doctor` against the emulator: each finding named with its fix, few requests. */
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startEmulator, type RunningEmulator } from '../../src/emulator/index.js';
import { runCli } from '../helpers/cli.js';
import { tempDir, writeTree } from '../helpers/tree.js';
import { testKey } from '../helpers/keys.js';

const READ_ONLY_KEY = testKey('doctor_readonly');
let emu: RunningEmulator;
let work: { dir: string; cleanup: () => Promise<void> };

const env = (deployment: string, key = emu.apiKey) => ({ HOSTSYNC_API_KEY: key, HOSTSYNC_BASE_URL: emu.baseUrl, HOSTSYNC_DEPLOYMENT: deployment });
const doctor = async (deployment: string, key?: string) => {
  const r = await runCli(['doctor', '--json', '--dir', work.dir], env(deployment, key));
  return { code: r.code, out: JSON.parse(r.stdout), stderr: r.stderr };
};
const check = (out: any, id: string) => out.checks.find((c: any) => c.id === id);

beforeAll(async () => {
  emu = await startEmulator({ keys: [`${READ_ONLY_KEY}:deployments:read,files:read,env:read,account:read`] });
});
afterAll(async () => {
  await emu?.close();
});
beforeEach(async () => {
  work = await tempDir('hostsync-doctor-');
  await writeFile(path.join(work.dir, 'hostsync.json'), JSON.stringify({ restart: 'always' }));
});
afterEach(async () => {
  await work.cleanup();
});

describe('hostsync doctor', () => {
  it('names a variable the code reads but nobody set, a missing entry file and too little RAM; exit 1; few requests, counted', async () => {
    const created = await fetch(`${emu.baseUrl}/api/v1/deployments`, {
      method: 'POST',
      headers: { authorization: `Bearer ${emu.apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'small', source: 'blank', runtime: 'nodejs', ramMB: 256 }),
    }).then((r) => r.json() as Promise<any>);
    const id = created.deployment.id as string;
    // The code lives in bot.js, but the deployment starts index.js, which the project lacks.
    await writeTree(work.dir, { 'package.json': '{"name":"bot","dependencies":{"discord.js":"^14.16.0"}}', 'bot.js': 'client.login(process.env.DISCORD_TOKEN);\n' });
    expect((await runCli(['push', '--no-apply', '--dir', work.dir], env(id))).code).toBe(0);

    const { code, out } = await doctor(id);
    expect(code).toBe(1);
    expect(out.ok).toBe(false);
    expect(check(out, 'env')).toMatchObject({ ok: false, detail: expect.stringMatching(/DISCORD_TOKEN is read by bot\.js but not set/), fix: expect.stringMatching(/env push/) });
    expect(check(out, 'entry')).toMatchObject({ ok: false, detail: expect.stringMatching(/index\.js is not in/) });
    expect(check(out, 'ram')).toMatchObject({ ok: false, detail: expect.stringMatching(/256 MB RAM.*512 MB/), fix: expect.stringMatching(/"size": \{"ramMB": 512\} in hostsync\.json, or deployments\.resize/) });
    for (const id of ['key', 'scopes', 'runtime', 'disk', 'ignore', 'drift', 'rate', 'clock']) expect(check(out, id)?.ok, id).toBe(true);
    // Each request is counted, and there are few of them.
    const byOp = Object.values(out.requests.byOperation as Record<string, number>).reduce((a, b) => a + b, 0);
    expect(out.requests.total).toBe(byOp);
    expect(out.requests.total).toBeLessThanOrEqual(10);

    // A real process (not the CLI host): exit 1 when a check fails is the process's own.
    const text = await runCli(['doctor', '--dir', work.dir], env(id), { process: true });
    expect(text.code).toBe(1);
    expect(text.stdout).toMatch(/✗ RAM/);
    expect(text.stdout).toMatch(/fix: resize the deployment to at least 512 MB/);
    expect(text.stdout).toMatch(/checks failed \(\d+ requests\)/);
  });

  it('a project that is in order passes every check: exit 0, and nothing on the deployment changed', async () => {
    await writeTree(work.dir, {
      'package.json': '{"name":"web","dependencies":{}}',
      'index.js': "require('http').createServer((q, s) => s.end('ok')).listen(process.env.SERVER_PORT);\n",
    });
    expect((await runCli(['push', '--dir', work.dir], env(emu.deploymentId))).code).toBe(0);
    const before = (await fetch(`${emu.baseUrl}/api/v1/deployments/${emu.deploymentId}`, { headers: { authorization: `Bearer ${emu.apiKey}` } }).then((r) => r.json())) as any;

    const { code, out } = await doctor(emu.deploymentId);
    expect(out.checks.filter((c: any) => !c.ok)).toEqual([]);
    expect(code).toBe(0);
    expect(out.checks).toHaveLength(12);
    const after = (await fetch(`${emu.baseUrl}/api/v1/deployments/${emu.deploymentId}`, { headers: { authorization: `Bearer ${emu.apiKey}` } }).then((r) => r.json())) as any;
    expect(after.name).toBe(before.name);
    expect(after.state).toBe('running');
    expect((await runCli(['status', '--json', '--dir', work.dir], env(emu.deploymentId))).stdout).toContain('"changes":[]');
  });

  it('a key without the write scopes is named with the scopes it lacks', async () => {
    await writeTree(work.dir, { 'index.js': '' });
    const { code, out } = await doctor(emu.deploymentId, READ_ONLY_KEY);
    expect(code).toBe(1);
    expect(check(out, 'scopes')).toMatchObject({ ok: false, detail: 'missing files:write, deployments:write, env:write' });
  });
});
