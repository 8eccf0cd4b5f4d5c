import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/config.js';
import { findProjectRoot } from '../../src/config/find-root.js';
import { savePersisted } from '../../src/emulator/persist.js';
import { tempDir } from '../helpers/tree.js';

let work: { dir: string; cleanup: () => Promise<void> };
beforeEach(async () => {
  work = await tempDir('hostsync-deploy-cfg-');
});
afterEach(async () => {
  await work.cleanup();
});

const load = (cwd: string, file?: unknown) =>
  (file === undefined ? Promise.resolve() : writeFile(path.join(work.dir, 'hostsync.json'), JSON.stringify(file))).then(() =>
    loadConfig({ flags: {}, cwd, env: {}, requireRemote: false }),
  );

describe('hostsync.json startup, size, dir, build', () => {
  it('reads them; a version given as a number is kept as the string the API answers with', async () => {
    const c = await load(work.dir, { startup: { runtime: 'nodejs', runtimeVersion: 20, entryFile: 'bot.js' }, size: { ramMB: 512 }, build: 'npm run build' });
    expect(c.startup).toEqual({ runtime: 'nodejs', runtimeVersion: '20', entryFile: 'bot.js' });
    expect(c.size).toEqual({ ramMB: 512 });
    expect(c.build).toBe('npm run build');
  });

  it('refuses what the API would not take, naming the key (exit 2)', async () => {
    await expect(load(work.dir, { startup: { entry: 'bot.js' } })).rejects.toThrow(/"startup" has an unknown key "entry"/);
    await expect(load(work.dir, { size: { ramMB: 10 } })).rejects.toThrow(/size"\.ramMB must be a whole number, at least 64/);
    await expect(load(work.dir, { dir: '../elsewhere' })).rejects.toThrow(/folder inside the project/);
    await expect(load(work.dir, { dir: 'dist' })).rejects.toThrow(/not a folder: build the project first/);
  });

  it('"dir" syncs that folder; the project root keeps hostsync.json and the state', async () => {
    await mkdir(path.join(work.dir, 'dist'));
    const c = await load(work.dir, { dir: './dist/' });
    expect(c.root).toBe(path.join(work.dir, 'dist'));
    expect(c.projectRoot).toBe(work.dir);
  });
});

describe('the project root, found upward', () => {
  it('from a subfolder, the folder holding hostsync.json; --dir as given; none above: the current directory', async () => {
    await writeFile(path.join(work.dir, 'hostsync.json'), '{}');
    await mkdir(path.join(work.dir, 'src/deep'), { recursive: true });
    expect(await findProjectRoot(undefined, path.join(work.dir, 'src/deep'))).toBe(work.dir);
    expect(await findProjectRoot('.', path.join(work.dir, 'src'))).toBe(path.join(work.dir, 'src'));
    const c = await loadConfig({ flags: {}, cwd: path.join(work.dir, 'src'), env: {}, requireRemote: false });
    expect(c.root).toBe(work.dir);
  });
});

describe('the emulator record', () => {
  it('is written again when its folder was emptied under it (a build cleaning its output), not an ENOENT crash', () => {
    const gone = path.join(work.dir, 'emptied', 'emulator');
    expect(() => savePersisted(gone, { apiKey: 'k', deployments: [] })).not.toThrow();
  });
});
