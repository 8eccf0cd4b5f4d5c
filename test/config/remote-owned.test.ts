/** hostsync.json "remoteOwned" (issue 47, item 5): validated as it is read; what init proposes for it. */
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { readConfigFile } from '../../src/config/config.js';
import { appDataPatterns } from '../../src/config/app-data.js';
import { tempDir } from '../helpers/tree.js';

let work: { dir: string; cleanup: () => Promise<void> };
beforeEach(async () => {
  work = await tempDir('hostsync-remote-owned-cfg-');
});
afterEach(async () => {
  await work.cleanup();
});

const read = async (value: unknown) => {
  await writeFile(path.join(work.dir, 'hostsync.json'), JSON.stringify(value));
  return readConfigFile(work.dir);
};

describe('"remoteOwned" in hostsync.json', () => {
  it('takes gitignore-style patterns, a re-include too', async () => {
    expect((await read({ remoteOwned: ['data/', '*.sqlite', '!data/seed.json', '/cache.db'] })).remoteOwned).toEqual(['data/', '*.sqlite', '!data/seed.json', '/cache.db']);
  });

  it.each([
    ['not a list', 'data/', /"remoteOwned" must be an array of gitignore-style patterns/],
    ['a number in it', ['data/', 3], /"remoteOwned" must be an array/],
    ['an empty pattern', [' '], /pattern " " is empty/],
    ['a comment', ['# data'], /is a comment/],
    ['a climb out', ['../shared/'], /climbs out with "\.\."/],
    ['everything', ['*'], /pattern "\*" matches hostsync\.json, which must travel with the code/],
    ['every JSON file', ['data/', '*.json'], /pattern "\*\.json" matches hostsync\.json/],
    ['the ignore file', ['.syncignore'], /matches \.syncignore/],
  ])('refuses %s with exit 2 and the fix', async (_name, value, message) => {
    const err = await read({ remoteOwned: value }).catch((e: unknown) => e);
    expect(err).toMatchObject({ exitCode: 2 });
    expect((err as Error).message).toMatch(message);
    expect((err as Error).message).toContain('e.g. ["data/", "*.sqlite"]');
  });

  it('is a top-level key: a target may not set its own', async () => {
    const err = await read({ targets: { prod: { deployment: 'd', remoteOwned: ['data/'] } } }).catch((e: unknown) => e);
    expect((err as Error).message).toMatch(/unknown key "targets\.prod\.remoteOwned"/);
  });
});

describe('what init proposes (a write call and a data file named in the same source file)', () => {
  it.each([
    ['better-sqlite3', "const Database = require('better-sqlite3');\nconst db = new Database('data/bot.sqlite');\n", ['data/', '*.sqlite']],
    ['sqlite3 in a folder joined in', "const db = new sqlite3.Database(path.join(__dirname, 'data', 'bot.db'));\n", ['data/', '*.db']],
    ['a JSON store', "fs.writeFileSync('./data/state.json', JSON.stringify(state));\n", ['data/']],
    ['Python sqlite3', "import sqlite3\nconn = sqlite3.connect('bot.sqlite3')\n", ['*.sqlite3']],
    ['Python open(..., "w") below a pathlib folder', 'DATA = BASE / "data"\nwith open(DATA / "users.json", "w") as f:\n    json.dump(users, f)\n', ['data/']],
  ])('%s', (_name, text, patterns) => {
    expect(appDataPatterns([{ path: 'bot.js', text }]).patterns).toEqual(patterns);
  });

  it.each([
    ['a stream listener is no data folder', "fs.writeFileSync('out.txt', 'x'); stream.on('data', (c) => c);\n"],
    ['data read, never written', "const seed = JSON.parse(fs.readFileSync('data/seed.json', 'utf8'));\n"],
    ['a write call and a data file in different files', null],
  ])('nothing for %s', (_name, text) => {
    const sources = text === null ? [{ path: 'a.js', text: "fs.writeFileSync('log.txt', 'x')\n" }, { path: 'b.js', text: "const f = 'bot.sqlite'\n" }] : [{ path: 'bot.js', text }];
    expect(appDataPatterns(sources)).toEqual({ patterns: [], notes: [] });
  });

  it('says why, naming the file and the call', () => {
    expect(appDataPatterns([{ path: 'src/db.js', text: "const db = new Database('bot.sqlite')\n" }]).notes).toEqual(["src/db.js names 'bot.sqlite' and writes (new Database)"]);
  });
});
