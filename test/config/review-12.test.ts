/** hostsync.json hardening from issue #12: unknown keys, a BOM, and a base URL the key must not follow blindly. */
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/config.js';
import { CONFIG_KEYS } from '../../src/config/keys.js';
import { runTrust } from '../../src/app/trust.js';
import { tempDir } from '../helpers/tree.js';

let work: { dir: string; cleanup: () => Promise<void> };
let home: { dir: string; cleanup: () => Promise<void> };
beforeEach(async () => {
  work = await tempDir('hostsync-cfg-');
  home = await tempDir('hostsync-xdg-');
});
afterEach(async () => {
  await work.cleanup();
  await home.cleanup();
});

const env = (extra: Record<string, string> = {}) => ({ HOSTSYNC_API_KEY: 'k', HOSTSYNC_DEPLOYMENT: 'dep_1', XDG_CONFIG_HOME: home.dir, ...extra });
const writeConfig = (value: unknown, prefix = '') => writeFile(path.join(work.dir, 'hostsync.json'), prefix + JSON.stringify(value));
const load = (e = env()) => loadConfig({ flags: { dir: work.dir }, env: e });

describe('hostsync.json keys (review 8)', () => {
  it('an unknown key exits 2 naming it and the closest known key', async () => {
    await writeConfig({ baseUrl: 'http://127.0.0.1:9', ignroe: ['secret/'] });
    await expect(load()).rejects.toMatchObject({ exitCode: 2, message: expect.stringMatching(/unknown key "ignroe": did you mean "ignore"/) });
  });

  it('knows the keys parallel features add, so their files are not refused', () => {
    for (const k of ['health', 'targets', 'defaultTarget', 'envFile', 'gitignore']) expect(CONFIG_KEYS).toContain(k);
  });

  it('a UTF-8 byte-order mark is accepted', async () => {
    await writeConfig({ baseUrl: 'http://127.0.0.1:9', ignore: ['x/'] }, '\uFEFF');
    expect((await load()).ignore).toEqual(['x/']);
  });
});

describe('a base URL from hostsync.json (review 5)', () => {
  it('an untrusted host named only by the file is refused with exit 2 and the reason', async () => {
    await writeConfig({ baseUrl: 'https://collect.evil.example' });
    await expect(load()).rejects.toMatchObject({ exitCode: 2, message: expect.stringMatching(/not trusted.*hostsync trust.*--base-url or HOSTSYNC_BASE_URL/) });
  });

  it('is accepted when the environment gives it too, when it is loopback, or once trusted', async () => {
    await writeConfig({ baseUrl: 'https://svc.example' });
    expect((await load(env({ HOSTSYNC_BASE_URL: 'https://svc.example' }))).baseUrl).toBe('https://svc.example');
    const trusted = await runTrust({ dir: work.dir, env: env() });
    expect(trusted.result).toMatchObject({ ok: true, origin: 'https://svc.example' });
    expect(trusted.result.recordFile!.startsWith(home.dir)).toBe(true);
    expect((await load()).baseUrl).toBe('https://svc.example');
    // Trust is per origin: an edited file pointing elsewhere is refused again.
    await writeConfig({ baseUrl: 'https://svc.example.evil.example' });
    await expect(load()).rejects.toMatchObject({ exitCode: 2 });
    await writeConfig({ baseUrl: 'http://127.0.0.1:4000' });
    expect((await load()).baseUrl).toBe('http://127.0.0.1:4000');
  });
});
