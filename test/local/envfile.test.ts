import { readFile, realpath, stat, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { parse } from 'dotenv';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { envLine, envWriteTarget, readEnvFile, writeEnvValues } from '../../src/local/envfile.js';
import { tempDir } from '../helpers/tree.js';

let work: { dir: string; cleanup: () => Promise<void> };
beforeEach(async () => {
  work = await tempDir('hostsync-envfile-');
});
afterEach(async () => {
  await work.cleanup();
});

describe('.env file', () => {
  it('reads with dotenv: comments, quotes, export, multi-line', async () => {
    const file = path.join(work.dir, '.env');
    await writeFile(file, '# comment\nA=1\nexport B="two words"\nC=\'x#y\'\nD="l1\\nl2"\n');
    expect(Object.fromEntries(await readEnvFile(file))).toEqual({ A: '1', B: 'two words', C: 'x#y', D: 'l1\nl2' });
  });

  it('a missing file is exit 2 naming it and the fix', async () => {
    await expect(readEnvFile(path.join(work.dir, 'nope.env'))).rejects.toMatchObject({ exitCode: 2, message: expect.stringMatching(/nope\.env does not exist: .*--file/) });
  });

  it.each(['plain', 'with space', 'quote " and \\ backslash', 'multi\nline', 'hash # inside', "single ' quote", "both ' and ` quotes", 'c\rr', 'literal \\n', ' padded ', ''])(
    'envLine round-trips %j through dotenv',
    (value) => {
      expect(parse(envLine('K', value)!).K).toBe(value);
    },
  );

  it.each(['all \' ` " quotes', 'trailing \\'])('envLine refuses %j rather than write a different value', (value) => {
    expect(envLine('K', value)).toBeNull();
  });

  it('writeEnvValues replaces a key in place, appends new ones, keeps comments and other keys, and reports only changed keys', async () => {
    const file = path.join(work.dir, '.env');
    await writeFile(file, '# keep me\nSECRET=local-only\nMODE=dev\n');
    const changed = await writeEnvValues(file, new Map([['MODE', 'production'], ['NEW', 'a b'], ['SECRET', 'local-only']]));
    expect(changed).toEqual(['MODE', 'NEW']);
    expect(await readFile(file, 'utf8')).toBe("# keep me\nSECRET=local-only\nMODE=production\nNEW='a b'\n");
  });

  it('creates a missing file readable by its owner only', async () => {
    const file = path.join(work.dir, '.env');
    expect(await writeEnvValues(file, new Map([['A', '1']]))).toEqual(['A']);
    expect(await readFile(file, 'utf8')).toBe('A=1\n');
    expect((await stat(file)).mode & 0o077).toBe(0);
  });
});

describe('envWriteTarget: a .env link is written through only to a file inside the project', () => {
  it('a target whose name starts with ".." is inside; ../ is not', async () => {
    const root = await realpath(work.dir);
    await writeFile(path.join(root, '..shared.env'), 'A=1\n');
    await symlink('..shared.env', path.join(root, '.env'));
    expect(await envWriteTarget(path.join(root, '.env'), root)).toBe(path.join(root, '..shared.env'));
    await symlink('../elsewhere.env', path.join(root, '.env.up'));
    await expect(envWriteTarget(path.join(root, '.env.up'), root)).rejects.toThrow(/outside the project/);
  });
});
