/**
 * Issue 46, item 2: `link` took the only deployment even when it held another project (a
 * bot's folder linked a web app, and `status` then planned D server.js, D public/style.css).
 */
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startEmulator, type RunningEmulator } from '../../src/emulator/index.js';
import { runCli } from '../helpers/cli.js';
import { tempDir } from '../helpers/tree.js';

let emu: RunningEmulator;
let work: { dir: string; cleanup: () => Promise<void> };
const env = () => ({ HOSTSYNC_API_KEY: emu.apiKey, HOSTSYNC_BASE_URL: emu.baseUrl });

const WEB: Record<string, string> = {
  'server.js': "require('node:http').createServer((q, s) => s.end('web')).listen(Number(process.env.SERVER_PORT), '0.0.0.0');\n",
  'public/style.css': 'body { color: red }\n',
  'public/index.html': '<!doctype html><title>web</title>\n',
  'package.json': JSON.stringify({ name: 'web', main: 'server.js', scripts: { start: 'node server.js' } }),
};
const BOT: Record<string, string> = {
  'bot.js': "setInterval(() => console.log('tick'), 1000);\n",
  'package.json': JSON.stringify({ name: 'bot', main: 'bot.js', scripts: { start: 'node bot.js' } }),
};

async function put(root: string, files: Record<string, string>): Promise<void> {
  for (const [rel, text] of Object.entries(files)) {
    await mkdir(path.dirname(path.join(root, rel)), { recursive: true });
    await writeFile(path.join(root, rel), text);
  }
}

beforeAll(async () => {
  // The only deployment the key sees, holding a web app.
  emu = await startEmulator({ entryFile: 'server.js' });
  await put(emu.volume, WEB);
});
afterAll(async () => {
  await emu?.close();
});
beforeEach(async () => {
  work = await tempDir('hostsync-link-fit-');
});
afterEach(async () => {
  await work.cleanup();
});

describe('link and the only deployment', () => {
  it("refuses (exit 2, nothing written) a deployment holding another project, naming --deployment ID and hostsync create; --deployment takes it", async () => {
    await put(work.dir, BOT);
    const r = await runCli(['link', '--dir', work.dir], env());
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/the only deployment, "app" \(dep_\w+\), looks like another project: 3 of its 3 files are not in this folder \(public\/index\.html, public\/style\.css, server\.js\)/);
    expect(r.stderr).toContain('it starts server.js, this folder\'s entry is bot.js');
    expect(r.stderr).toContain(`hostsync link --deployment ${emu.deploymentId}`);
    expect(r.stderr).toContain('hostsync create');
    await expect(readFile(path.join(work.dir, 'hostsync.json'))).rejects.toThrow();

    const named = await runCli(['link', '--deployment', emu.deploymentId, '--dir', work.dir], env());
    expect(named.code).toBe(0);
    expect(named.stdout).toMatch(/Linked to app/);
  });

  it("links it at once when the folder is that project's (an older copy of it), or empty (a clone about to pull)", async () => {
    await put(work.dir, { 'server.js': WEB['server.js']!, 'public/style.css': 'old\n', 'package.json': WEB['package.json']!, 'notes.txt': 'mine\n' });
    const copy = await runCli(['link', '--dir', work.dir], env());
    expect(copy.code).toBe(0);
    expect(copy.stdout).toMatch(/Linked to app/);

    const empty = await tempDir('hostsync-link-empty-');
    try {
      const r = await runCli(['link', '--dir', empty.dir], env());
      expect(r.code).toBe(0);
    } finally {
      await empty.cleanup();
    }
  });
});
