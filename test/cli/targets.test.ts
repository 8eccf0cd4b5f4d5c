import { existsSync } from 'node:fs';
import { readdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startEmulator, type RunningEmulator } from '../../src/emulator/index.js';
import { acquireLock } from '../../src/state/lock.js';
import { deploymentStateDir } from '../../src/state/paths.js';
import { runCli } from '../helpers/cli.js';
import { tempDir, writeTree } from '../helpers/tree.js';

let emu: RunningEmulator;
let prod: { id: string; volume: string };
let work: { dir: string; cleanup: () => Promise<void> };

/** Key and address only: the deployment comes from the selected target. */
const env = (extra: Record<string, string> = {}) => ({ HOSTSYNC_API_KEY: emu.apiKey, HOSTSYNC_BASE_URL: emu.baseUrl, ...extra });
const cli = (args: string[], extra: Record<string, string> = {}) => runCli([...args, '--dir', work.dir], env(extra));

beforeAll(async () => {
  emu = await startEmulator({});
  prod = await emu.createDeployment({ name: 'prod' });
});
afterAll(async () => {
  await emu?.close();
});
beforeEach(async () => {
  work = await tempDir('hostsync-targets-');
  await writeFile(
    path.join(work.dir, 'hostsync.json'),
    JSON.stringify({
      restart: 'never',
      targets: { staging: { deployment: emu.deploymentId }, production: { deployment: prod.id, confirm: true } },
      defaultTarget: 'staging',
    }),
  );
});
afterEach(async () => {
  await work.cleanup();
});

describe('targets', () => {
  it('a push goes only to the selected target, and the report names it', async () => {
    await writeTree(work.dir, { 'a.txt': 'staging only' });
    const r = await cli(['push', '--no-apply']);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(`target staging, deployment ${emu.deploymentId}`);
    expect(await readFile(path.join(emu.volume, 'a.txt'), 'utf8')).toBe('staging only');
    expect(existsSync(path.join(prod.volume, 'a.txt'))).toBe(false);
  });

  it('confirm: true refuses without --yes in a pipe (exit 2) and sends nothing; --yes goes ahead', async () => {
    await writeTree(work.dir, { 'b.txt': 'to production' });
    const before = emu.stats().requests.total;
    const refused = await cli(['push', '--target', 'production', '--no-apply']);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/target production .*--yes/);
    expect(emu.stats().requests.total).toBe(before);
    expect(existsSync(path.join(prod.volume, 'b.txt'))).toBe(false);

    const viaEnv = await cli(['push', '--no-apply', '--yes'], { HOSTSYNC_TARGET: 'production' });
    expect(viaEnv.code).toBe(0);
    expect(viaEnv.stdout).toContain(`target production, deployment ${prod.id}`);
    expect(await readFile(path.join(prod.volume, 'b.txt'), 'utf8')).toBe('to production');
    // a dry run changes nothing, so it needs no confirmation
    expect((await cli(['push', '-t', 'production', '--dry-run'])).code).toBe(0);
  });

  it('the flag beats HOSTSYNC_TARGET, and an unknown target is exit 2 naming the known ones', async () => {
    await writeTree(work.dir, { 'c.txt': 'x' });
    const r = await cli(['status', '-t', 'staging'], { HOSTSYNC_TARGET: 'production' });
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('target staging');
    const bad = await cli(['status', '-t', 'qa']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/target "qa".*staging, production/);
    const clash = await cli(['status', '-t', 'production'], { HOSTSYNC_DEPLOYMENT: emu.deploymentId });
    expect(clash.code).toBe(2);
    expect(clash.stderr).toMatch(/contradicts target "production"/);
  });

  it('two targets keep separate state: a push to one leaves the other still to be pushed', async () => {
    await writeTree(work.dir, { 'd.txt': 'v1' });
    expect((await cli(['push', '--no-apply'])).code).toBe(0);
    expect((await cli(['push', '-t', 'production', '--yes', '--no-apply'])).code).toBe(0);
    await writeTree(work.dir, { 'd.txt': 'v2' });
    expect((await cli(['push', '--no-apply'])).code).toBe(0);

    const staging = JSON.parse((await cli(['status', '--json'])).stdout);
    const production = JSON.parse((await cli(['status', '--json', '-t', 'production'])).stdout);
    expect(staging.changes).toEqual([]);
    expect(production.changes).toEqual([expect.objectContaining({ path: 'd.txt' })]);
    expect(production.deployment).toMatchObject({ id: prod.id, target: 'production' });
    const dirs = (await readdir(path.join(work.dir, '.hostsync'), { withFileTypes: true })).filter((d) => d.isDirectory()).map((d) => d.name);
    expect(dirs.filter((d) => d.startsWith(emu.deploymentId))).toHaveLength(1);
    expect(dirs.filter((d) => d.startsWith(prod.id))).toHaveLength(1);
  });

  it('each target has its own lock: staging held by another process does not block production', async () => {
    await writeTree(work.dir, { 'e.txt': 'x' });
    const held = await acquireLock(deploymentStateDir(work.dir, emu.baseUrl, emu.deploymentId), 'watch');
    try {
      const blocked = await cli(['push', '--no-apply']);
      expect(blocked.code).toBe(3);
      expect(existsSync(path.join(emu.volume, 'e.txt'))).toBe(false);
      const other = await cli(['push', '-t', 'production', '--yes', '--no-apply']);
      expect(other.code).toBe(0);
      expect(await readFile(path.join(prod.volume, 'e.txt'), 'utf8')).toBe('x');
    } finally {
      await held.release();
    }
  });

  it('`targets` lists them with the selected one; `init --target` adds one', async () => {
    const add = await cli(['init', '--target', 'qa', '--deployment', 'dep_qa']);
    expect(add.code).toBe(0);
    const file = JSON.parse(await readFile(path.join(work.dir, 'hostsync.json'), 'utf8'));
    expect(file.targets.qa).toEqual({ deployment: 'dep_qa' });
    expect(file.restart).toBe('never');

    const listed = JSON.parse((await cli(['targets', '--json'], { HOSTSYNC_TARGET: 'production' })).stdout);
    expect(listed.selected).toBe('production');
    expect(listed.targets.map((t: { name: string }) => t.name)).toEqual(['staging', 'production', 'qa']);
    expect(listed.targets[1]).toMatchObject({ deployment: prod.id, confirm: true, selected: true, isDefault: false });
    const text = await cli(['targets']);
    expect(text.stdout).toMatch(/\* staging\s+deployment/);
  });
});
