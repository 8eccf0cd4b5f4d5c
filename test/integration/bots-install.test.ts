/**
 * Issue 47, item 4: `"install": "on-change"`. The start command only starts the app; a push
 * whose change touches package.json installs through deployments.shell before the restart,
 * a code-only push installs nothing, and a failed install is exit 4 with npm's lines and no
 * restart. Offline: the dependency is a `file:` package inside the project.
 */
import { existsSync } from 'node:fs';
import { readdir, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startEmulator, type RunningEmulator } from '../../src/emulator/index.js';
import { runCli } from '../helpers/cli.js';
import { watch, type WatchCycleEvent } from '../../src/app/watch.js';
import { envFor } from '../helpers/push.js';
import { tempDir, writeTree } from '../helpers/tree.js';

const manifest = (dep: string) => JSON.stringify({ name: 'bot', private: true, dependencies: { greet: dep } });
const bot = (word: string) => `const greet = require('greet');\nconsole.log(greet('${word}'), 'ready');\nsetInterval(() => {}, 1000);\n`;
const BOT = {
  'package.json': manifest('file:./vendor/greet'),
  'vendor/greet/package.json': JSON.stringify({ name: 'greet', version: '1.0.0', main: 'index.js' }),
  'vendor/greet/index.js': "module.exports = (who) => 'hello ' + who;\n",
  'index.js': bot('one'),
  'hostsync.json': JSON.stringify({ install: 'on-change', startup: { entryFile: 'index.js' }, health: { kind: 'worker', ready: 'ready' } }),
};

let emu: RunningEmulator;
let work: { dir: string; cleanup: () => Promise<void> };
const cli = (...args: string[]) => runCli([...args, '--dir', work.dir], envFor(emu));
const api = async (p: string) => (await fetch(`${emu.baseUrl}/api/v1/deployments/${emu.deploymentId}${p}`, { headers: { authorization: `Bearer ${emu.apiKey}` } })).json() as Promise<Record<string, unknown>>;
const installsInLogs = async () => ((await api('/logs?size=500')).lines as string[]).filter((l) => l.startsWith('[emulator] installing:')).length;

beforeAll(async () => {
  emu = await startEmulator({ ramMB: 512 });
});
afterAll(async () => {
  await emu?.close();
});
beforeEach(async () => {
  work = await tempDir('hostsync-install-on-change-');
  // Each test is a first push of its own project to the one deployment.
  for (const name of await readdir(emu.volume)) await rm(path.join(emu.volume, name), { recursive: true, force: true });
});
afterEach(async () => {
  await work.cleanup();
});

describe('"install": "on-change"', () => {
  it('sets a start command that only starts the app, installs when package.json changes, never for code alone, and a failed install is exit 4 without a restart', async () => {
    await writeTree(work.dir, BOT);
    const first = await cli('push', '--json');
    expect(first.code, first.stdout + first.stderr).toBe(0);
    const r1 = JSON.parse(first.stdout) as { install?: { ok: boolean; command: string }; healthy: boolean };
    expect(r1.install).toMatchObject({ ok: true, command: 'npm install --no-audit --no-fund' });
    expect(r1.healthy).toBe(true);
    expect(((await api('/startup')).startCommand as string).replace(/^exec /, '')).toBe('node index.js');
    expect(existsSync(path.join(emu.volume, 'node_modules', 'greet'))).toBe(true);
    // The start itself installed nothing: the runtime default's install step is gone.
    expect(await installsInLogs(), JSON.stringify((await api("/logs?size=500")).lines)).toBe(0);

    // Code only: no install, one restart.
    await writeFile(path.join(work.dir, 'index.js'), bot('two'));
    const code = await cli('push', '--json');
    expect(code.code, code.stdout + code.stderr).toBe(0);
    expect(JSON.parse(code.stdout).install).toBeUndefined();
    expect(((await api('/logs?size=500')).lines as string[]).some((l) => l.includes('hello two ready'))).toBe(true);

    // A manifest that cannot install: exit 4, npm's lines, and the app keeps running its code.
    await writeFile(path.join(work.dir, 'package.json'), '{ "name": "bot", "dependencies": {\n');
    await writeFile(path.join(work.dir, 'index.js'), bot('three'));
    const broken = await cli('push');
    expect(broken.code).toBe(4);
    expect(broken.stdout + broken.stderr, broken.stdout + broken.stderr).toContain("the install (npm install --no-audit --no-fund) exited with code");
    expect(((await api('/logs?size=500')).lines as string[]).some((l) => l.includes('hello three'))).toBe(false);
    expect((await api('')).state).toBe('running');

    // Fixed: the install runs again (it failed last time) and the app restarts into the new code.
    await writeFile(path.join(work.dir, 'package.json'), manifest('file:./vendor/greet'));
    const fixed = await cli('push', '--json');
    expect(fixed.code, fixed.stdout + fixed.stderr).toBe(0);
    expect(JSON.parse(fixed.stdout).install).toMatchObject({ ok: true });
    expect(((await api('/logs?size=500')).lines as string[]).some((l) => l.includes('hello three ready'))).toBe(true);
  });

  it('a watch cycle that touches package.json installs before its restart', async () => {
    await writeTree(work.dir, { ...BOT, 'vendor/hello/package.json': JSON.stringify({ name: 'hello', version: '1.0.0', main: 'index.js' }), 'vendor/hello/index.js': "module.exports = 'hi';\n" });
    expect((await cli('push')).code).toBe(0);
    const w = watch({ dir: work.dir, env: envFor(emu) });
    try {
      const cycles: WatchCycleEvent[] = [];
      let wake = (): void => undefined;
      w.on('cycle', (e) => {
        cycles.push(e);
        wake();
      });
      const cycle = (pred: (e: WatchCycleEvent) => boolean) => new Promise<WatchCycleEvent>((resolve) => {
        wake = () => {
          const hit = cycles.find(pred);
          if (hit) resolve(hit);
        };
        wake();
      });
      await cycle(() => true);
      await writeFile(path.join(work.dir, 'package.json'), JSON.stringify({ name: 'bot', private: true, dependencies: { greet: 'file:./vendor/greet', hello: 'file:./vendor/hello' } }));
      await writeFile(path.join(work.dir, 'index.js'), `require('hello');\n${bot('watched')}`);
      const done = await cycle((e) => e.paths.includes('package.json') && e.healthy !== null);
      expect(done.healthy, JSON.stringify(done)).toBe(true);
      expect(existsSync(path.join(emu.volume, 'node_modules', 'hello'))).toBe(true);
    } finally {
      await w.stop();
    }
  });

  it('"install": "on-change" without an entry file or a start command is a usage error', async () => {
    await writeTree(work.dir, { ...BOT, 'hostsync.json': JSON.stringify({ install: 'on-change' }) });
    const r = await cli('push');
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('"install": "on-change" needs "startup.entryFile"');
  });
});
