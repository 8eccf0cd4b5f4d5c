/** Issue 28, item 16: a `.env` naming a system variable (PORT) is told so and skipped, never "added" or a scope error. */
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startEmulator, type RunningEmulator } from '../../src/emulator/index.js';
import { runCli } from '../helpers/cli.js';
import { tempDir, writeTree } from '../helpers/tree.js';

let emu: RunningEmulator;
let work: { dir: string; cleanup: () => Promise<void> };
const env = () => ({ HOSTSYNC_API_KEY: emu.apiKey, HOSTSYNC_BASE_URL: emu.baseUrl, HOSTSYNC_DEPLOYMENT: emu.deploymentId });
const cli = (args: string[]) => runCli([...args, '--dir', work.dir], env());

beforeAll(async () => {
  emu = await startEmulator({});
});
afterAll(async () => {
  await emu?.close();
});
beforeEach(async () => {
  work = await tempDir('hostsync-env-system-');
  await writeFile(path.join(work.dir, 'hostsync.json'), JSON.stringify({ restart: 'never' }));
});
afterEach(async () => {
  await work.cleanup();
});

describe('system variables in the env file', () => {
  it('env diff does not call PORT added; env push sets the rest, skips PORT with one line, and exits 0', async () => {
    await writeTree(work.dir, { '.env': 'PORT=3000\nAPP_MODE=prod\n' });
    const diff = await cli(['env', 'diff', '--json']);
    const d = JSON.parse(diff.stdout);
    expect(d.changes).toEqual([{ key: 'APP_MODE', change: 'added', secret: true }]);
    expect(d.warnings).toEqual([expect.stringMatching(/^PORT is a system variable the node sets .*skipped/)]);

    const human = await cli(['env', 'diff']);
    expect(human.stdout).not.toMatch(/A {2}PORT/);
    expect(human.stdout + human.stderr).toMatch(/PORT is a system variable/);

    const push = await cli(['env', 'push']);
    expect(push.stderr).not.toMatch(/env:write/);
    expect(push.code).toBe(0);
    const lines = (push.stdout + push.stderr).split('\n').filter((l) => l.includes('PORT'));
    expect(lines).toHaveLength(1);

    const after = JSON.parse((await cli(['env', 'diff', '--json'])).stdout);
    expect(after.changes).toEqual([]);
  });
});
