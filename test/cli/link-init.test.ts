import { readFile, rename, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startEmulator, type RunningEmulator } from '../../src/emulator/index.js';
import { chooseDeployment } from '../../src/app/link.js';
import { runCli } from '../helpers/cli.js';
import { tempDir } from '../helpers/tree.js';

let emu: RunningEmulator;
let second: { id: string };
let work: { dir: string; cleanup: () => Promise<void> };

const readConfig = async (): Promise<Record<string, unknown>> => JSON.parse(await readFile(path.join(work.dir, 'hostsync.json'), 'utf8'));
/** The key and the address only: link is what decides the deployment. */
const env = () => ({ HOSTSYNC_API_KEY: emu.apiKey, HOSTSYNC_BASE_URL: emu.baseUrl });

beforeAll(async () => {
  emu = await startEmulator({});
  second = await emu.createDeployment({ name: 'bot' });
});
afterAll(async () => {
  await emu?.close();
});
beforeEach(async () => {
  work = await tempDir('hostsync-link-');
});
afterEach(async () => {
  await work.cleanup();
});

describe('link', () => {
  it('against two deployments writes the one chosen by name, then by id, keeping the rest of the file', async () => {
    const byName = await runCli(['link', '--name', 'BOT', '--dir', work.dir], env());
    expect(byName.code).toBe(0);
    expect(byName.stdout).toMatch(/Linked to bot/);
    expect(await readConfig()).toMatchObject({ deployment: second.id, baseUrl: emu.baseUrl, restart: 'auto' });

    const cfg = await readConfig();
    await writeFile(path.join(work.dir, 'hostsync.json'), JSON.stringify({ ...cfg, restart: 'never' }));
    const byId = await runCli(['link', '--deployment', emu.deploymentId, '--json', '--dir', work.dir], env());
    expect(byId.code).toBe(0);
    const out = JSON.parse(byId.stdout);
    expect(out).toMatchObject({ ok: true, deployment: { id: emu.deploymentId, name: 'app' }, config: { created: false } });
    expect(out.config.changes).toEqual([{ key: 'deployment', from: second.id, to: emu.deploymentId }]);
    expect(await readConfig()).toMatchObject({ deployment: emu.deploymentId, restart: 'never' });
  });

  it('without a terminal and with several deployments, lists them and asks for a flag (exit 2, no file)', async () => {
    const r = await runCli(['link', '--dir', work.dir], env());
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(second.id);
    expect(r.stderr).toMatch(/pass --deployment ID or --name NAME/);
    await expect(readFile(path.join(work.dir, 'hostsync.json'))).rejects.toThrow();
  });

  it('checks the choice against the API: an unknown id or name is exit 2 and writes nothing', async () => {
    const id = await runCli(['link', '--deployment', 'dep_nope', '--dir', work.dir], env());
    expect(id.code).toBe(2);
    expect(id.stderr).toMatch(/dep_nope is not among the \d+ this key can see/);
    const name = await runCli(['link', '--name', 'ap', '--dir', work.dir], env());
    expect(name.code).toBe(2);
    expect(name.stderr).toMatch(/did you mean "app"\?/);
    await expect(readFile(path.join(work.dir, 'hostsync.json'))).rejects.toThrow();
  });

  it('chooses the only deployment, refuses an ambiguous name, and asks when it can', async () => {
    const a = { id: 'a', name: 'web', state: 'running' };
    const b = { id: 'b', name: 'web', state: 'offline' };
    expect(await chooseDeployment([a], {})).toBe(a);
    await expect(chooseDeployment([a, b], { name: 'web' })).rejects.toThrow(/2 deployments are named "web"/);
    expect(await chooseDeployment([a, b], {}, async () => 1)).toBe(b);
    await expect(chooseDeployment([], {})).rejects.toThrow(/sees no deployment/);
  });
});

describe('init', () => {
  it('updates a field of an existing hostsync.json, says so, and keeps the others', async () => {
    await writeFile(path.join(work.dir, 'hostsync.json'), JSON.stringify({ deployment: 'old', ignore: ['tmp/'] }));
    const r = await runCli(['init', '--deployment', 'new', '--dir', work.dir], {});
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/updated hostsync\.json: deployment old -> new/);
    expect(await readConfig()).toEqual({ deployment: 'new', ignore: ['tmp/'] });

    const json = await runCli(['init', '--deployment', 'new', '--json', '--dir', work.dir], {});
    expect(JSON.parse(json.stdout)).toMatchObject({ ok: true, config: { created: false, changes: [] }, syncignore: 'kept' });
  });

  it('recognises the kind: a discord.js bot gets kind worker with its ready line, an express app kind web', async () => {
    await writeFile(path.join(work.dir, 'package.json'), JSON.stringify({ name: 'bot', dependencies: { 'discord.js': '^14.16.0' } }));
    const bot = await runCli(['init', '--dir', work.dir], {});
    expect(bot.code).toBe(0);
    expect((await readConfig()).health).toEqual({ kind: 'worker', ready: 'Logged in as' });
    expect(bot.stdout).toContain('health: worker (discord.js in package.json)');
    expect(bot.stdout).toContain('a push waits for a console line matching /Logged in as/ after each restart');

    // An existing "health" is the user's: init keeps it and says what it would have picked.
    await writeFile(path.join(work.dir, 'package.json'), JSON.stringify({ name: 'web', dependencies: { express: '^4.21.0' } }));
    const kept = await runCli(['init', '--json', '--dir', work.dir], {});
    expect(JSON.parse(kept.stdout).detected).toMatchObject({ kind: 'web', package: 'express', written: false });
    expect((await readConfig()).health).toEqual({ kind: 'worker', ready: 'Logged in as' });

    await rename(path.join(work.dir, 'hostsync.json'), path.join(work.dir, 'old.json'));
    const web = await runCli(['init', '--json', '--dir', work.dir], {});
    expect(JSON.parse(web.stdout)).toMatchObject({ ok: true, detected: { kind: 'web', package: 'express', manifest: 'package.json', written: true }, config: { created: true, added: ['health', 'startup', 'size', 'hotPaths'] } });
    expect((await readConfig()).health).toEqual({ kind: 'web', path: '/' });
  });

  it('proposes "install": "on-change" for a bot whose entry file it knows (issue 47, item 4), not for a web app', async () => {
    await writeFile(path.join(work.dir, 'package.json'), JSON.stringify({ name: 'bot', main: 'bot.js', dependencies: { 'discord.js': '^14.16.0' } }));
    await writeFile(path.join(work.dir, 'bot.js'), "console.log('Logged in as bot');\n");
    await writeFile(path.join(work.dir, 'server.js'), "require('express');\n");
    const bot = await runCli(['init', '--dir', work.dir], {});
    expect(bot.code).toBe(0);
    expect(await readConfig()).toMatchObject({ install: 'on-change', startup: { runtime: 'nodejs', entryFile: 'bot.js' } });
    expect(bot.stdout).toContain('install: wrote {"install":"on-change"}');
    expect(bot.stdout).toContain('(and deployments:shell, for the installs)');

    await rename(path.join(work.dir, 'hostsync.json'), path.join(work.dir, 'old.json'));
    await writeFile(path.join(work.dir, 'package.json'), JSON.stringify({ name: 'web', main: 'server.js', dependencies: { express: '^4.21.0' } }));
    await runCli(['init', '--dir', work.dir], {});
    expect((await readConfig()).install).toBeUndefined();
  });

  it('adds health to an existing hostsync.json that has none', async () => {
    await writeFile(path.join(work.dir, 'hostsync.json'), JSON.stringify({ deployment: 'd1' }));
    await writeFile(path.join(work.dir, 'requirements.txt'), 'py-cord==2.6.0\n');
    const r = await runCli(['init', '--dir', work.dir], {});
    expect(r.stdout).toContain('updated hostsync.json: health');
    // With how the project starts and the size its install needs (#29).
    expect(await readConfig()).toEqual({ deployment: 'd1', health: { kind: 'worker' }, startup: { runtime: 'python' }, size: { ramMB: 512 }, hotPaths: [] });
  });

  it('the error for an invalid hostsync.json suggests a fix that works', async () => {
    const file = path.join(work.dir, 'hostsync.json');
    await writeFile(file, '{"deployment": ');
    const bad = await runCli(['status', '--dir', work.dir], { HOSTSYNC_API_KEY: 'k', HOSTSYNC_BASE_URL: 'http://127.0.0.1:1' });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/not valid JSON .*: fix it, or move it away and run `hostsync init`/);
    // Following the advice works.
    await rename(file, `${file}.bak`);
    const init = await runCli(['init', '--deployment', 'd1', '--dir', work.dir], {});
    expect(init.code).toBe(0);
    expect(await readConfig()).toMatchObject({ deployment: 'd1' });
  });
});
