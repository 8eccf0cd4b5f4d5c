/**
 * The node runtime's default start installs dependencies first, as the service's does.
 * Offline: the only dependency is a `file:` package inside the volume, which npm links
 * without reaching any registry.
 */
import { existsSync } from 'node:fs';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import path from 'node:path';
import type { DeploymentState } from '../../src/api/types.js';
import { DeploymentRunner, type RunnerOptions } from '../../src/emulator/runner.js';
import { tempDir, writeTree } from '../helpers/tree.js';

/** A web app that needs the local package `greet` (linked from vendor/greet by npm install). */
const APP = {
  'package.json': JSON.stringify({ name: 'app', private: true, dependencies: { greet: 'file:./vendor/greet' } }),
  'vendor/greet/package.json': JSON.stringify({ name: 'greet', version: '1.0.0', main: 'index.js' }),
  'vendor/greet/index.js': "module.exports = (who) => 'hello ' + who;\n",
  'index.js':
    "const greet = require('greet');\n" +
    "require('node:http').createServer((q, s) => s.end(greet('world'))).listen(Number(process.env.SERVER_PORT), '0.0.0.0');\n",
};

let root: { dir: string; cleanup: () => Promise<void> };
const runners: DeploymentRunner[] = [];

const offlineBefore = process.env.npm_config_offline;
beforeAll(async () => {
  root = await tempDir('hostsync-install-');
  // The install passes this on to npm: no test may depend on a registry.
  process.env.npm_config_offline = 'true';
});
afterEach(async () => {
  await Promise.all(runners.splice(0).map((r) => r.dispose()));
});
afterAll(async () => {
  if (offlineBefore === undefined) delete process.env.npm_config_offline;
  else process.env.npm_config_offline = offlineBefore;
  await root.cleanup();
});

let n = 0;
async function runnerFor(files: Record<string, string>, opts: Partial<RunnerOptions> = {}): Promise<{ r: DeploymentRunner; volume: string }> {
  const volume = path.join(root.dir, `vol-${n++}`);
  await writeTree(volume, files);
  // Enough RAM for npm install (512 MB, hosting-api.md) unless a test asks for less.
  const r = new DeploymentRunner({ volume, runtime: 'nodejs', entryFile: 'index.js', ramMB: 512, ...opts });
  runners.push(r);
  return { r, volume };
}

/** Every distinct state the runner passes through until `done` settles, read on every turn of the event loop. */
async function statesDuring(r: DeploymentRunner, done: Promise<unknown>): Promise<DeploymentState[]> {
  const seen: DeploymentState[] = [r.state];
  let finished = false;
  void done.finally(() => (finished = true));
  while (!finished) {
    await new Promise((resolve) => setImmediate(resolve));
    if (seen.at(-1) !== r.state) seen.push(r.state);
  }
  return seen;
}

describe('the default start installs dependencies', () => {
  it('shows installing, runs npm install in the volume, then starts the app, which finds its dependency', async () => {
    const { r, volume } = await runnerFor(APP);
    const applied = r.apply({});
    const states = await statesDuring(r, applied);
    const result = await applied;
    expect(states.slice(0, 2)).toEqual(['offline', 'installing']);
    expect(result.state).toBe('running');
    expect(result.http).toMatchObject({ status: 200, ok: true, bodyExcerpt: 'hello world' });
    expect(existsSync(path.join(volume, 'node_modules', 'greet', 'index.js'))).toBe(true);
    const logs = result.logs.join('\n');
    expect(logs).toContain('[emulator] installing: npm install (package.json lists 1 dependency)');
    expect(logs).toContain('[emulator] npm install done');
    // The install belongs to this start: it comes after the start marker.
    expect(logs.indexOf('[emulator] starting: node index.js')).toBeLessThan(logs.indexOf('[emulator] installing:'));
  });

  it('installs at every boot, as the runtime default does, unchanged manifests included (issue 47, item 4)', async () => {
    const { r, volume } = await runnerFor(APP);
    await r.apply({});
    const again = await r.apply({});
    expect(again.state).toBe('running');
    expect(again.logs.join('\n')).toContain('[emulator] installing: npm install (package.json and package-lock.json unchanged since the last install; the default start installs at every boot)');
    await writeTree(volume, { 'package.json': JSON.stringify({ name: 'app', version: '1.0.1', dependencies: { greet: 'file:./vendor/greet' } }) });
    const changed = await r.apply({});
    expect(changed.state).toBe('running');
    expect(changed.logs.filter((l) => l.startsWith('[emulator] installing:'))).toHaveLength(3);
  });

  it('installs nothing when package.json lists no dependency', async () => {
    const { r } = await runnerFor({ 'package.json': '{"name":"bare"}', 'index.js': APP['index.js'].replace("require('greet')", '(w) => w') });
    const result = await r.apply({});
    expect(result.state).toBe('running');
    expect(result.logs.join('\n')).not.toContain('installing');
  });

  it('with install turned off (--no-install), the app starts without its dependency and crashes as it would', async () => {
    const { r } = await runnerFor(APP, { install: false });
    const result = await r.apply({});
    expect(result.state).toBe('offline');
    expect(result.logs.join('\n')).toContain("Cannot find module 'greet'");
    expect(result.logs.join('\n')).not.toContain('installing');
  });

  it('a user startCommand replaces the default start, install included', async () => {
    const { r } = await runnerFor(APP, { startCommand: 'node index.js' });
    const result = await r.apply({});
    expect(result.state).toBe('offline');
    expect(result.logs.join('\n')).toContain("Cannot find module 'greet'");
  });

  it('at the default 256 MB the install is killed as the service kills it: exit 137, out of memory, the app never starts', async () => {
    const { r } = await runnerFor(APP, { ramMB: undefined });
    const result = await r.apply({});
    expect(result.state).toBe('offline');
    expect(result.resources.ramLimitMB).toBe(256);
    const logs = result.logs.join('\n');
    expect(logs).toContain('[emulator] npm install exited with code 137');
    expect(logs).toContain('[emulator] Out of memory: true (the deployment has 256 MB; npm install needs 512 MB or more)');
    expect(result.logs.some((l) => l.startsWith('[emulator] process'))).toBe(false);
    expect(result.hint).toBe('npm install was killed for want of memory (exit code 137, Out of memory: true): the deployment has 256 MB and npm install needs 512 MB or more; resize it (deployments.resize) and start it again.');

    r.setMemoryLimit(512);
    const resized = await r.apply({});
    expect(resized.state).toBe('running');
    expect(resized.hint).toBe('');
  });

  it('a Svelte/Next-class framework among the dependencies needs 1024 MB: killed at 512, installed at 1024', async () => {
    const files = {
      ...APP,
      'package.json': JSON.stringify({ name: 'app', private: true, dependencies: { greet: 'file:./vendor/greet', next: 'file:./vendor/next' } }),
      'vendor/next/package.json': JSON.stringify({ name: 'next', version: '0.0.0' }),
    };
    const { r } = await runnerFor(files);
    const small = await r.apply({});
    expect(small.state).toBe('offline');
    expect(small.logs).toContain('[emulator] Out of memory: true (the deployment has 512 MB; npm install of a next build needs 1024 MB or more)');
    r.setMemoryLimit(1024);
    expect((await r.apply({})).state).toBe('running');
  });

  it('a failing install leaves the app offline with npm\'s error and a hint naming the exit code', async () => {
    const { r } = await runnerFor({ ...APP, 'package.json': '{"name": "app", "dependencies": ' });
    const result = await r.apply({});
    expect(result.state).toBe('offline');
    expect(result.hint).toMatch(/^npm install exited with code [1-9]\d*, so the app was not started; the last log lines show why\.$/);
  });
});
