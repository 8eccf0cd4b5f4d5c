/**
 * Issue 47, items 1 and 2 through the real CLI against the emulator: restarts counted over
 * 24 hours and limited by "restartsPerDay", and a bot that ignores its stop signal named
 * (killed at the emulator's 5 s grace) with the fix for its library.
 */
import { spawn } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { afterEach, describe, expect, it } from 'vitest';
import { CLI, TEST_CONFIG_HOME } from '../helpers/cli.js';
import { startEmulator, type EmulatorOptions, type RunningEmulator } from '../../src/emulator/index.js';
import { runCli } from '../helpers/cli.js';
import { envFor } from '../helpers/push.js';
import { tempDir, writeTree } from '../helpers/tree.js';
import { ownBudgetPerTest } from '../helpers/budget.js';

ownBudgetPerTest();
const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  // In order: the watch stops (and writes its last state) before its folder goes.
  for (const c of cleanups.splice(0)) await c();
});

async function setup(files: Record<string, string>, emuOpts: EmulatorOptions = {}): Promise<{ emu: RunningEmulator; dir: string; cli: (...args: string[]) => ReturnType<typeof runCli> }> {
  const emu = await startEmulator({ install: false, ...emuOpts });
  const work = await tempDir('hostsync-bot-restarts-');
  cleanups.push(() => emu.close(), work.cleanup);
  await writeTree(work.dir, files);
  return { emu, dir: work.dir, cli: (...args) => runCli([...args, '--dir', work.dir], envFor(emu)) };
}

/** `hostsync watch --json` on `dir`: its events as they come, and a way to wait for one. */
function watchJson(emu: RunningEmulator, dir: string): { events: Array<Record<string, any>>; next: (test: (e: Record<string, any>) => boolean) => Promise<Record<string, any>> } {
  const child = spawn(process.execPath, [CLI, 'watch', '--json', '--dir', dir], {
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', NO_COLOR: '1', XDG_CONFIG_HOME: TEST_CONFIG_HOME, HOSTSYNC_CACHE_DIR: process.env.HOSTSYNC_CACHE_DIR ?? '', ...envFor(emu) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const exited = new Promise<void>((resolve) => child.on('exit', () => resolve()));
  cleanups.unshift(async () => {
    child.kill('SIGINT');
    await exited;
  });
  const events: Array<Record<string, any>> = [];
  const waiters: Array<{ test: (e: Record<string, any>) => boolean; resolve: (e: Record<string, any>) => void }> = [];
  createInterface({ input: child.stdout! }).on('line', (line) => {
    const e = JSON.parse(line) as Record<string, any>;
    events.push(e);
    for (const w of waiters.splice(0)) (w.test(e) ? w.resolve(e) : waiters.push(w));
  });
  const next = (test: (e: Record<string, any>) => boolean): Promise<Record<string, any>> =>
    new Promise((resolve, reject) => {
      waiters.push({ test, resolve });
      void exited.then(() => reject(new Error(`watch exited; events: ${JSON.stringify(events)}`)));
    });
  return { events, next };
}

/** A bot that prints a line on each start (a login) and ignores SIGTERM, as a bot without a handler of its own may. */
const stubbornBot =
  "process.on('SIGTERM', () => console.log('SIGTERM ignored'));\nconsole.log('LOGIN ' + process.pid);\nsetInterval(() => {}, 60000);\n";
/** The same bot closing on SIGTERM, as the fix says. */
const politeBot = "process.once('SIGTERM', () => { console.log('closing'); process.exit(0); });\nconsole.log('LOGIN ' + process.pid);\nsetInterval(() => {}, 60000);\n";
/** The bot's logins so far: its LOGIN lines in the console (deployments.searchLogs reads back 5,000 lines). */
async function loginLines(emu: RunningEmulator): Promise<string[]> {
  const res = await fetch(`${emu.baseUrl}/api/v1/deployments/${emu.deploymentId}/logs/search?pattern=LOGIN&lines=5000&context=0`, {
    headers: { authorization: `Bearer ${emu.apiKey}` },
  });
  return ((await res.json()) as { matches: Array<{ text: string }> }).matches.map((m) => m.text).filter((t) => t.startsWith('LOGIN'));
}
const logins = async (emu: RunningEmulator): Promise<number> => (await loginLines(emu)).length;

const discordJs = JSON.stringify({ name: 'bot', main: 'index.js', dependencies: { 'discord.js': '^14.0.0' } });

describe('shutdowns that work', () => {
  it('restart of a discord.js bot that ignores SIGTERM says it was killed, how long it took, and the fix', async () => {
    const t = await setup({ 'index.js': stubbornBot, 'package.json': discordJs });
    expect((await t.cli('push')).code).toBe(0);
    const r = await t.cli('restart', '--json');
    expect(r.code, r.stdout + r.stderr).toBe(0);
    const out = JSON.parse(r.stdout);
    expect(out.shutdown).toMatchObject({ killed: true });
    expect(out.shutdown.stopMs).toBeGreaterThan(0);
    expect(out.warnings.join('\n')).toContain("process.once('SIGTERM', () => client.destroy())");
    const human = await t.cli('restart');
    expect(human.stdout).toMatch(/warning: the app did not exit on its stop signal \(SIGTERM\): it was killed after \d+\.\d s/);
  });

  it('a bot that exits on SIGTERM: no warning, and the quick restart spends no request on timing it', async () => {
    const t = await setup({ 'index.js': politeBot, 'package.json': discordJs });
    expect((await t.cli('push')).code).toBe(0);
    const r = await t.cli('restart', '--json');
    expect(r.code, r.stdout + r.stderr).toBe(0);
    const out = JSON.parse(r.stdout);
    expect(out.shutdown).toBeNull();
    expect(out.warnings).toEqual([]);
    expect(out.requests.byOperation['deployments.resources']).toBeUndefined();
  });

  it('doctor --shutdown restarts once and times the stop: a python bot is told about bot.close()', async () => {
    const t = await setup(
      { 'bot.py': 'import signal, time\nsignal.signal(signal.SIGTERM, lambda *a: print("SIGTERM ignored", flush=True))\nprint("LOGIN", flush=True)\nwhile True:\n    time.sleep(60)\n', 'requirements.txt': 'discord.py>=2\n' },
      { runtime: 'python', entryFile: 'bot.py' },
    );
    expect((await t.cli('push')).code).toBe(0);
    const r = await t.cli('doctor', '--shutdown', '--json');
    const out = JSON.parse(r.stdout);
    const check = out.checks.find((c: { id: string }) => c.id === 'shutdown');
    expect(check, r.stdout).toBeDefined();
    expect(check.ok).toBe(false);
    expect(check.detail).toContain('killed after');
    expect(check.fix).toContain('bot.close()');
  });
});

/** A bot at version `v`: one LOGIN line per start, with its version and the time. */
const versionedBot = (v: number): string => `console.log('LOGIN v${v} at ' + Date.now());\nsetInterval(() => {}, 60000);\n`;

describe('restarts a login limit allows', () => {
  it('watch: ten saves of a bot one second apart log it in at most once per 5 s, and the last save is what runs', async () => {
    const t = await setup({ 'index.js': versionedBot(0), 'hostsync.json': JSON.stringify({ health: { kind: 'worker' } }) });
    const w = watchJson(t.emu, t.dir);
    await w.next((e) => e.type === 'cycle' && e.trigger === 'start');
    for (let v = 1; v <= 10; v++) {
      await writeFile(path.join(t.dir, 'index.js'), versionedBot(v));
      await new Promise((resolve) => setTimeout(resolve, 1000));
    }
    // The last save goes live: by a save's own restart or by the owed one at the end of the interval.
    for (;;) {
      const lines = await loginLines(t.emu);
      if (lines.at(-1)?.startsWith('LOGIN v10 ')) break;
      await w.next((e) => (e.type === 'restart' && e.action === 'restarted') || (e.type === 'cycle' && e.restarts));
    }
    const lines = await loginLines(t.emu);
    const times = lines.map((l) => Number(/ at (\d+)$/.exec(l)![1]));
    for (let i = 1; i < times.length; i++) expect(times[i]! - times[i - 1]!, lines.join('\n')).toBeGreaterThanOrEqual(5000);
    expect(lines.length - 1).toBeLessThan(10);
    expect(w.events.some((e) => e.type === 'restart' && e.action === 'deferred')).toBe(true);
  }, 120_000);

  it('watch: a bot that crashes at start 3 times in a row: the owed restart is dropped, and a new save restarts it', async () => {
    const crash = (v: number): string => `console.log('LOGIN v${v} at ' + Date.now());\nthrow new Error('bad token ${v}');\n`;
    const t = await setup({ 'index.js': crash(0), 'hostsync.json': JSON.stringify({ health: { kind: 'worker' }, restartMinSeconds: 2 }) });
    const w = watchJson(t.emu, t.dir);
    await w.next((e) => e.type === 'cycle' && e.trigger === 'start'); // crash 1
    const save = async (v: number): Promise<Record<string, any>> => {
      const cycled = w.next((e) => e.type === 'cycle' && e.trigger === 'change');
      await writeFile(path.join(t.dir, 'index.js'), crash(v));
      return cycled;
    };
    for (const v of [1, 2]) {
      // Past the interval, so each save restarts at once: crashes 2 and 3.
      await new Promise((resolve) => setTimeout(resolve, 2100));
      expect((await save(v)).restarts).toBeDefined();
    }
    // Inside the interval: the restart is owed, and the crash loop drops it.
    const held = w.next((e) => e.type === 'restart' && (e.action === 'held' || e.action === 'restarted'));
    await save(3);
    expect((await held).action, JSON.stringify(w.events)).toBe('held');
    expect((await loginLines(t.emu)).map((l) => l.split(' ')[1])).toEqual(['v0', 'v1', 'v2']);
    // A new save is a new chance.
    await new Promise((resolve) => setTimeout(resolve, 2100));
    expect((await save(4)).restarts).toBeDefined();
    expect((await loginLines(t.emu)).at(-1)).toMatch(/^LOGIN v4 /);
  }, 120_000);

  it('counts restarts for the day, refuses past "restartsPerDay" (exit 3) and --force restarts; status shows the count', async () => {
    const t = await setup({ 'index.js': politeBot, 'hostsync.json': JSON.stringify({ health: { kind: 'worker' }, restartsPerDay: 2 }) });
    expect((await t.cli('push')).code).toBe(0); // the first start: 1
    const second = JSON.parse((await t.cli('restart', '--json')).stdout);
    expect(second.restarts).toEqual({ today: 2, limit: 2 });
    expect(second.warnings.join('\n')).toContain('2 of 2 restarts in 24 hours');
    const before = await logins(t.emu);
    expect(before).toBe(2);
    const refused = await t.cli('restart', '--json');
    expect(refused.code).toBe(3);
    expect(JSON.parse(refused.stdout).error).toContain('"restartsPerDay"');
    expect(await logins(t.emu)).toBe(before);
    const status = JSON.parse((await t.cli('status', '--json')).stdout);
    expect(status.restarts).toEqual({ today: 2, limit: 2 });
    const forced = await t.cli('restart', '--force', '--json');
    expect(forced.code, forced.stdout).toBe(0);
    expect(JSON.parse(forced.stdout).restarts).toEqual({ today: 3, limit: 2 });
  });
});
