/**
 * One output model: whatever happened, `--json` prints one object with the command's
 * keys; a failure adds exactly `error` and `exitCode`.
 */
import { rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator, type RunningEmulator } from '../../src/emulator/index.js';
import { runCli } from '../helpers/cli.js';
import { envFor } from '../helpers/push.js';
import { tempDir, writeTree } from '../helpers/tree.js';
import { testKey } from '../helpers/keys.js';

let emu: RunningEmulator;
let work: { dir: string; cleanup: () => Promise<void> };
beforeAll(async () => {
  emu = await startEmulator({});
  work = await tempDir('hostsync-json-');
});
afterAll(async () => {
  await emu?.close();
  await work?.cleanup();
});

const one = (stdout: string): Record<string, unknown> => {
  const lines = stdout.trim().split('\n');
  expect(lines).toHaveLength(1);
  return JSON.parse(lines[0]!) as Record<string, unknown>;
};
const keys = (o: Record<string, unknown>): string[] => Object.keys(o).sort();
const withFailure = (o: Record<string, unknown>): string[] => [...Object.keys(o), 'error', 'exitCode'].sort();

describe('push --json and status --json', () => {
  it('print the same keys on success, refusal, a bad key and a bad configuration (plus error and exitCode)', async () => {
    const env = envFor(emu);
    const files: Record<string, string> = {};
    for (let i = 0; i < 30; i++) files[`f${i}.txt`] = `${i}\n`;
    await writeTree(work.dir, files);

    const ok = await runCli(['push', '--no-apply', '--json', '--dir', work.dir], env);
    expect(ok.code).toBe(0);
    const success = one(ok.stdout);
    expect(success).toMatchObject({ ok: true, changes: { written: 30 } });
    expect(success).not.toHaveProperty('error');
    const statusOk = await runCli(['status', '--json', '--dir', work.dir], env);
    const statusSuccess = one(statusOk.stdout);
    expect(statusSuccess).toMatchObject({ ok: true, changes: [] });

    // Refused by the mass-delete guard (exit 3).
    for (let i = 0; i < 30; i++) await rm(path.join(work.dir, `f${i}.txt`));
    await writeFile(path.join(work.dir, 'keep.txt'), 'k\n');
    const refused = await runCli(['push', '--no-apply', '--json', '--dir', work.dir], env);
    expect(refused.code).toBe(3);
    expect(one(refused.stdout)).toMatchObject({ ok: false, exitCode: 3, error: expect.stringMatching(/allow-mass-delete/) });
    expect(keys(one(refused.stdout))).toEqual(withFailure(success));

    // A key the service refuses (exit 2), never echoed.
    const unknownKey = testKey('unknown');
    const badKey = { ...env, HOSTSYNC_API_KEY: unknownKey };
    for (const [cmd, shape] of [['push', success], ['status', statusSuccess]] as const) {
      const res = await runCli([cmd, '--json', '--dir', work.dir], badKey);
      expect(res.code).toBe(2);
      expect(one(res.stdout)).toMatchObject({ ok: false, exitCode: 2 });
      expect(keys(one(res.stdout))).toEqual(withFailure(shape));
      expect(res.stdout + res.stderr).not.toContain(unknownKey);
    }

    // A broken hostsync.json (exit 2): nothing ran, the shape is still whole.
    await writeFile(path.join(work.dir, 'hostsync.json'), '{ not json');
    for (const [cmd, shape] of [['push', success], ['status', statusSuccess]] as const) {
      const res = await runCli([cmd, '--json', '--dir', work.dir], env);
      expect(res.code).toBe(2);
      const out = one(res.stdout);
      expect(out).toMatchObject({ ok: false, exitCode: 2, error: expect.stringMatching(/hostsync\.json/) });
      expect(keys(out)).toEqual(withFailure(shape));
    }
  });

  it('a conflict is a failure too: ok false, the reason in error, exit 3', async () => {
    const env = envFor(emu);
    await rm(path.join(work.dir, 'hostsync.json'), { force: true });
    await writeTree(work.dir, { 'c.txt': 'local\n' });
    await writeTree(emu.volume, { 'c.txt': 'remote\n' });
    const res = await runCli(['push', '--no-apply', '--allow-mass-delete', '--json', '--dir', work.dir], env);
    expect(res.code).toBe(3);
    expect(one(res.stdout)).toMatchObject({ ok: false, exitCode: 3, conflicts: [{ path: 'c.txt', reason: expect.any(String) }], error: expect.stringMatching(/c\.txt/) });
  });

  it('emulator --json: a start that fails reports the keys of the ready line (null) plus error and exitCode', async () => {
    const ready = JSON.parse(emu.readyLine()) as Record<string, unknown>;
    const res = await runCli(['emulator', '--json', '--faults', 'nonsense=1'], {});
    expect(res.code).toBe(2);
    const out = one(res.stdout);
    expect(keys(out)).toEqual(withFailure(ready));
    expect(out).toMatchObject({ baseUrl: null, exitCode: 2, error: expect.stringMatching(/nonsense/) });
  });
});

describe('--json when the command never ran', () => {
  it('a usage error commander catches (unknown flag) prints the same keys as the command failing on a broken hostsync.json', async () => {
    const broken = await tempDir('hostsync-json-broken-');
    try {
      await writeFile(path.join(broken.dir, 'hostsync.json'), '{ not json');
      const env = envFor(emu);
      const cases: [string, string[]][] = [
        ['push', ['push']],
        ['status', ['status']],
        ['init', ['init']],
        ['link', ['link']],
        ['trust', ['trust']],
        ['targets', ['targets']],
        ['exec', ['exec', '--', 'true']],
        ['diff', ['diff']],
        ['pull', ['pull']],
        ['resolve', ['resolve', '--ours', 'x.txt']],
        ['undo', ['undo']],
        ['history', ['history']],
        ['logs', ['logs']],
        ['doctor', ['doctor']],
        ['env list', ['env', 'list']],
        ['env diff', ['env', 'diff']],
        ['env push', ['env', 'push']],
        ['env pull', ['env', 'pull']],
      ];
      for (const [name, args] of cases) {
        // `env push`: the command words first, then the flags, then the rest.
        const words = name.split(' ');
        const rest = args.slice(words.length);
        // Every command once as a real process (not the CLI host: test/helpers/cli-host.ts):
        // its module loads from the bundle and the process exits 2 with its JSON.
        const [bad, usage] = await Promise.all([
          runCli([...words, '--json', '--dir', broken.dir, ...rest], env, { process: true }),
          runCli([...words, '--json', '--no-such-flag', '--dir', broken.dir, ...rest], env),
        ]);
        expect(bad.code, `${name}: ${bad.stdout}${bad.stderr}`).toBe(2);
        expect(usage.code, name).toBe(2);
        const failed = one(bad.stdout);
        const refused = one(usage.stdout);
        expect(failed, name).toMatchObject({ ok: false, error: expect.stringMatching(/hostsync\.json/) });
        expect(refused, name).toMatchObject({ ok: false, exitCode: 2, error: "unknown option '--no-such-flag'" });
        expect(keys(refused), name).toEqual(keys(failed));
      }
      // The streams end with a fatal event, as a watch that cannot start does.
      const [watchBad, watchUsage, devUsage] = await Promise.all([
        runCli(['watch', '--json', '--dir', broken.dir], env),
        runCli(['watch', '--json', '--no-such-flag'], env),
        runCli(['dev', '--json', '--no-such-flag'], env),
      ]);
      const fatal = one(watchBad.stdout);
      expect(fatal).toMatchObject({ type: 'fatal', exitCode: 2 });
      for (const r of [watchUsage, devUsage]) {
        expect(r.code).toBe(2);
        expect(keys(one(r.stdout))).toEqual(keys(fatal));
      }
      const emulatorUsage = await runCli(['emulator', '--json', '--port', 'abc'], {});
      expect(keys(one(emulatorUsage.stdout))).toEqual(withFailure(JSON.parse(emu.readyLine()) as Record<string, unknown>));
    } finally {
      await broken.cleanup();
    }
  }, 180_000);
});
