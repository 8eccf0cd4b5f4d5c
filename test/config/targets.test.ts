/** Targets in hostsync.json: selection, overrides, and the same key checks as the top level. */
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/config.js';
import { tempDir } from '../helpers/tree.js';

let work: { dir: string; cleanup: () => Promise<void> };
let home: { dir: string; cleanup: () => Promise<void> };
beforeEach(async () => {
  work = await tempDir('hostsync-targets-cfg-');
  home = await tempDir('hostsync-xdg-');
});
afterEach(async () => {
  await work.cleanup();
  await home.cleanup();
});

const env = (extra: Record<string, string> = {}) => ({ HOSTSYNC_API_KEY: 'k', XDG_CONFIG_HOME: home.dir, ...extra });
const writeConfig = (value: unknown) => writeFile(path.join(work.dir, 'hostsync.json'), JSON.stringify(value));
const load = (target?: string, e = env()) => loadConfig({ flags: { dir: work.dir, ...(target ? { target } : {}) }, env: e });

const TWO = {
  baseUrl: 'http://127.0.0.1:9',
  restart: 'auto',
  envFile: '.env',
  targets: {
    staging: { deployment: 'dep_s' },
    production: { deployment: 'dep_p', confirm: true, restart: 'never', envFile: '.env.production' },
  },
  defaultTarget: 'staging',
};

describe('targets in hostsync.json', () => {
  it('flag > HOSTSYNC_TARGET > defaultTarget; a target overrides the top level key by key', async () => {
    await writeConfig(TWO);
    expect(await load()).toMatchObject({ target: 'staging', deploymentId: 'dep_s', restart: 'auto', confirm: false, envFile: '.env' });
    expect(await load(undefined, env({ HOSTSYNC_TARGET: 'production' }))).toMatchObject({ target: 'production', deploymentId: 'dep_p', restart: 'never', confirm: true, envFile: '.env.production' });
    expect(await load('staging', env({ HOSTSYNC_TARGET: 'production' }))).toMatchObject({ target: 'staging', deploymentId: 'dep_s' });
  });

  it('an unknown key inside a target exits 2 naming the target and the closest known key', async () => {
    await writeConfig({ ...TWO, targets: { ...TWO.targets, staging: { deployment: 'dep_s', confrim: true } } });
    await expect(load()).rejects.toMatchObject({ exitCode: 2, message: expect.stringMatching(/unknown key "targets\.staging\.confrim": did you mean "targets\.staging\.confirm"/) });
  });

  it('a target may not nest targets', async () => {
    await writeConfig({ ...TWO, targets: { ...TWO.targets, staging: { deployment: 'dep_s', targets: {} } } });
    await expect(load()).rejects.toMatchObject({ exitCode: 2, message: expect.stringMatching(/unknown key "targets\.staging\.targets"/) });
  });

  it("a target's baseUrl named only by the file must be trusted like the top level's", async () => {
    await writeConfig({ ...TWO, targets: { ...TWO.targets, production: { deployment: 'dep_p', baseUrl: 'https://collect.evil.example' } } });
    await expect(load('production')).rejects.toMatchObject({ exitCode: 2, message: expect.stringMatching(/not trusted/) });
    expect((await load('staging')).baseUrl).toBe('http://127.0.0.1:9');
  });
});
