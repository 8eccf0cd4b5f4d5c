/** `hostsync env` against the emulator: keys only, never a value, anywhere. */
import { readdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startEmulator, type RunningEmulator } from '../../src/emulator/index.js';
import { runCli } from '../helpers/cli.js';
import { tempDir, writeTree } from '../helpers/tree.js';

/** Values that must never show up in output, logs or state. */
const TOKEN = 'tok-3f9a1c-never-print-me';
const DB = 'postgres://u:pw-77d2e@db/app';

let emu: RunningEmulator;
let dep: { id: string; volume: string };
let work: { dir: string; cleanup: () => Promise<void> };

const env = () => ({ HOSTSYNC_API_KEY: emu.apiKey, HOSTSYNC_BASE_URL: emu.baseUrl, HOSTSYNC_DEPLOYMENT: dep.id, HOSTSYNC_LOG_LEVEL: 'debug' });
const cli = (args: string[], opts: { process?: boolean } = {}) => runCli([...args, '--dir', work.dir], env(), opts);
const api = async (p: string) => (await fetch(`${emu.baseUrl}/api/v1/deployments/${dep.id}${p}`, { headers: { authorization: `Bearer ${emu.apiKey}` } })).json() as Promise<any>;

/** Every file under .hostsync, as text. */
async function stateText(): Promise<string> {
  const root = path.join(work.dir, '.hostsync');
  const files = (await readdir(root, { recursive: true, withFileTypes: true })).filter((e) => e.isFile());
  return (await Promise.all(files.map((f) => readFile(path.join(f.parentPath, f.name), 'utf8')))).join('\n');
}

function expectNoValue(...texts: string[]): void {
  for (const t of texts) {
    expect(t).not.toContain(TOKEN);
    expect(t).not.toContain('pw-77d2e');
  }
}

beforeAll(async () => {
  emu = await startEmulator({});
});
afterAll(async () => {
  await emu?.close();
});
beforeEach(async () => {
  // A fresh deployment per test: variables do not leak between them.
  dep = await emu.createDeployment({ name: `env-${Date.now()}` });
  work = await tempDir('hostsync-env-');
  await writeFile(path.join(work.dir, 'hostsync.json'), JSON.stringify({ restart: 'never' }));
});
afterEach(async () => {
  await work.cleanup();
});

describe('hostsync env', () => {
  it('push then diff is empty; a changed value shows only that key; no value in output, logs or state', async () => {
    await writeTree(work.dir, { '.env': `DISCORD_TOKEN=${TOKEN}\nDATABASE_URL="${DB}"\nMODE=production\n` });
    const diff1 = await cli(['env', 'diff', '--json']);
    // Without --plain, every new key would be a secret.
    expect(JSON.parse(diff1.stdout).changes).toEqual([
      { key: 'DATABASE_URL', change: 'added', secret: true },
      { key: 'DISCORD_TOKEN', change: 'added', secret: true },
      { key: 'MODE', change: 'added', secret: true },
    ]);

    // A real process (not the CLI host): nothing of a value in what the process itself printed.
    const pushed = await cli(['env', 'push', '--plain', 'MODE'], { process: true });
    expect(pushed.code).toBe(0);
    expect(pushed.stdout).toMatch(/3 set, 0 deleted/);
    const vars = (await api('/env')).variables;
    expect(vars.find((v: any) => v.key === 'DISCORD_TOKEN')).toMatchObject({ secret: true, value: '********' });
    expect(vars.find((v: any) => v.key === 'MODE')).toMatchObject({ secret: false, value: 'production' });

    const empty = await cli(['env', 'diff']);
    expect(empty.code).toBe(0);
    expect(empty.stdout).toMatch(/matches deployment/);

    await writeTree(work.dir, { '.env': `DISCORD_TOKEN=${TOKEN}-rotated\nDATABASE_URL="${DB}"\nMODE=production\n` });
    const changed = await cli(['env', 'diff', '--json']);
    expect(JSON.parse(changed.stdout).changes).toEqual([{ key: 'DISCORD_TOKEN', change: 'changed', secret: true }]);
    const text = await cli(['env', 'diff']);
    expect(text.stdout).toMatch(/M {2}DISCORD_TOKEN/);
    expect(text.stdout).not.toMatch(/DATABASE_URL|MODE/);

    const list = await cli(['env', 'list']);
    expect(list.stdout).toMatch(/secret {2}DISCORD_TOKEN/);
    expectNoValue(diff1.stdout, diff1.stderr, pushed.stdout, pushed.stderr, empty.stdout, changed.stdout, text.stdout, list.stdout, list.stderr, await stateText());
  });

  it('the app sees the variables after push --restart, and not before', async () => {
    await writeTree(dep.volume, { 'index.js': "console.log('token is ' + (process.env.DISCORD_TOKEN === 'tok-3f9a1c-never-print-me' ? 'right' : 'missing'));\nsetInterval(() => {}, 1000);\n" });
    await writeTree(work.dir, { '.env': `DISCORD_TOKEN=${TOKEN}\n` });
    await fetch(`${emu.baseUrl}/api/v1/deployments/${dep.id}/apply`, { method: 'POST', headers: { authorization: `Bearer ${emu.apiKey}`, 'content-type': 'application/json' }, body: '{}' });
    expect((await api('/logs')).lines.join('\n')).toContain('token is missing');

    const r = await cli(['env', 'push', '--restart', '--json']);
    expect(r.code).toBe(0);
    const out = JSON.parse(r.stdout);
    expect(out.restart).toMatchObject({ healthy: true });
    expect((await api('/logs')).lines.join('\n')).toContain('token is right');
    expectNoValue(r.stdout, r.stderr);
  });

  it('--prune deletes only with --yes (exit 2 in a pipe, nothing changed); without it the extra key is kept with a warning', async () => {
    await writeTree(work.dir, { '.env': 'KEEP=1\nOLD=2\n' });
    expect((await cli(['env', 'push'])).code).toBe(0);
    await writeTree(work.dir, { '.env': 'KEEP=1\n' });

    const kept = await cli(['env', 'push']);
    expect(kept.code).toBe(0);
    expect(kept.stdout).toMatch(/OLD\): kept; --prune deletes/);

    const refused = await cli(['env', 'push', '--prune']);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/--prune would delete 1 variable from the deployment \(OLD\): pass --yes/);
    expect((await api('/env')).variables.map((v: any) => v.key)).toContain('OLD');

    const pruned = await cli(['env', 'push', '--prune', '--yes']);
    expect(pruned.code).toBe(0);
    expect(pruned.stdout).toMatch(/D {2}OLD/);
    expect((await api('/env')).variables.map((v: any) => v.key)).not.toContain('OLD');
  });

  it('pull writes plain values only, keeps the file\'s other lines, and lists the secrets it could not fetch', async () => {
    await writeTree(work.dir, { '.env': `MODE=production\nDISCORD_TOKEN=${TOKEN}\n` });
    expect((await cli(['env', 'push', '--plain', 'MODE'])).code).toBe(0);
    await writeTree(work.dir, { '.env': '# mine\nMODE=dev\n' });
    const r = await cli(['env', 'pull']);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/Wrote 1 plain variable .*: MODE/);
    expect(r.stdout).toMatch(/set these in the file yourself: DISCORD_TOKEN/);
    expect(await readFile(path.join(work.dir, '.env'), 'utf8')).toBe('# mine\nMODE=production\n');
    expectNoValue(r.stdout, r.stderr);
  });

  it('push warns once about keys the code reads that nobody set', async () => {
    await writeTree(dep.volume, { 'bot.js': 'const a = process.env.DISCORD_TOKEN;\nconst b = process.env["GUILD_ID"];\nconst c = process.env.OWNER_ID;\n' });
    await writeTree(work.dir, { '.env': `DISCORD_TOKEN=${TOKEN}\n` });
    const r = await cli(['env', 'push', '--json']);
    expect(r.code).toBe(0);
    const out = JSON.parse(r.stdout);
    expect(out.unset).toEqual(['GUILD_ID', 'OWNER_ID']);
    expect(out.warnings.filter((w: string) => w.includes('GUILD_ID'))).toHaveLength(1);
  });

  it('a missing file is exit 2 naming it; --file and a target\'s "envFile" choose another', async () => {
    const missing = await cli(['env', 'diff']);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/\.env does not exist/);
    await writeTree(work.dir, { '.env.staging': 'A=1\n' });
    expect(JSON.parse((await cli(['env', 'diff', '--file', '.env.staging', '--json'])).stdout).changes).toHaveLength(1);
    await writeFile(path.join(work.dir, 'hostsync.json'), JSON.stringify({ targets: { staging: { deployment: dep.id, envFile: '.env.staging' } } }));
    const viaTarget = await runCli(['env', 'diff', '-t', 'staging', '--json', '--dir', work.dir], { ...env(), HOSTSYNC_DEPLOYMENT: undefined });
    expect(JSON.parse(viaTarget.stdout)).toMatchObject({ ok: true, file: path.join(work.dir, '.env.staging') });
  });
});
