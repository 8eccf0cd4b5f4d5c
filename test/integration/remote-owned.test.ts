/**
 * Issue 47, item 5: a bot's data on the deployment is the app's. With "remoteOwned" in
 * hostsync.json, `data/bot.sqlite` there (written by the app, here by hand on the volume)
 * and a different one here: push, --force, --mirror, undo and a watch cycle never change
 * it; a whole-tree pull leaves it; `pull data/bot.sqlite` brings it; status lists it apart.
 */
import { existsSync } from 'node:fs';
import { readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { RunningEmulator } from '../../src/emulator/index.js';
import { emulatorPerFile } from '../helpers/emulator.js';
import { startWatch } from '../../src/watch/daemon.js';
import { tempDir, writeTree } from '../helpers/tree.js';
import { runCli } from '../helpers/cli.js';
import { envFor } from '../helpers/push.js';
import { Recorder, watchSession } from '../watch/harness.js';

const { current } = emulatorPerFile();
let emu: RunningEmulator;
let work: { dir: string; cleanup: () => Promise<void> };
beforeEach(async () => {
  emu = current();
  work = await tempDir('hostsync-remote-owned-');
});
afterEach(async () => {
  await work.cleanup();
});

const OWNED = { remoteOwned: ['data/', '*.sqlite'] };
const BOT = "const Database = require('better-sqlite3');\nconst db = new Database('data/bot.sqlite');\n";
const cli = (...args: string[]) => runCli(['--dir', work.dir, ...args], envFor(emu));
const onVolume = (rel: string) => readFile(path.join(emu.volume, rel), 'utf8');
const here = (rel: string) => readFile(path.join(work.dir, rel), 'utf8');
/** The app writes its data on the deployment. */
const appWrites = (files: Record<string, string>) => writeTree(emu.volume, files);

async function project(config: object = OWNED): Promise<void> {
  await writeTree(work.dir, { 'hostsync.json': JSON.stringify(config), 'bot.js': BOT, 'data/bot.sqlite': 'LOCAL test data\n' });
}

describe('push leaves the app data on the deployment', () => {
  it('push, push --force and push --mirror write the code and never change, delete or list as remote-only the data', async () => {
    await project();
    await appWrites({ 'data/bot.sqlite': 'APP 1\n', 'data/state.json': '{"n":1}\n' });
    const first = await cli('push', '--no-apply');
    expect(first.code, first.stderr).toBe(0);
    expect(await onVolume('bot.js')).toBe(BOT);
    expect(await onVolume('data/bot.sqlite')).toBe('APP 1\n');

    await appWrites({ 'data/bot.sqlite': 'APP 2\n' });
    await writeFile(path.join(work.dir, 'bot.js'), `${BOT}// v2\n`);
    await writeFile(path.join(work.dir, 'data/bot.sqlite'), 'LOCAL edited\n');
    const forced = await cli('push', '--force', '--no-apply', '--json');
    expect(forced.code, forced.stderr).toBe(0);
    expect(JSON.parse(forced.stdout)).toMatchObject({ conflicts: [], overwrites: [] });
    expect(await onVolume('bot.js')).toBe(`${BOT}// v2\n`);
    expect(await onVolume('data/bot.sqlite')).toBe('APP 2\n');

    // The local copy gone and --mirror: nothing of the app's data is deleted.
    await rm(path.join(work.dir, 'data'), { recursive: true });
    const mirrored = await cli('push', '--mirror', '--force', '--no-apply');
    expect(mirrored.code, mirrored.stderr).toBe(0);
    expect(await onVolume('data/bot.sqlite')).toBe('APP 2\n');
    expect(await onVolume('data/state.json')).toBe('{"n":1}\n');
  });

  it('status lists the data apart, never as a change, a conflict or remote-only', async () => {
    await project();
    await appWrites({ 'data/bot.sqlite': 'APP\n', 'data/state.json': '{}\n' });
    await cli('push', '--no-apply');
    await appWrites({ 'data/bot.sqlite': 'APP later\n' });
    const json = await cli('status', '--json');
    expect(json.code, json.stderr).toBe(0);
    expect(JSON.parse(json.stdout)).toMatchObject({ changes: [], conflicts: [], drift: [], remoteOnly: 0, remoteOwned: 2, remoteOwnedPaths: ['data/bot.sqlite', 'data/state.json'] });
    const human = await cli('status');
    expect(human.stdout).toContain('App data on the deployment (remoteOwned; never touched): 2 files;');
    expect(human.stdout).toContain('  =  data/bot.sqlite');
    expect(human.stdout).toContain('Nothing to push');
  });
});

describe('undo leaves the app data on the deployment', () => {
  it('undo after a push takes back the code only', async () => {
    await project();
    await appWrites({ 'data/bot.sqlite': 'APP 1\n' });
    expect((await cli('push', '--no-apply')).code).toBe(0);
    await writeFile(path.join(work.dir, 'bot.js'), `${BOT}// v2\n`);
    expect((await cli('push', '--no-apply')).code).toBe(0);
    await appWrites({ 'data/bot.sqlite': 'APP 2\n' });
    const undone = await cli('undo', '--no-apply');
    expect(undone.code, undone.stderr).toBe(0);
    expect(await onVolume('bot.js')).toBe(BOT);
    expect(await onVolume('data/bot.sqlite')).toBe('APP 2\n');
  });

  it('a push made before "remoteOwned" was set, which created the data file: undo neither deletes it nor refuses because the app wrote it since', async () => {
    await project({});
    expect((await cli('push', '--no-apply')).code).toBe(0);
    expect(await onVolume('data/bot.sqlite')).toBe('LOCAL test data\n');
    await appWrites({ 'data/bot.sqlite': 'APP\n' });
    await writeFile(path.join(work.dir, 'hostsync.json'), JSON.stringify(OWNED));
    const undone = await cli('undo', '--no-apply', '--json');
    expect(undone.code, undone.stderr).toBe(0);
    expect(JSON.parse(undone.stdout).undone[0].remoteOwned).toEqual(['data/bot.sqlite']);
    expect(existsSync(path.join(emu.volume, 'bot.js'))).toBe(false);
    expect(await onVolume('data/bot.sqlite')).toBe('APP\n');
  });
});

describe('pull brings the app data down only by name', () => {
  it('a whole-tree pull leaves it; `pull data/bot.sqlite` brings it (a different local copy is a conflict, --force takes it)', async () => {
    await project();
    await appWrites({ 'data/bot.sqlite': 'APP\n' });
    expect((await cli('push', '--no-apply')).code).toBe(0);
    await appWrites({ 'data/bot.sqlite': 'APP later\n', 'data/new.json': '{}\n' });

    const whole = await cli('pull');
    expect(whole.code, whole.stderr).toBe(0);
    expect(await here('data/bot.sqlite')).toBe('LOCAL test data\n');
    expect(existsSync(path.join(work.dir, 'data/new.json'))).toBe(false);
    expect(whole.stdout).toContain('2 app data files on the deployment not pulled (remoteOwned: data/bot.sqlite, ...)');

    const named = await cli('pull', 'data/bot.sqlite');
    expect(named.code).toBe(3);
    expect(await here('data/bot.sqlite')).toBe('LOCAL test data\n');
    const forced = await cli('pull', '--force', 'data/bot.sqlite');
    expect(forced.code, forced.stderr).toBe(0);
    expect(await here('data/bot.sqlite')).toBe('APP later\n');

    // Taken once, the copy here follows the deployment's by name; a push still never sends it.
    await appWrites({ 'data/bot.sqlite': 'APP again\n' });
    expect((await cli('pull', 'data')).code).toBe(0);
    expect(await here('data/bot.sqlite')).toBe('APP again\n');
    expect(await here('data/new.json')).toBe('{}\n');
    await writeFile(path.join(work.dir, 'data/bot.sqlite'), 'LOCAL again\n');
    expect((await cli('push', '--no-apply')).code).toBe(0);
    expect(await onVolume('data/bot.sqlite')).toBe('APP again\n');
  });

  it('with no local copy, `pull data/bot.sqlite` brings it and a whole-tree pull does not', async () => {
    await writeTree(work.dir, { 'hostsync.json': JSON.stringify(OWNED), 'bot.js': BOT });
    await appWrites({ 'data/bot.sqlite': 'APP\n' });
    expect((await cli('push', '--no-apply')).code).toBe(0);
    expect((await cli('pull')).code).toBe(0);
    expect(existsSync(path.join(work.dir, 'data/bot.sqlite'))).toBe(false);
    expect((await cli('pull', 'data/bot.sqlite')).code).toBe(0);
    expect(await here('data/bot.sqlite')).toBe('APP\n');
  });
});

describe('a watch cycle leaves the app data on the deployment', () => {
  it('edits and a deletion of the local copy go nowhere; the code beside them syncs', async () => {
    await project();
    await appWrites({ 'data/bot.sqlite': 'APP\n' });
    const session = await watchSession(emu, work.dir, emu.deploymentId);
    const rec = new Recorder();
    const daemon = await startWatch(session, { noApply: true, onEvent: rec.onEvent });
    try {
      await daemon.whenIdle();
      expect(await onVolume('bot.js')).toBe(BOT);
      await writeFile(path.join(work.dir, 'data/bot.sqlite'), 'LOCAL edited in watch\n');
      await writeFile(path.join(work.dir, 'data/other.sqlite'), 'new local\n');
      await writeFile(path.join(work.dir, 'bot.js'), `${BOT}// v2\n`);
      while ((await onVolume('bot.js')) !== `${BOT}// v2\n`) await sleep(20);
      await rm(path.join(work.dir, 'data/bot.sqlite'));
      await writeFile(path.join(work.dir, 'bot.js'), `${BOT}// v3\n`);
      while ((await onVolume('bot.js')) !== `${BOT}// v3\n`) await sleep(20);
      await daemon.whenIdle();
      expect(await onVolume('data/bot.sqlite')).toBe('APP\n');
      expect(existsSync(path.join(emu.volume, 'data/other.sqlite'))).toBe(false);
      expect(rec.cycles().flatMap((c) => [...c.conflicts, ...c.drift].map((x) => x.path))).toEqual([]);
      expect(rec.cycles().flatMap((c) => c.changes.map((x) => (x.kind === 'rename' ? x.to : x.path))).filter((p) => p.startsWith("data/"))).toEqual([]);
    } finally {
      await daemon.stop();
      await session.close();
    }
  });
});

describe('init proposes the app data', () => {
  it('a bot whose code writes data/bot.sqlite gets "remoteOwned": ["data/", "*.sqlite"], and says why', async () => {
    await writeTree(work.dir, { 'package.json': '{"name":"bot","main":"bot.js","dependencies":{"discord.js":"14","better-sqlite3":"11"}}\n', 'bot.js': BOT });
    const r = await cli('init');
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(await here('hostsync.json')).remoteOwned).toEqual(['data/', '*.sqlite']);
    expect(r.stdout).toContain('app data: wrote {"remoteOwned":["data/","*.sqlite"]}');
    expect(r.stdout).toContain('bot.js names a data/ path and writes (new Database)');
  });
});
