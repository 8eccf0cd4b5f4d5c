/**
 * Review 12: an app process must not outlive a killed emulator. The emulator runs each app
 * in its own process group and records the groups in its data folder; SIGKILL skips every
 * exit handler, so the next start on that folder kills what the record lists.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { processStart } from '../../src/emulator/proc-stats.js';
import { startEmulator } from '../../src/emulator/index.js';
import { CLI } from '../helpers/cli.js';
import { tempDir } from '../helpers/tree.js';

interface Ready {
  baseUrl: string;
  apiKey: string;
  deploymentId: string;
  volume: string;
}

const cleanups: Array<() => Promise<unknown> | void> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

/** `hostsync emulator --data DIR` as its own process, and its ready line. */
function emulator(data: string | null): Promise<{ child: ChildProcess; ready: Ready }> {
  const child = spawn(process.execPath, [CLI, 'emulator', ...(data === null ? [] : ['--data', data]), '--no-install', '--boot-grace', '0.2', '--no-backups'], {
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', NO_COLOR: '1', TMPDIR: tmpdir() },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  cleanups.push(() => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  });
  return new Promise((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      const line = out.split('\n').find((l) => l.startsWith('{'));
      if (line) resolve({ child, ready: JSON.parse(line) as Ready });
    });
    child.on('exit', (code) => reject(new Error(`emulator exited (${code}) before its ready line: ${out}`)));
  });
}

async function api(ready: Ready, method: string, route: string, body?: unknown): Promise<unknown> {
  const res = await fetch(`${ready.baseUrl}/api/v1${route}`, {
    method,
    headers: { Authorization: `Bearer ${ready.apiKey}`, 'Content-Type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return res.json();
}

const running = (pid: number): boolean => processStart(pid) !== null;

/** Polls `check` until it holds; the test's own timeout bounds it (no timing threshold). */
async function until(check: () => boolean): Promise<void> {
  while (!check()) await new Promise((r) => setTimeout(r, 50));
}

/**
 * Starts the app of a fresh emulator (it writes its pid and spawns a child of its own: the
 * whole group must go), then SIGKILLs the emulator. Returns the two pids, still running.
 */
async function orphanApp(first: { child: ChildProcess; ready: Ready }, { shared = false } = {}): Promise<[number, number]> {
  writeFileSync(
    path.join(first.ready.volume, 'index.js'),
    [
      "const { spawn } = require('node:child_process');",
      "const fs = require('node:fs');",
      "const kid = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' });",
      "fs.writeFileSync(__dirname + '/pids', `${process.pid} ${kid.pid}`);",
      'setInterval(() => {}, 1000);',
    ].join('\n'),
  );
  await api(first.ready, 'POST', `/deployments/${first.ready.deploymentId}/power`, { action: 'start' });
  const pidsFile = path.join(first.ready.volume, 'pids');
  await until(() => existsSync(pidsFile) && readFileSync(pidsFile, 'utf8').includes(' '));
  const pids = readFileSync(pidsFile, 'utf8').split(' ').map(Number) as [number, number];
  cleanups.push(() => {
    for (const pid of pids) if (running(pid)) process.kill(pid, 'SIGKILL');
  });
  expect(pids.every(running)).toBe(true);
  first.child.kill('SIGKILL');
  await new Promise((r) => first.child.once('exit', r));
  // No handler ran: the app and its child are still there, orphaned. (Not checked for a
  // temporary folder: any emulator another test process starts now may sweep it first.)
  if (!shared) expect(pids.every(running)).toBe(true);
  return pids;
}

describe('app processes of a killed emulator', () => {
  it('an app left running by a SIGKILLed emulator is killed by the next start on its data folder', async () => {
    const data = await tempDir('hostsync-orphans-');
    cleanups.push(data.cleanup);
    const [app, grandchild] = await orphanApp(await emulator(data.dir));

    const second = await emulator(data.dir);
    // The ready line comes after the sweep (drained before listening).
    expect(running(app)).toBe(false);
    expect(running(grandchild)).toBe(false);
    second.child.kill('SIGTERM');
    await new Promise((r) => second.child.once('exit', r));
  });

  it('with a temporary data folder, any later emulator start kills them and removes the folder', async () => {
    const first = await emulator(null);
    const data = first.ready.volume.slice(0, first.ready.volume.indexOf(path.sep, first.ready.volume.indexOf('hostsync-emulator-')));
    cleanups.push(() => rmSync(data, { recursive: true, force: true }));
    const [app, grandchild] = await orphanApp(first, { shared: true });
    const other = await startEmulator({ runtime: 'static' });
    cleanups.push(() => other.close());
    expect(running(app)).toBe(false);
    expect(running(grandchild)).toBe(false);
    expect(existsSync(data)).toBe(false);
  });
});
