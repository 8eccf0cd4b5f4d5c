/**
 * The deployment as code (#29), end to end through the real CLI against the emulator:
 * hostsync.json "startup" and "size" shown by status and set by push, a setting changed
 * on the deployment as a conflict, a runtime change refused unless named, `restart`.
 */
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startEmulator, type RunningEmulator } from '../../src/emulator/index.js';
import { HostingClient } from '../../src/remote/client.js';
import { runCli } from '../helpers/cli.js';
import { envFor } from '../helpers/push.js';
import { tempDir, writeTree } from '../helpers/tree.js';

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  await Promise.all(cleanups.splice(0).map((c) => c()));
});

async function setup(files: Record<string, string>, opts: Parameters<typeof startEmulator>[0] = {}) {
  const emu = await startEmulator(opts);
  const work = await tempDir('hostsync-settings-');
  const client = new HostingClient({ baseUrl: emu.baseUrl, apiKey: emu.apiKey, deploymentId: emu.deploymentId });
  cleanups.push(async () => {
    await client.close();
    await emu.close();
    await work.cleanup();
  });
  await writeTree(work.dir, files);
  const cli = (...args: string[]) => runCli([...args, '--dir', work.dir], envFor(emu));
  const json = async (...args: string[]) => {
    const r = await cli(...args, '--json');
    return { code: r.code, out: JSON.parse(r.stdout) as Record<string, any>, stderr: r.stderr };
  };
  const config = async (): Promise<Record<string, any>> => JSON.parse(await readFile(path.join(work.dir, 'hostsync.json'), 'utf8'));
  const setConfig = async (patch: Record<string, unknown>) => writeFile(path.join(work.dir, 'hostsync.json'), JSON.stringify({ ...(await config()), ...patch }));
  return { emu, dir: work.dir, client, cli, json, config, setConfig };
}

/** A bot: prints its ready line, then stays alive without listening. */
const BOT = "console.log('Ready! Logged in as TestBot#0001');\nsetInterval(() => {}, 60000);\n";

describe('startup settings', () => {
  it('a bot whose entry is bot.js (package.json main and scripts.start), pushed from a fresh init, is running', async () => {
    const t = await setup({
      'package.json': JSON.stringify({ name: 'bot', main: 'bot.js', scripts: { start: 'node bot.js' } }),
      'bot.js': BOT,
    });
    const init = await t.cli('init');
    expect(init.code).toBe(0);
    expect((await t.config()).startup).toEqual({ runtime: 'nodejs', entryFile: 'bot.js' });

    const status = await t.cli('status');
    expect(status.code).toBe(0);
    expect(status.stdout).toContain('S  entryFile: index.js -> bot.js');

    const push = await t.json('push');
    expect(push.code).toBe(0);
    expect(push.out.settings.changes).toEqual([{ key: 'entryFile', from: 'index.js', to: 'bot.js' }]);
    expect(push.out.settings.applied).toBe(true);
    expect(push.out.healthy).toBe(true);
    expect(push.out.requests.byOperation['deployments.updateStartup']).toBe(1);
    expect(push.out.apply.restarted).toBe(true);
    expect((await t.client.deployments.get()).startup.entryFile).toBe('bot.js');
    expect((await t.client.deployments.logs(50)).lines.join('\n')).toContain('Logged in as TestBot#0001');

    // The steady state: settings equal to what the last push left cost no request.
    const again = await t.json('push');
    expect(again.code).toBe(0);
    expect(again.out.settings).toMatchObject({ changes: [], conflicts: [], requests: 0 });
    expect(again.out.requests.byOperation['deployments.get']).toBeUndefined();
  });

  it('a changed setting is shown and applied; one changed on the deployment since is a conflict until --force', async () => {
    const t = await setup({ 'index.js': BOT, 'b.js': BOT, 'c.js': BOT, 'hostsync.json': JSON.stringify({ startup: { entryFile: 'index.js' } }) });
    expect((await t.cli('push')).code).toBe(0);

    await t.setConfig({ startup: { entryFile: 'b.js' } });
    const dry = await t.cli('push', '--dry-run');
    expect(dry.code).toBe(0);
    expect(dry.stdout).toContain('S  entryFile: index.js -> b.js');
    expect((await t.client.deployments.get()).startup.entryFile).toBe('index.js');
    expect((await t.cli('push')).code).toBe(0);
    expect((await t.client.deployments.get()).startup.entryFile).toBe('b.js');

    // Someone changes it in the dashboard; hostsync.json now says yet another.
    await t.client.deployments.updateStartup({ entryFile: 'c.js' });
    await t.setConfig({ startup: { entryFile: 'index.js' } });
    const status = await t.json('status');
    expect(status.code).toBe(3);
    expect(status.out.settings.conflicts).toEqual([{ key: 'entryFile', local: 'index.js', remote: 'c.js', base: 'b.js' }]);
    const human = await t.cli('status');
    expect(human.stdout).toContain('S! entryFile: deployment c.js (was b.js), hostsync.json index.js');
    const refused = await t.json('push');
    expect(refused.code).toBe(3);
    expect(refused.out.error).toMatch(/changed on the deployment since the last push/);
    expect((await t.client.deployments.get()).startup.entryFile).toBe('c.js');
    // Still a conflict the next time: the base keeps what the last push left.
    expect((await t.json('status')).code).toBe(3);

    const forced = await t.json('push', '--force');
    expect(forced.code).toBe(0);
    expect((await t.client.deployments.get()).startup.entryFile).toBe('index.js');
  });

  it('a start command is compared as the service runs it (with exec added), so it is set once', async () => {
    const t = await setup({ 'index.js': BOT, 'hostsync.json': JSON.stringify({ startup: { startCommand: 'node index.js --flag' } }) });
    const first = await t.json('push');
    expect(first.code).toBe(0);
    expect(first.out.settings.changes).toHaveLength(1);
    expect((await t.client.deployments.get()).startup.startCommand).toBe('exec node index.js --flag');
    const status = await t.json('status');
    expect(status.out.settings).toMatchObject({ changes: [], conflicts: [] });
  });

  it('size: a RAM below hostsync.json\'s is resized before the files are applied', async () => {
    const t = await setup({ 'index.js': BOT, 'hostsync.json': JSON.stringify({ size: { ramMB: 1024 } }) });
    const before = (await t.client.deployments.get()).resources;
    expect(before.ramMB).not.toBe(1024);
    const status = await t.cli('status');
    expect(status.stdout).toContain(`S  ramMB: ${before.ramMB} -> 1024`);
    const push = await t.json('push');
    expect(push.code).toBe(0);
    expect(push.out.requests.byOperation['deployments.resize']).toBe(1);
    const after = (await t.client.deployments.get()).resources;
    expect(after).toEqual({ ramMB: 1024, cpuPercent: before.cpuPercent, storageMB: before.storageMB });
  });

  it('an install the deployment is too small for is named before the first start (issue 30), and not once the size is declared', async () => {
    const t = await setup({
      'package.json': JSON.stringify({ name: 'api', main: 'server.js', dependencies: { express: '^4.19.0' } }),
      'server.js': 'require("http").createServer((q, s) => s.end("ok")).listen(process.env.SERVER_PORT);\n',
      'hostsync.json': JSON.stringify({ startup: { entryFile: 'server.js' } }),
    });
    const dry = await t.json('push', '--dry-run');
    expect(dry.out.settings.warnings.join('\n')).toMatch(/256 MB RAM and .* needs 512 MB or more .*exit 137/);
    await t.setConfig({ size: { ramMB: 512 } });
    const sized = await t.json('push', '--dry-run');
    expect(sized.out.settings.warnings).toEqual([]);
  });

  it('a runtime change (which deletes every file) is refused unless named with --change-runtime', async () => {
    const t = await setup({ 'index.html': '<title>site</title>\n', 'hostsync.json': JSON.stringify({ startup: { runtime: 'static' } }) });
    const refused = await t.json('push');
    expect(refused.code).toBe(3);
    expect(refused.out.error).toMatch(/--change-runtime static/);
    expect((await t.client.deployments.get()).startup.runtime).toBe('nodejs');
    const status = await t.json('status');
    expect(status.code).toBe(3);

    const wrongName = await t.json('push', '--change-runtime', 'python');
    expect(wrongName.code).toBe(3);
    const named = await t.json('push', '--change-runtime', 'static');
    expect(named.code).toBe(0);
    expect((await t.client.deployments.get()).startup.runtime).toBe('static');
    // The files the service deleted went up again.
    expect(await readFile(path.join(t.emu.volume, 'index.html'), 'utf8')).toContain('site');
    expect((await t.cli('status')).stdout).toContain('Nothing to push');
  });
});

describe('hostsync restart', () => {
  it('restarts the app in one request and judges it as push does: 0 when it comes up, 4 when it does not', async () => {
    const t = await setup({ 'index.js': BOT });
    expect((await t.cli('push')).code).toBe(0);
    const r = await t.json('restart');
    expect(r.code).toBe(0);
    expect(r.out).toMatchObject({ ok: true, healthy: true, apply: { restarted: true } });
    expect(r.out.requests.byOperation['deployments.apply']).toBe(1);

    await writeFile(path.join(t.emu.volume, 'index.js'), "throw new Error('boom at start');\n");
    const bad = await t.cli('restart');
    expect(bad.code).toBe(4);
    expect(bad.stdout).toContain('Error: boom at start');
  });
});

describe('hostsync open and create', () => {
  it('open prints the app\'s URL (one request), and status shows it too', async () => {
    const web = "require('node:http').createServer((q, s) => s.end('<title>w</title>')).listen(Number(process.env.SERVER_PORT), '0.0.0.0');\n";
    const t = await setup({ 'index.js': web });
    expect((await t.cli('push')).code).toBe(0);
    const r = await t.json('open');
    expect(r.code).toBe(0);
    expect(r.out.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/?$/);
    expect(r.out.requests.total).toBe(1);
    const human = await t.cli('open');
    expect(human.stdout.trim()).toBe(r.out.url);
    const status = await t.cli('status');
    expect(status.stdout.split('\n')[0]).toContain(r.out.url);
  });

  it('create makes a deployment with hostsync.json\'s runtime and size in one request and links it; the first push sets the entry file', async () => {
    const t = await setup({ 'bot.js': BOT, 'hostsync.json': JSON.stringify({ startup: { runtime: 'nodejs', entryFile: 'bot.js' }, size: { ramMB: 768 } }) });
    const env = { HOSTSYNC_API_KEY: t.emu.apiKey, HOSTSYNC_BASE_URL: t.emu.baseUrl };
    const r = await runCli(['create', 'my-bot', '--json', '--dir', t.dir], env);
    expect(r.code, r.stderr).toBe(0);
    const out = JSON.parse(r.stdout);
    expect(out).toMatchObject({ ok: true, deployment: { name: 'my-bot', runtime: 'nodejs', ramMB: 768 }, requests: { total: 1 } });
    expect((await t.config()).deployment).toBe(out.deployment.id);
    const push = await runCli(['push', '--json', '--dir', t.dir], env);
    expect(push.code, push.stdout).toBe(0);
    expect(JSON.parse(push.stdout).settings.changes.map((c: { key: string }) => c.key)).toEqual(['entryFile']);
  });
});
