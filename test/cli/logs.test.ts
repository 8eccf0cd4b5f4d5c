/**
 * `hostsync logs`: the console once, and --follow, which long-polls and prints each new
 * line once, across a restart, until Ctrl-C (exit 0).
 */
import { spawn } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator, type RunningEmulator } from '../../src/emulator/index.js';
import { HostingClient } from '../../src/remote/client.js';
import { CLI, runCli } from '../helpers/cli.js';
import { envFor } from '../helpers/push.js';
import { tempDir } from '../helpers/tree.js';

let emu: RunningEmulator;
let client: HostingClient;
let work: { dir: string; cleanup: () => Promise<void> };

/** Prints a numbered line every 150 ms, each tagged with this start's pid, so a repeat or a gap shows. */
const TICKER = "let n = 0;\nsetInterval(() => console.log(`start ${process.pid} tick ${++n}`), 150);\n";

beforeAll(async () => {
  emu = await startEmulator({});
  work = await tempDir('hostsync-logs-');
  await writeFile(path.join(emu.volume, 'index.js'), TICKER);
  client = new HostingClient({ baseUrl: emu.baseUrl, apiKey: emu.apiKey, deploymentId: emu.deploymentId });
  await client.deployments.apply({});
});
afterAll(async () => {
  await client.close();
  await emu.close();
  await work.cleanup();
});

const logs = (...args: string[]) => runCli(['logs', ...args, '--dir', work.dir], envFor(emu));

describe('hostsync logs', () => {
  it('prints the last N console lines, filtered by --grep; --json gives the lines and the state', async () => {
    await client.deployments.logs(10, 1); // some ticks first
    const r = await logs('--lines', '3', '--grep', 'TICK [0-9]');
    expect(r.code).toBe(0);
    const lines = r.stdout.trimEnd().split('\n');
    expect(lines).toHaveLength(3);
    for (const l of lines) expect(l).toMatch(/^start \d+ tick \d+$/);

    const json = JSON.parse((await logs('--lines', '2', '--json')).stdout);
    expect(json).toMatchObject({ ok: true, state: 'running', requests: { byOperation: { 'deployments.logs': 1 } } });
    expect(json.lines).toHaveLength(2);
  });

  it('--grep reaches lines rotated out of a small live console (searchLogs), in two requests', async () => {
    const small = await startEmulator({ consoleLines: 20 });
    const dir = await tempDir('hostsync-logs-small-');
    try {
      await writeFile(path.join(small.volume, 'index.js'), "console.log('BOOT marker');\nfor (let i = 1; i <= 60; i++) console.log('tick ' + i);\nsetInterval(() => {}, 60000);\n");
      const c = new HostingClient({ baseUrl: small.baseUrl, apiKey: small.apiKey, deploymentId: small.deploymentId });
      await c.deployments.apply({});
      await c.close();
      const r = await runCli(['logs', '--grep', 'boot', '--json', '--dir', dir.dir], envFor(small));
      const out = JSON.parse(r.stdout);
      expect(out.lines).toEqual(['BOOT marker']);
      expect(out.requests.byOperation).toMatchObject({ 'deployments.logs': 1, 'deployments.searchLogs': 1 });
    } finally {
      await small.close();
      await dir.cleanup();
    }
  });

  it('a bad --grep is a usage error naming it', async () => {
    const r = await logs('--grep', 'tick (');
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^hostsync: --grep "tick \(" is not a valid regular expression/);
  });

  it('--follow prints each new line once, keeps following across a restart, and Ctrl-C exits 0', async () => {
    const child = spawn(process.execPath, [CLI, 'logs', '--follow', '--lines', '0', '--json', '--dir', work.dir], {
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', NO_COLOR: '1', ...envFor(emu) },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    // Whole lines only: a chunk may end inside one.
    const events = (): Array<Record<string, string>> => out.split('\n').slice(0, -1).map((l) => JSON.parse(l));
    const lines = (): string[] => events().filter((e) => e.type === 'line').map((e) => e.line!);
    // The app's own lines (the node's [emulator] lines about the restart come in between).
    const ticks = (): string[] => lines().filter((l) => /^start \d+ tick \d+$/.test(l));
    const until = (done: () => boolean): Promise<void> =>
      new Promise((resolve, reject) => {
        const check = (): void => {
          if (done()) {
            child.stdout.off('data', check);
            resolve();
          }
        };
        child.stdout.on('data', check);
        child.once('exit', () => reject(new Error(`logs --follow ended early: ${out}`)));
        check();
      });
    child.stdout.on('data', (d) => (out += d));
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));

    // Several reads' worth of lines, then a restart, then lines of the new start.
    await until(() => ticks().length >= 4);
    await client.deployments.apply({ restart: true });
    const pids = (): Set<string> => new Set(ticks().map((l) => l.split(' ')[1]!));
    await until(() => pids().size === 2 && ticks().filter((l) => l.includes(`start ${[...pids()][1]} `)).length >= 3);
    child.kill('SIGINT');
    expect(await exited).toBe(0);

    // Each line once: no repeats...
    expect(new Set(lines()).size).toBe(lines().length);
    expect(lines()).toContain('[emulator] process stopped');
    // ...and none skipped: each start's ticks are consecutive from the first one shown.
    for (const pid of pids()) {
      const numbers = ticks().filter((l) => l.startsWith(`start ${pid} `)).map((l) => Number(l.split(' ')[3]));
      expect(numbers).toEqual(numbers.map((_, i) => numbers[0]! + i));
    }
    // --lines 0: nothing from before the follow began (the first start had ticked through its boot grace already).
    expect(Number(ticks()[0]!.split(' ')[3])).toBeGreaterThan(1);
    expect(events().find((e) => e.type === 'state')).toMatchObject({ state: 'running' });
  }, 120_000);

  it('watch --logs prints the app\'s new lines after the apply of a save, each once', async () => {
    const dep = await emu.createDeployment({ name: 'watched' });
    const project = await tempDir('hostsync-watch-logs-');
    const app = (v: number): string => `console.log('version ${v} up');\nsetInterval(() => {}, 60000);\n`;
    await writeFile(path.join(project.dir, 'index.js'), app(1));
    const child = spawn(process.execPath, [CLI, 'watch', '--logs', '--json', '--dir', project.dir], {
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', NO_COLOR: '1', ...envFor(emu), HOSTSYNC_DEPLOYMENT: dep.id },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    const events = (): Array<Record<string, unknown>> => out.split('\n').slice(0, -1).map((l) => JSON.parse(l));
    const until = async (done: () => boolean): Promise<void> => {
      while (!done()) {
        if (child.exitCode !== null) throw new Error(`watch ended early: ${out}`);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    };
    try {
      // The first sync (and its apply) is done: the next save is a change of its own.
      await until(() => events().some((e) => e.type === 'cycle' && e.trigger === 'start'));
      await writeFile(path.join(project.dir, 'index.js'), app(2));
      await until(() => events().some((e) => e.type === 'log' && e.line === 'version 2 up'));
      child.kill('SIGINT');
      expect(await exited).toBe(0);
      const all = events();
      const logs = all.filter((e) => e.type === 'log').map((e) => e.line);
      expect(logs.filter((l) => l === 'version 2 up')).toHaveLength(1);
      // A cycle applied the save, and the line came after the first sync. Not "after the
      // change cycle's event": the follower keeps reading while that cycle waits for health,
      // so under load the app's line may be printed before its cycle line.
      // A change cycle, or the look-again rescan when the save came before the watcher was ready.
      expect(all.some((e) => e.type === 'cycle' && (e.paths as string[]).includes('index.js') && (e.trigger === 'change' || e.trigger === 'rescan'))).toBe(true);
      const first = all.findIndex((e) => e.type === 'cycle' && e.trigger === 'start');
      expect(all.findIndex((e) => e.type === 'log' && e.line === 'version 2 up')).toBeGreaterThan(first);
    } finally {
      if (child.exitCode === null) child.kill('SIGKILL');
      await project.cleanup();
    }
  }, 120_000);
});
