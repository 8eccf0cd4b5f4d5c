/**
 * A key that may write files but not apply them (issue 12, item 6): found before the
 * transfer, at the cost of one request once per key and deployment; and when it is
 * found only at the apply, the report says what was written.
 */
import { readdir, rm } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startEmulator, type RunningEmulator } from '../../src/emulator/index.js';
import { runPush } from '../../src/app/push.js';
import { KnownScopes } from '../../src/remote/scopes.js';
import { EXIT } from '../../src/errors.js';
import { tempDir, writeTree } from '../helpers/tree.js';
import { testKey } from '../helpers/keys.js';

const NO_APPLY_KEY = testKey('files_only');
let emu: RunningEmulator;
let work: { dir: string; cleanup: () => Promise<void> };

beforeAll(async () => {
  emu = await startEmulator({
    runtime: 'static', seed: 6, rateLimit: 1_000_000, userRateLimit: 1_000_000,
    keys: [`${NO_APPLY_KEY}:files:read,files:write,deployments:read`],
  });
});
afterAll(async () => {
  await emu?.close();
});
beforeEach(async () => {
  work = await tempDir('hostsync-scope-');
  for (const name of await readdir(emu.volume)) await rm(path.join(emu.volume, name), { recursive: true, force: true });
});
afterEach(async () => {
  await work.cleanup();
});

const opts = (apiKey: string) => ({
  dir: work.dir,
  env: { HOSTSYNC_API_KEY: apiKey, HOSTSYNC_BASE_URL: emu.baseUrl, HOSTSYNC_DEPLOYMENT: emu.deploymentId },
});
const known = (apiKey: string) => new KnownScopes({ origin: new URL(emu.baseUrl).origin, apiKey, deploymentId: emu.deploymentId });

describe('the apply scope (review 6)', () => {
  it('a key without deployments:write is refused before anything is written (exit 2, the volume untouched)', async () => {
    await writeTree(work.dir, { 'index.html': '<h1>hi</h1>\n', 'app.css': 'body{}\n' });
    const { result } = await runPush(opts(NO_APPLY_KEY));
    expect(result.exitCode).toBe(EXIT.usage);
    expect(result.error).toMatch(/may not apply changes to deployment .*"deployments:write".*nothing was written: give the key the "deployments:write" scope .*or push with --no-apply/);
    expect((await readdir(emu.volume)).filter((n) => n !== '.hostsync')).toEqual([]);
    expect(result.requests.byOperation['files.writeMany'] ?? 0).toBe(0);
    expect(await known(NO_APPLY_KEY).has('deployments:write')).toBe(false);
    // --no-apply needs no such scope, and still works.
    const noApply = (await runPush({ ...opts(NO_APPLY_KEY), apply: false })).result;
    expect(noApply.error).toBeUndefined();
    expect(noApply.changes.written).toBe(2);
  });

  it('a key with it pays one request to learn so, once: the next pushes cost what they did', async () => {
    await writeTree(work.dir, { 'index.html': 'v1\n' });
    const first = (await runPush(opts(emu.apiKey))).result;
    expect(first.error).toBeUndefined();
    expect(first.requests.byOperation['deployments.update']).toBe(1);
    await writeTree(work.dir, { 'index.html': 'v2\n' });
    const second = (await runPush(opts(emu.apiKey))).result;
    expect(second.error).toBeUndefined();
    expect(second.requests.byOperation['deployments.update']).toBeUndefined();
    expect(second.changes.written).toBe(1);
  });

  it('a scope lost since it was learnt: the report says what was written, and that the apply was refused', async () => {
    // Learnt while the key had it (simulated), then narrowed in the account's settings.
    await known(NO_APPLY_KEY).remember('deployments:write');
    await writeTree(work.dir, { 'index.html': 'v1\n', 'app.css': 'body{}\n' });
    const { result } = await runPush(opts(NO_APPLY_KEY));
    expect(result.exitCode).toBe(EXIT.usage);
    expect(result.changes.written).toBe(2);
    expect(result.applyPending).toBe(true);
    expect(result.applyRefused).toMatch(/refused the apply \(403\).*the files landed and the apply stays pending/);
    expect(result.error).toMatch(/^2 written, 0 deleted, 0 moved, 0 chmod, but the service refused the apply \(403\)/);
    // .hostsync/ holds hostsync's base record, not the app's files.
    expect((await readdir(emu.volume)).filter((n) => n !== '.hostsync').sort()).toEqual(['app.css', 'index.html']);
    // Forgotten: the next push with a change asks again, before writing.
    expect(await known(NO_APPLY_KEY).has('deployments:write')).toBe(false);
  });
});
