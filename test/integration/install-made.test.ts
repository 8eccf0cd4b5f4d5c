/**
 * Issue 46, item 7: files the deployment makes itself showed as conflicts or extras. The
 * service's `npm install` rewrites the root package-lock.json at each start, and a committed
 * lockfile changed here too became `C package-lock.json` (push refused, exit 3); the
 * emulator's python app, whose HOME is the volume, left `? .rustup/settings.toml` (a
 * rustup proxy of this machine's toolchain writing its settings under HOME).
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startEmulator } from '../../src/emulator/index.js';
import { runCli } from '../helpers/cli.js';
import { envFor } from '../helpers/push.js';
import { tempDir, writeTree } from '../helpers/tree.js';

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  await Promise.all(cleanups.splice(0).map((c) => c()));
});

const lock = (deps: Record<string, string>): string =>
  `${JSON.stringify({ name: 'app', lockfileVersion: 3, requires: true, packages: { '': { name: 'app', dependencies: deps } } }, null, 2)}\n`;

describe("a lockfile the deployment's npm install rewrote", () => {
  it('is drift named for what it is when only the deployment changed it, and the local one goes up (exit 0) when both did', async () => {
    const emu = await startEmulator({});
    const work = await tempDir('hostsync-lockfile-');
    cleanups.push(() => emu.close(), work.cleanup);
    await writeTree(work.dir, { 'index.js': 'console.log(1);\n', 'package.json': JSON.stringify({ name: 'app', dependencies: {} }), 'package-lock.json': lock({}) });
    const env = envFor(emu);
    expect((await runCli(['push', '--no-apply', '--dir', work.dir], env)).code).toBe(0);

    // The deployment's install rewrote it (npm adds what it resolved).
    await writeFile(path.join(emu.volume, 'package-lock.json'), lock({}).replace('"requires": true', '"requires": true,\n  "resolved": "by the install"'));
    const status = await runCli(['status', '--dir', work.dir], env);
    expect(status.code).toBe(0);
    expect(status.stdout).toMatch(/M {2}package-lock\.json {2}\(the deployment's npm install rewrites it at each start: expected\)/);

    // A new dependency here: package.json and the lockfile change locally too.
    await writeFile(path.join(work.dir, 'package.json'), JSON.stringify({ name: 'app', dependencies: { ms: '^2.1.3' } }));
    await writeFile(path.join(work.dir, 'package-lock.json'), lock({ ms: '^2.1.3' }));
    const push = await runCli(['push', '--no-apply', '--dir', work.dir], env);
    expect(push.code).toBe(0);
    expect(push.stdout).toMatch(/M {2}package-lock\.json {2}\(replaced the lockfile the deployment's npm install had rewritten\)/);
    expect(push.stdout).not.toContain('Conflicts');
    expect(await readFile(path.join(emu.volume, 'package-lock.json'), 'utf8')).toBe(lock({ ms: '^2.1.3' }));
  }, 60_000);

  it('any other file changed on both sides is still a conflict (exit 3)', async () => {
    const emu = await startEmulator({});
    const work = await tempDir('hostsync-lockfile-');
    cleanups.push(() => emu.close(), work.cleanup);
    await writeTree(work.dir, { 'index.js': 'console.log(1);\n', 'package.json': JSON.stringify({ name: 'app' }), 'yarn.lock': '# v1\n' });
    const env = envFor(emu);
    expect((await runCli(['push', '--no-apply', '--dir', work.dir], env)).code).toBe(0);
    await writeFile(path.join(emu.volume, 'yarn.lock'), '# there\n');
    await writeFile(path.join(work.dir, 'yarn.lock'), '# here\n');
    const push = await runCli(['push', '--no-apply', '--dir', work.dir], env);
    expect(push.code).toBe(3);
  }, 60_000);
});

describe.runIf(process.platform === 'linux')("the emulator's app and this machine's toolchains", () => {
  it('a rustup proxy run by the app keeps its settings out of the volume: no `? .rustup/settings.toml`', async () => {
    const rustupHome = await mkdtemp(path.join(os.tmpdir(), 'hostsync-rustup-'));
    const saved = process.env.RUSTUP_HOME;
    process.env.RUSTUP_HOME = rustupHome;
    const emu = await startEmulator({});
    const work = await tempDir('hostsync-rustup-');
    cleanups.push(async () => {
      await emu.close();
      if (saved === undefined) delete process.env.RUSTUP_HOME;
      else process.env.RUSTUP_HOME = saved;
      await rm(rustupHome, { recursive: true, force: true });
    }, work.cleanup);
    // What a rustup proxy does (a pip install building a Rust wheel): its settings under RUSTUP_HOME, else ~/.rustup.
    await writeTree(work.dir, {
      'index.js':
        "const fs = require('node:fs'), p = require('node:path');\n" +
        "const home = process.env.RUSTUP_HOME || p.join(process.env.HOME, '.rustup');\n" +
        "fs.mkdirSync(home, { recursive: true }); fs.writeFileSync(p.join(home, 'settings.toml'), 'version = \"12\"\\n');\n" +
        "require('node:http').createServer((q, s) => s.end('ok')).listen(Number(process.env.SERVER_PORT), '0.0.0.0');\n",
    });
    const env = envFor(emu);
    const push = await runCli(['push', '--dir', work.dir], env);
    expect(push.code).toBe(0);
    const status = await runCli(['status', '--json', '--dir', work.dir], env);
    expect(JSON.parse(status.stdout).remoteOnlyPaths).toEqual([]);
    expect(await readFile(path.join(rustupHome, 'settings.toml'), 'utf8')).toContain('version');
  }, 60_000);
});
