/**
 * Issue 28, items 6, 7 and 8, in the shape of their repros: a `.syncignore` or hostsync.json
 * written on the deployment does not arrive through a whole-tree pull, credentials and the
 * configured env file are never uploaded, and safety copies get unguessable names.
 */
import { readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startEmulator, type RunningEmulator } from '../../src/emulator/index.js';
import { StaticServer } from '../../src/emulator/static-server.js';
import { tempDir, writeTree } from '../helpers/tree.js';
import { runCli } from '../helpers/cli.js';
import { envFor } from '../helpers/push.js';
import { push } from '../../src/app/push.js';
import { pull } from '../../src/app/pull.js';
import { history } from '../../src/app/history.js';
import { undo } from '../../src/app/undo.js';

let emu: RunningEmulator;
let work: { dir: string; cleanup: () => Promise<void> };
const env = () => envFor(emu);
const cli = (...args: string[]) => runCli([...args, '--dir', work.dir], env());
const conn = () => ({ dir: work.dir, env: env(), cwd: work.dir });
const pushed = (extra: { force?: boolean } = {}) => push({ ...conn(), apply: false, ...extra });
const onVolume = async (rel: string): Promise<boolean> => readFile(path.join(emu.volume, rel)).then(() => true, () => false);
const locally = (rel: string) => readFile(path.join(work.dir, rel), 'utf8').catch(() => null);

beforeAll(async () => {
  emu = await startEmulator({});
});
afterAll(async () => {
  await emu?.close();
});
beforeEach(async () => {
  work = await tempDir('hostsync-secrets-');
  for (const name of await readdir(emu.volume)) await rm(path.join(emu.volume, name), { recursive: true, force: true });
});
afterEach(async () => {
  await work.cleanup();
});

describe('configuration files never arrive silently through pull (item 6)', () => {
  it('a remote .syncignore re-including .env and .ssh/ is held by pull, and the next push still sends no credential', async () => {
    await writeTree(work.dir, { 'app.js': 'ok\n', '.syncignore': 'logs/\n', '.env': 'SECRET=hunter2\n', '.ssh/id_ed25519': 'PRIVATE KEY\n' });
    expect((await pushed()).error).toBeUndefined();
    await writeFile(path.join(emu.volume, '.syncignore'), 'logs/\n!.env\n!.ssh/\n');

    const human = await cli('pull');
    expect(human.code).toBe(0);
    expect(human.stdout + human.stderr).toContain('hostsync pull .syncignore');
    expect(await locally('.syncignore')).toBe('logs/\n');

    const p = await pull(conn());
    expect(p.held).toEqual(['.syncignore']);
    expect(p.fetched).toEqual([]);

    expect((await pushed()).error).toBeUndefined();
    expect(await onVolume('.env')).toBe(false);
    expect(await onVolume('.ssh/id_ed25519')).toBe(false);
    // The remote edit is still remote drift (not overwritten by the push, not adopted as base).
    expect(await readFile(path.join(emu.volume, '.syncignore'), 'utf8')).toBe('logs/\n!.env\n!.ssh/\n');

    // Naming it takes it; the credentials stay local even then.
    const named = await pull({ ...conn(), paths: ['.syncignore'] });
    expect(named.fetched).toEqual(['.syncignore']);
    expect(await locally('.syncignore')).toBe('logs/\n!.env\n!.ssh/\n');
    expect((await pushed()).error).toBeUndefined();
    expect(await onVolume('.env')).toBe(false);
    expect(await onVolume('.ssh/id_ed25519')).toBe(false);
  });

  it('a remote hostsync.json (new, or deleted) is held too; one naming an env file outside the project is refused once taken', async () => {
    await writeTree(work.dir, { 'app.js': 'ok\n' });
    expect((await pushed()).error).toBeUndefined();
    await writeFile(path.join(emu.volume, 'hostsync.json'), JSON.stringify({ envFile: '../outside.env' }));
    const p = await pull(conn());
    expect(p.held).toEqual(['hostsync.json']);
    expect(await locally('hostsync.json')).toBeNull();

    const named = await pull({ ...conn(), paths: ['hostsync.json'] });
    expect(named.fetched).toEqual(['hostsync.json']);
    const next = await pull(conn());
    expect(next.exitCode).toBe(2);
    expect(next.error).toMatch(/envFile.*inside the project/);
  });
});

describe('the configured env file is never uploaded (item 7)', () => {
  it('"envFile": "config/prod.env" stays local on push, and a remote copy is not pulled over it, even named', async () => {
    await writeTree(work.dir, { 'app.js': 'ok\n', 'config/app.json': '{}\n', 'config/prod.env': 'DB_PASSWORD=s3cret\n', 'hostsync.json': JSON.stringify({ envFile: 'config/prod.env' }) });
    expect((await pushed()).error).toBeUndefined();
    expect(await onVolume('config/app.json')).toBe(true);
    expect(await onVolume('config/prod.env')).toBe(false);
    await writeTree(emu.volume, { 'config/prod.env': 'DB_PASSWORD=theirs\n' });
    const named = await pull({ ...conn(), paths: ['config/prod.env'] });
    expect(named.fetched).toEqual([]);
    expect(await locally('config/prod.env')).toBe('DB_PASSWORD=s3cret\n');
  });

  it('"sendSecrets" in the local hostsync.json sends exactly the files it lists', async () => {
    await writeTree(work.dir, { 'app.js': 'ok\n', '.env': 'A=1\n', '.env.production': 'B=2\n', 'hostsync.json': JSON.stringify({ sendSecrets: ['.env.production'] }) });
    expect((await pushed()).error).toBeUndefined();
    expect(await onVolume('.env.production')).toBe(true);
    expect(await onVolume('.env')).toBe(false);
  });
});

async function freePort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', () => r()));
  const port = (s.address() as { port: number }).port;
  await new Promise((r) => s.close(r));
  return port;
}

describe('safety copies cannot be fetched from the public site (item 8)', () => {
  it('--force keeps its copy under 128 random bits: the timestamped name answers 404, and undo still restores from it', async () => {
    await writeTree(work.dir, { 'index.html': '<h1>hi</h1>\n', 'hotfix.txt': 'v1\n' });
    expect((await pushed()).error).toBeUndefined();
    await writeFile(path.join(emu.volume, 'hotfix.txt'), 'HOTFIX_SECRET=abc\n');
    await writeTree(work.dir, { 'hotfix.txt': 'v2\n' });
    const started = new Date();
    const p = await pushed({ force: true });
    expect(p.error).toBeUndefined();
    const archive = p.backup!.archive;
    expect(archive).toMatch(/^\.hostsync\/backups\/[0-9a-f]{32}\/archive-[0-9T-]+(?:-\d+)?\.tar\.gz$/);
    expect((await history(conn())).pushes[0]!.copies.map((c) => c.archive)).toEqual([archive]);

    // The deployment's volume served as a static site (what the static and PHP runtimes do).
    const port = await freePort();
    const site = new StaticServer({ root: emu.volume, indexFiles: ['index.html'] });
    await site.listen(port);
    try {
      const get = async (p: string) => (await fetch(`http://127.0.0.1:${port}/${p}`)).status;
      expect(await get('index.html')).toBe(200);
      // Every name the old scheme could have given, to the second around the push.
      const guesses: string[] = [];
      for (let t = started.getTime() - 2000; t <= Date.now() + 1000; t += 1000) {
        const stamp = new Date(t).toISOString().replace(/\.\d+Z$/, '').replace(/:/g, '');
        guesses.push(`.hostsync/backups/archive-${stamp}.tar.gz`, `archive-${stamp}.tar.gz`);
      }
      for (const g of guesses) expect(await get(g), g).toBe(404);
      expect(await get('.hostsync/backups/')).toBe(404);
    } finally {
      await site.close();
    }

    expect((await undo({ ...conn(), apply: false })).error).toBeUndefined();
    expect(await readFile(path.join(emu.volume, 'hotfix.txt'), 'utf8')).toBe('HOTFIX_SECRET=abc\n');
  });
});

