/**
 * Issue 28, items 6 and 7: credentials and the configured env file stay local whatever
 * `.syncignore` (which a pull can bring from the deployment) or "ignore" says; only the
 * local hostsync.json's "sendSecrets" lets a listed credential through.
 */
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import ignore from 'ignore';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/config.js';
import {
  CREDENTIAL_PATTERNS,
  DEFAULT_IGNORE_PATTERNS,
  ENFORCED_IGNORE_PATTERNS,
  ENV_EXAMPLES,
  composeIgnorePatterns,
  createIgnoreMatcher,
  credentialTail,
  namesExcept,
} from '../../src/local/ignore.js';
import { loadIgnoreMatcher } from '../../src/local/ignore-file.js';
import { fileNameCheck } from '../../src/local/ignore-names.js';
import { tempDir } from '../helpers/tree.js';

let work: { dir: string; cleanup: () => Promise<void> };
beforeEach(async () => {
  work = await tempDir('hostsync-cred-');
});
afterEach(async () => {
  await work.cleanup();
});

const syncignore = (text: string) => writeFile(path.join(work.dir, '.syncignore'), text);

describe('credential rules are enforced', () => {
  it('a `!` in .syncignore or "ignore" does not re-include .env, keys or .ssh/ (the pulled .syncignore of the issue)', async () => {
    await syncignore('!.env\n!.ssh/\n!.ssh/**\n!*.pem\n!id_ed25519\n!.aws/\n!.netrc\n!.env.production\n');
    const m = await loadIgnoreMatcher(work.dir, ['!.env.local', '!credentials.json']);
    for (const f of ['.env', '.env.local', '.env.production', 'app/.env', '.ssh/id_ed25519', 'id_ed25519', 'tls/server.pem', '.aws/credentials', '.netrc', 'credentials.json', '.pypirc']) {
      expect(m.ignores(f, false), f).toBe(true);
    }
    expect(m.ignores('.ssh', true)).toBe(true);
  });

  it('examples still follow the ordinary rules: kept local by default, re-included by `!`', async () => {
    expect((await loadIgnoreMatcher(work.dir)).ignores('.env.example', false)).toBe(true);
    await syncignore('!.env.example\n!.env.sample\n!.env.template\n');
    const m = await loadIgnoreMatcher(work.dir);
    for (const f of ['.env.example', 'api/.env.sample', '.env.template', '.ENV.EXAMPLE']) expect(m.ignores(f, false), f).toBe(false);
    expect(m.ignores('.env', false)).toBe(true);
  });

  it('"sendSecrets" lets exactly the listed files through, even inside .ssh/', async () => {
    const m = await loadIgnoreMatcher(work.dir, [], {}, [], { sendSecrets: ['.env.production', 'deploy/.ssh/id_ed25519'] });
    expect(m.ignores('.env.production', false)).toBe(false);
    expect(m.ignores('deploy/.ssh', true)).toBe(false);
    expect(m.ignores('deploy/.ssh/id_ed25519', false)).toBe(false);
    for (const f of ['.env', 'sub/.env.production', 'deploy/.ssh/id_rsa', 'deploy/.ssh/config', '.ssh/id_ed25519']) expect(m.ignores(f, false), f).toBe(true);
    // What a user names on the command line meets the same enforced rules.
    expect(m.enforced!.ignores('.env', false)).toBe(true);
    expect(m.enforced!.ignores('.env.production', false)).toBe(false);
  });

  it('the configured env file is never synced, whatever its name, "sendSecrets" included (item 7)', async () => {
    await syncignore('!config/prod.env\n');
    const m = await loadIgnoreMatcher(work.dir, [], {}, [], { sendSecrets: ['config/prod.env'], neverSync: ['config/prod.env', '.env'] });
    expect(m.ignores('config/prod.env', false)).toBe(true);
    expect(m.enforced!.ignores('config/prod.env', false)).toBe(true);
    expect(m.ignores('config/other.env', false)).toBe(false);
  });

  it('each matcher follows its own never-synced and let-through files, asked one after another and back', async () => {
    const cases = [
      { neverSync: ['config/a.env'] },
      { neverSync: ['config/b.env'], sendSecrets: ['.ssh/id_rsa'] },
      { neverSync: ['config/a.env'] },
      {},
    ];
    const verdicts = [];
    for (const files of cases) {
      const m = await loadIgnoreMatcher(work.dir, [], {}, [], files);
      verdicts.push(['config/a.env', 'config/b.env', '.ssh/id_rsa'].map((p) => m.ignores(p, false)));
    }
    expect(verdicts).toEqual([
      [true, false, true],
      [false, true, false],
      [true, false, true],
      [false, false, true],
    ]);
  });

  it('the default env file adds no pattern: the list (and the stat cache key) stay as they were', async () => {
    const plain = await loadIgnoreMatcher(work.dir);
    const withEnv = await loadIgnoreMatcher(work.dir, [], {}, [], { neverSync: ['.env'] });
    expect(withEnv.patterns).toEqual(plain.patterns);
  });

  it('the cheap file-name check still understands the whole list (no slow path at scale)', async () => {
    const m = await loadIgnoreMatcher(work.dir, [], {}, [], { neverSync: ['config/prod.env'] });
    expect(fileNameCheck(m.patterns)).not.toBeNull();
    for (const user of [['!.env.example'], ['!*.example'], ['!.env.example', 'sub/.env.example']]) expect(fileNameCheck(composeIgnorePatterns(user)), user.join(' ')).not.toBeNull();
  });
});

describe('credentialTail: the whole-tree list carries only the credential rules its own rules need', () => {
  it('none without a `!`; keys, `.env*` and the example rules with `!.env.example`; the exact patterns when a rule could match an example otherwise', () => {
    expect(credentialTail(['dist/', '*.log'])).toEqual([]);
    expect(credentialTail(['!.env.example', 'sub/.env.example'])).toEqual([...CREDENTIAL_PATTERNS.filter((p) => !p.startsWith('.env')), '.env*', '!.env.example', 'sub/.env.example']);
    expect(credentialTail(['!*.pem', '*.example'])).toEqual([...CREDENTIAL_PATTERNS]);
    expect(credentialTail(['!*'])).toEqual([...CREDENTIAL_PATTERNS]);
    expect(credentialTail(['!.env.example']).length).toBeLessThan(20);
  });

  it('gives every path the verdict the full credential rules give, whatever the user writes', () => {
    const pool = ['!.env.example', '!.env.sample', '.env.example', '!.ENV.TEMPLATE', '!sub/.env.example', '!**/.env.sample', '!*.pem', '!.env', '!*', '*.example', '!*.example',
      'sub/', '!sub/', '!.ssh/', '!.ssh/**', '!**', 'logs/', '!.env*', '!id_rsa', '!.netrc', '!.env.example/', 'a/b/', '!a/b/.env.example', '!.env.ex*'];
    const names = ['.env', '.env.example', '.ENV.Sample', '.env.template', '.env.local', '.env.examples', 'a.pem', 'id_rsa', 'x.js', '.ssh/id_ed25519', '.netrc', '.pypirc', 'README.example'];
    const dirs = ['', 'sub/', 'a/b/', 'logs/'];
    let seed = 2828;
    const rand = (n: number): number => {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      return (seed >>> 12) % n;
    };
    for (let round = 0; round < 250; round++) {
      const user = Array.from({ length: rand(6) }, () => pool[rand(pool.length)]!);
      const split = rand(user.length + 1);
      const mine = createIgnoreMatcher(composeIgnorePatterns(user.slice(0, split), user.slice(split)));
      const full = createIgnoreMatcher([...DEFAULT_IGNORE_PATTERNS, ...user, ...CREDENTIAL_PATTERNS, ...ENFORCED_IGNORE_PATTERNS]);
      for (const d of dirs) for (const n of names) expect(mine.ignores(d + n, false), `${JSON.stringify(user)} ${d + n}`).toBe(full.ignores(d + n, false));
    }
  });
});

describe('namesExcept', () => {
  it('matches every `.env*` name but the examples, in any case, as the ignore package reads it', () => {
    const patterns = namesExcept('.env', ENV_EXAMPLES);
    const pkg = ignore({ allowRelativePaths: true }).add(patterns);
    const mine = createIgnoreMatcher(patterns);
    let seed = 28;
    const rand = (n: number): number => {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      return (seed >>> 12) % n;
    };
    const alphabet = ['e', 'x', 'a', 'm', 'p', 'l', 's', 't', '.', 'E', 'X', 'r', '_', 'o'];
    const names = [...ENV_EXAMPLES, '.env', '.env.', '.envrc', '.env.local', '.env.examples', '.env.exampl', '.env.e', '.env.templates', '.env.sampl', 'env', '.en'];
    for (let i = 0; i < 3000; i++) {
      const stem = ENV_EXAMPLES[rand(3)]!.slice(0, rand(14));
      names.push(stem + Array.from({ length: rand(3) }, () => alphabet[rand(alphabet.length)]).join(''));
    }
    for (const name of names) {
      const want = name.toLowerCase().startsWith('.env') && !ENV_EXAMPLES.includes(name.toLowerCase());
      for (const rel of [name, `sub/${name}`]) {
        expect(pkg.ignores(rel), rel).toBe(want);
        expect(mine.ignores(rel, false), rel).toBe(want);
      }
    }
    expect(CREDENTIAL_PATTERNS).toEqual(expect.arrayContaining(patterns));
  });
});

describe('hostsync.json paths', () => {
  const env = { HOSTSYNC_API_KEY: 'k' };
  const write = (value: unknown) => writeFile(path.join(work.dir, 'hostsync.json'), JSON.stringify(value));
  const load = () => loadConfig({ flags: { dir: work.dir }, env, requireRemote: false });

  it.each(['../outside.env', '/etc/hostsync.env', 'a/../../x.env', 'C:\\\\x.env', '..\\\\x.env', 'dir/'])('refuses envFile %s (exit 2)', async (bad) => {
    await write({ envFile: bad });
    await expect(load()).rejects.toMatchObject({ exitCode: 2 });
    await write({ targets: { prod: { deployment: 'd', envFile: bad } } });
    await expect(load()).rejects.toMatchObject({ exitCode: 2 });
  });

  it('every env file hostsync.json names is never synced, and "sendSecrets" is read from the top level only', async () => {
    await write({ envFile: 'config/./dev.env', sendSecrets: ['.env.production'], targets: { prod: { deployment: 'd', envFile: 'config/prod.env' } } });
    expect(await load()).toMatchObject({ envFile: 'config/dev.env', envFiles: ['.env', 'config/dev.env', 'config/prod.env'], sendSecrets: ['.env.production'] });
    await write({ targets: { prod: { deployment: 'd', sendSecrets: ['.env'] } } });
    await expect(load()).rejects.toMatchObject({ exitCode: 2 });
    await write({ sendSecrets: ['../x'] });
    await expect(load()).rejects.toMatchObject({ exitCode: 2 });
  });
});
