/**
 * The CLI against the emulator's `html403` fault (issue #30): a CDN challenge page in
 * front of the API is one line naming a web page and exit code 5, never a JSON parse
 * error or a key/scope message, in text and in --json.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator, type RunningEmulator } from '../../src/emulator/index.js';
import { runCli } from '../helpers/cli.js';
import { envFor } from '../helpers/push.js';
import { tempDir, writeTree } from '../helpers/tree.js';

let emu: RunningEmulator;
let work: { dir: string; cleanup: () => Promise<void> };
beforeAll(async () => {
  emu = await startEmulator({ faults: 'html403=1' });
  work = await tempDir('hostsync-html403-');
  await writeTree(work.dir, { 'index.js': 'console.log(1);\n' });
});
afterAll(async () => {
  await emu.close();
  await work.cleanup();
});

describe('an HTML 403 challenge page in front of the API', () => {
  it('push: one line on stderr naming a web page, exit 5', async () => {
    const r = await runCli(['push', '--dir', work.dir], envFor(emu));
    expect(r.code).toBe(5);
    const lines = r.stderr.trim().split('\n');
    expect(lines.at(-1)).toMatch(/the address answered a web page, not the API \(HTTP 403, "Just a moment\.\.\."\): a proxy or challenge in front of it, or a wrong --base-url$/);
    expect(r.stderr).not.toMatch(/Unexpected token|JSON\.parse|scope/);
    expect(r.stderr).not.toContain(emu.apiKey);
  });

  it('status --json: the error and exitCode 5 in the one JSON object', async () => {
    const r = await runCli(['status', '--json', '--dir', work.dir], envFor(emu));
    expect(r.code).toBe(5);
    const out = JSON.parse(r.stdout);
    expect(out.exitCode).toBe(5);
    expect(out.error).toMatch(/answered a web page, not the API/);
  });
});
