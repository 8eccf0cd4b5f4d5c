/** `doctor --deployment dep_doesnotexist` (#29): the 404 is the one finding; no check blames the key's scopes for it. */
import { afterEach, describe, expect, it } from 'vitest';
import { startEmulator, type RunningEmulator } from '../../src/emulator/index.js';
import { runCli } from '../helpers/cli.js';
import { envFor } from '../helpers/push.js';
import { tempDir, writeTree } from '../helpers/tree.js';

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  await Promise.all(cleanups.splice(0).map((c) => c()));
});

describe('doctor on a deployment that does not exist', () => {
  it('reports it not found, and the other checks do not ask for scopes the key holds', async () => {
    const emu: RunningEmulator = await startEmulator({});
    const work = await tempDir('hostsync-doctor-404-');
    cleanups.push(() => emu.close(), work.cleanup);
    await writeTree(work.dir, { 'index.js': 'setInterval(() => {}, 1000);\n' });
    const r = await runCli(['doctor', '--json', '--deployment', 'dep_doesnotexist', '--dir', work.dir], { ...envFor(emu), HOSTSYNC_DEPLOYMENT: undefined });
    expect(r.code).toBe(1);
    const out = JSON.parse(r.stdout) as { checks: Array<{ id: string; ok: boolean; detail: string; fix?: string }> };
    const dep = out.checks.find((c) => c.id === 'deployment')!;
    expect(dep).toMatchObject({ ok: false });
    expect(JSON.stringify(dep)).toContain('dep_doesnotexist not found');
    const blamed = out.checks.filter((c) => c.id !== 'deployment' && /give the key/.test(JSON.stringify(c)));
    expect(blamed).toEqual([]);
  });
});
