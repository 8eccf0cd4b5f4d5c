/**
 * Issue 28, items 13-15: commands that must honour the selected target like push does:
 * `trust` trusts the target's "baseUrl", `undo` asks a `"confirm": true` target first, and
 * `link` writes the target's deployment.
 */
import { existsSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startEmulator, type RunningEmulator } from '../../src/emulator/index.js';
import { isTrusted } from '../../src/config/trust.js';
import { runCli, TEST_CONFIG_HOME } from '../helpers/cli.js';
import { tempDir, writeTree } from '../helpers/tree.js';

let emu: RunningEmulator;
let prod: { id: string; volume: string };
let spare: { id: string; volume: string };
let work: { dir: string; cleanup: () => Promise<void> };

const env = (extra: Record<string, string> = {}) => ({ HOSTSYNC_API_KEY: emu.apiKey, HOSTSYNC_BASE_URL: emu.baseUrl, ...extra });
const cli = (args: string[], extra: Record<string, string> = {}) => runCli([...args, '--dir', work.dir], env(extra));
const writeConfig = (config: unknown) => writeFile(path.join(work.dir, 'hostsync.json'), JSON.stringify(config));
const readConfig = async (): Promise<Record<string, any>> => JSON.parse(await readFile(path.join(work.dir, 'hostsync.json'), 'utf8'));

beforeAll(async () => {
  emu = await startEmulator({});
  prod = await emu.createDeployment({ name: 'prod' });
  spare = await emu.createDeployment({ name: 'app-2' });
});
afterAll(async () => {
  await emu?.close();
});
beforeEach(async () => {
  work = await tempDir('hostsync-target-commands-');
});
afterEach(async () => {
  await work.cleanup();
});

describe('trust and a target\'s "baseUrl" (item 13)', () => {
  it('status names `hostsync trust`, and `hostsync trust -t prod` trusts exactly that address', async () => {
    const url = 'https://prod-28.example.net';
    await writeConfig({ targets: { prod: { deployment: 'dep_x', baseUrl: url } } });
    // No HOSTSYNC_BASE_URL: the address comes from the file only.
    const plain = { HOSTSYNC_API_KEY: emu.apiKey };
    const refused = await runCli(['status', '-t', 'prod', '--dir', work.dir], plain);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/"baseUrl" of target prod .*run `hostsync trust --target prod`/);

    const unnamed = await runCli(['trust', '--dir', work.dir], plain);
    expect(unnamed.code).toBe(2);
    expect(unnamed.stderr).toMatch(/only in targets \(prod\).*--target/);

    const trusted = await runCli(['trust', '-t', 'prod', '--dir', work.dir], plain);
    expect(trusted.stderr).toBe('');
    expect(trusted.code).toBe(0);
    expect(trusted.stdout).toContain(url);
    expect(await isTrusted(url, { XDG_CONFIG_HOME: TEST_CONFIG_HOME })).toBe(true);
  });

  it('with "defaultTarget", a plain `hostsync trust` takes that target\'s address', async () => {
    const url = 'https://default-28.example.net';
    await writeConfig({ defaultTarget: 'live', targets: { live: { deployment: 'dep_y', baseUrl: url } } });
    const r = await runCli(['trust', '--json', '--dir', work.dir], { HOSTSYNC_API_KEY: emu.apiKey });
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ ok: true, origin: url });
  });
});

describe('undo on a "confirm": true target (item 14)', () => {
  it('is refused without --yes and no terminal (exit 2), restoring nothing; --yes goes ahead', async () => {
    await writeConfig({ restart: 'never', targets: { production: { deployment: prod.id, confirm: true } } });
    await writeTree(work.dir, { 'a.txt': 'one\n', 'b.txt': 'one\n', 'c.txt': 'one\n' });
    expect((await cli(['push', '-t', 'production', '--yes', '--no-apply'])).code).toBe(0);
    await writeTree(work.dir, { 'a.txt': 'two\n', 'b.txt': 'two\n', 'c.txt': 'two\n' });
    expect((await cli(['push', '-t', 'production', '--yes', '--no-apply'])).code).toBe(0);

    const refused = await cli(['undo', '-t', 'production', '--no-apply']);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/target production .*asks for confirmation.*--yes/);
    for (const f of ['a.txt', 'b.txt', 'c.txt']) expect(await readFile(path.join(prod.volume, f), 'utf8')).toBe('two\n');

    // A dry run changes nothing, so it needs no confirmation.
    expect((await cli(['undo', '-t', 'production', '--dry-run'])).code).toBe(0);

    const yes = await cli(['undo', '-t', 'production', '--no-apply', '--yes']);
    expect(yes.code).toBe(0);
    for (const f of ['a.txt', 'b.txt', 'c.txt']) expect(await readFile(path.join(prod.volume, f), 'utf8')).toBe('one\n');
  });
});

describe('link with a target (item 15)', () => {
  it('writes the target\'s deployment, not the top level\'s, and says which target', async () => {
    await writeConfig({ deployment: emu.deploymentId, targets: { prod: { deployment: prod.id } } });
    const r = await cli(['link', '-t', 'prod', '--name', 'app-2']);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/Linked target prod to app-2/);
    const cfg = await readConfig();
    expect(cfg.targets.prod.deployment).toBe(spare.id);
    expect(cfg.deployment).toBe(emu.deploymentId);
    expect(existsSync(path.join(work.dir, 'hostsync.json'))).toBe(true);

    // Commands on the target now reach the linked deployment.
    const listed = await cli(['targets', '--json']);
    expect(JSON.parse(listed.stdout).targets).toEqual(expect.arrayContaining([expect.objectContaining({ name: 'prod', deployment: spare.id })]));
  });
});
