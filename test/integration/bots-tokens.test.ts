/**
 * Issue 47, item 3: one running copy per token. Two targets whose env files hold one bot
 * token are named on push and env push (the value never printed); `dev --stop-remote`
 * stops the deployment that runs with dev's token while dev runs and starts it again after.
 */
import { spawn } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startEmulator, type RunningEmulator } from '../../src/emulator/index.js';
import { CLI, runCli } from '../helpers/cli.js';
import { envFor } from '../helpers/push.js';
import { tempDir, writeTree } from '../helpers/tree.js';

const TOKEN = 'MTIz.discord-token-value-never-printed';
let emu: RunningEmulator;
let other: { id: string; volume: string };
let work: { dir: string; cleanup: () => Promise<void> };
const env = () => {
  const e: Record<string, string> = { ...envFor(emu) };
  delete e.HOSTSYNC_DEPLOYMENT;
  return e;
};
const cli = (...args: string[]) => runCli([...args, '--dir', work.dir], env());

async function project(files: Record<string, string>, config: Record<string, unknown>): Promise<void> {
  await writeTree(work.dir, { 'index.js': 'setInterval(() => {}, 1000);\nconsole.log("Logged in as bot");\n', ...files });
  await writeFile(path.join(work.dir, 'hostsync.json'), JSON.stringify(config));
}
const targets = () => ({
  staging: { deployment: emu.deploymentId, envFile: '.env.staging' },
  production: { deployment: other.id, envFile: '.env.production' },
});

beforeAll(async () => {
  emu = await startEmulator({});
  other = await emu.createDeployment({ name: 'production' });
});
afterAll(async () => {
  await emu?.close();
});
beforeEach(async () => {
  work = await tempDir('hostsync-tokens-');
});
afterEach(async () => {
  await work.cleanup();
});

describe('one token, one running copy', () => {
  it('push to staging names DISCORD_TOKEN and target "production", never the value', async () => {
    await project({ '.env.staging': `DISCORD_TOKEN=${TOKEN}\nPORT=1\n`, '.env.production': `DISCORD_TOKEN=${TOKEN}\nPORT=1\n` }, { targets: targets() });
    const r = await cli('push', '--target', 'staging', '--no-apply', '--json');
    expect(r.code).toBe(0);
    const out = JSON.parse(r.stdout) as { warnings: string[] };
    const w = out.warnings.find((x) => x.includes('DISCORD_TOKEN'));
    expect(w).toContain('target "production"');
    expect(w).toContain('target "staging"');
    expect(r.stdout + r.stderr).not.toContain(TOKEN);
    expect(r.stdout).not.toContain('PORT has');
  });

  it('different tokens say nothing; a name from "tokens" and a value under another name are compared too', async () => {
    await project({ '.env.staging': 'DISCORD_TOKEN=one\nMY_SECRET=shared-value\n', '.env.production': 'DISCORD_TOKEN=two\nBOT_TOKEN=shared-value\n' }, { targets: targets() });
    const plain = JSON.parse((await cli('push', '--target', 'staging', '--no-apply', '--json')).stdout) as { warnings: string[] };
    expect(plain.warnings.filter((x) => x.includes('same value'))).toEqual([]);

    await project({}, { targets: targets(), tokens: ['MY_SECRET'] });
    const named = JSON.parse((await cli('push', '--target', 'staging', '--no-apply', '--json')).stdout) as { warnings: string[] };
    expect(named.warnings.find((x) => x.includes('same value'))).toContain('MY_SECRET (BOT_TOKEN there)');
  });

  it('watch warns once it has its configuration', async () => {
    await project({ '.env.staging': `BOT_TOKEN=${TOKEN}\n`, '.env.production': `BOT_TOKEN=${TOKEN}\n` }, { targets: targets() });
    // A bound that stops the watch, not a timing assertion: the warning comes before the first cycle ends.
    const r = await runCli(['watch', '--json', '--no-apply', '--target', 'staging', '--dir', work.dir], env(), { killAfterMs: 8_000 });
    const warning = r.stdout.split('\n').filter(Boolean).map((l) => JSON.parse(l) as { type: string; message?: string }).find((e) => e.type === 'warning');
    expect(warning?.message).toContain('BOT_TOKEN has the same value for target "staging" and target "production"');
    expect(r.stdout + r.stderr).not.toContain(TOKEN);
  });

  it('env push warns the same way, and a bad "tokens" is a usage error', async () => {
    await project({ '.env.staging': `TELEGRAM_BOT_TOKEN=${TOKEN}\n`, '.env.production': `TELEGRAM_BOT_TOKEN=${TOKEN}\n` }, { targets: targets() });
    const r = await cli('env', 'push', '--target', 'production');
    expect(r.code).toBe(0);
    expect(r.stdout + r.stderr).toContain('TELEGRAM_BOT_TOKEN has the same value for target "production" and target "staging"');
    expect(r.stdout + r.stderr).not.toContain(TOKEN);

    await project({}, { targets: targets(), tokens: 'MY_SECRET' });
    const bad = await cli('push', '--target', 'staging', '--no-apply');
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('"tokens" must be an array of variable names');
  });

  it.runIf(process.platform === 'linux')('dev warns, and --stop-remote stops production while dev runs and starts it again on exit', async () => {
    await project({ '.env': `DISCORD_TOKEN=${TOKEN}\n`, '.env.production': `DISCORD_TOKEN=${TOKEN}\n` }, { targets: { production: { deployment: other.id, envFile: '.env.production' } } });
    const up = await cli('push', '--target', 'production');
    expect(up.code).toBe(0);
    const state = async () => (await fetch(`${emu.baseUrl}/api/v1/deployments/${other.id}`, { headers: { authorization: `Bearer ${emu.apiKey}` } }).then((r) => r.json()) as { state: string }).state;
    expect(await state()).toBe('running');

    const child = spawn(process.execPath, [CLI, 'dev', '--json', '--stop-remote', '--dir', work.dir], {
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', NO_COLOR: '1', HOSTSYNC_BASE_URL: emu.baseUrl, HOSTSYNC_API_KEY: emu.apiKey },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stderr!.on('data', (d) => (stderr += d));
    const exit = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    const events: Array<Record<string, unknown>> = [];
    const waiting = new Set<() => void>();
    createInterface({ input: child.stdout! }).on('line', (line) => {
      stdout += `${line}\n`;
      events.push(JSON.parse(line) as Record<string, unknown>);
      for (const w of waiting) w();
    });
    const seen = (pred: (e: Record<string, unknown>) => boolean) =>
      new Promise<void>((resolve, reject) => {
        const check = (): void => void (events.some(pred) && resolve());
        waiting.add(check);
        check();
        void exit.then((c) => reject(new Error(`dev exited (${c}): ${stderr}`)));
      });
    try {
      await seen((e) => e.type === 'stop-remote' && e.stopped === 'production');
      const warning = events.find((e) => e.type === 'warning');
      expect(warning?.message).toContain('DISCORD_TOKEN has the same value for `hostsync dev` and target "production"');
      expect(await state()).toBe('offline');
      await seen((e) => e.type === 'app');
      child.kill('SIGTERM');
      expect(await exit).toBe(0);
      expect(events.some((e) => e.type === 'stop-remote' && e.started === 'production')).toBe(true);
      expect(await state()).toBe('running');
      expect(stdout + stderr).not.toContain(TOKEN);
    } finally {
      // A failed expectation must not leave dev (and its app) running.
      if (child.exitCode === null) child.kill('SIGTERM');
    }
  });
});
