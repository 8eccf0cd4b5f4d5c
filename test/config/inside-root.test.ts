/**
 * Paths hostsync.json names ("envFile", "sendSecrets") stay inside the project: the same
 * rule the answer schemas and the write edge apply (model/safe-path.ts), after the
 * harmless "./" and "//" are normalised away.
 */
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { readConfigFile } from '../../src/config/config.js';
import { tempDir } from '../helpers/tree.js';

let work: { dir: string; cleanup: () => Promise<void> };
beforeEach(async () => {
  work = await tempDir('hostsync-inside-root-');
});
afterEach(async () => {
  await work.cleanup();
});

const read = async (value: unknown) => {
  await writeFile(path.join(work.dir, 'hostsync.json'), JSON.stringify(value));
  return readConfigFile(work.dir);
};

describe('paths named in hostsync.json', () => {
  it.each(['../outside.env', '/etc/passwd', 'a/../../b', 'C:x.env', 'c:\\env', '\\\\host\\share\\.env', 'a\\..\\..\\x', 'x\0.env', 'config/', '.', './'])(
    'refuses %j', async (raw) => {
      await expect(read({ envFile: raw })).rejects.toThrow(/"envFile" must name a file inside the project/);
      await expect(read({ sendSecrets: [raw || 'x', raw] })).rejects.toThrow(/sendSecrets/);
    },
  );

  it('normalises "./" and doubled slashes', async () => {
    expect((await read({ envFile: './config//./prod.env' })).envFile).toBe('config/prod.env');
    expect((await read({ sendSecrets: ['./.env.production'] })).sendSecrets).toEqual(['.env.production']);
    expect((await read({ targets: { p: { deployment: 'd', envFile: 'a/b.env' } } })).targets?.p?.envFile).toBe('a/b.env');
  });
});
