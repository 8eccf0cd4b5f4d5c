import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator, type RunningEmulator } from '../../src/emulator/index.js';
import { runCli } from '../helpers/cli.js';
import { envFor } from '../helpers/push.js';
import { tempDir } from '../helpers/tree.js';

let emu: RunningEmulator;
let work: { dir: string; cleanup: () => Promise<void> };
beforeAll(async () => {
  emu = await startEmulator({});
  work = await tempDir('hostsync-exec-');
});
afterAll(async () => {
  await emu?.close();
  await work?.cleanup();
});

describe('hostsync exec', () => {
  it('prints the output and exits with the command exit code', async () => {
    await writeFile(path.join(emu.volume, 'data.txt'), 'from the deployment\n');
    // A real process (not the CLI host): its own exit code is the remote command's.
    const r = await runCli(['exec', '--', 'sh', '-c', 'cat data.txt; exit 5'], envFor(emu), { cwd: work.dir, process: true });
    expect(r.stdout).toBe('from the deployment\n');
    expect(r.code).toBe(5);
  });

  it('quotes several words so arguments keep their spaces', async () => {
    const r = await runCli(['exec', '--', 'printf', '%s|', 'a b', 'c'], envFor(emu), { cwd: work.dir });
    expect(r.stdout.trim()).toBe('a b|c|');
    expect(r.code).toBe(0);
  });

  it('--json gives one object with the exit code, output and request count; --timeout stops it', async () => {
    const r = await runCli(['exec', '--json', '--timeout', '1', '--', 'sleep 20'], envFor(emu), { cwd: work.dir });
    const j = JSON.parse(r.stdout);
    expect(j).toMatchObject({ ok: false, timedOut: true, requests: { total: 1, byOperation: { 'deployments.shell': 1 } } });
    expect(r.code).toBe(j.exitCode);
    expect(r.code).not.toBe(0);
  });

  it('a key without deployments:shell is a configuration error (exit 2), key never printed', async () => {
    const weak = 'exec-weak-key-0123456789';
    const emu2 = await startEmulator({ keys: [`${weak}:files:read`] });
    try {
      const r = await runCli(['exec', '--', 'true'], { ...envFor(emu2), HOSTSYNC_API_KEY: weak }, { cwd: work.dir });
      expect(r.code).toBe(2);
      expect(r.stderr).toContain('deployments:shell');
      expect(r.stderr + r.stdout).not.toContain(weak);
    } finally {
      await emu2.close();
    }
  });
});
