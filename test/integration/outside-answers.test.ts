/**
 * Issue 44: what comes from outside stays in its place. Answers the emulator, faithful to
 * the contract, never gives are played by a proxy in front of it that rewrites them
 * (test/helpers/rewrite-proxy.ts); the built CLI runs against the proxy.
 */
import { spawn } from 'node:child_process';
import { chmod, mkdir, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { startEmulator, type RunningEmulator } from '../../src/emulator/index.js';
import { desktopOpener } from '../../src/cli/commands/open.js';
import { webAddress } from '../../src/model/web-address.js';
import { CLI, runCli, TEST_CONFIG_HOME } from '../helpers/cli.js';
import { envFor } from '../helpers/push.js';
import { startRewriteProxy, type Rewrite } from '../helpers/rewrite-proxy.js';
import { tempDir, writeTree } from '../helpers/tree.js';

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  await Promise.all(cleanups.splice(0).map((c) => c()));
});

/** An emulator, a proxy in front of it rewriting with `rewrite`, a project folder holding `files`. */
async function setup(files: Record<string, string>, rewrite: Rewrite) {
  const emu: RunningEmulator = await startEmulator({ rateLimit: 1_000_000, userRateLimit: 1_000_000 });
  const proxy = await startRewriteProxy(emu.baseUrl, rewrite);
  const work = await tempDir('hostsync-outside-');
  cleanups.push(async () => {
    await proxy.close();
    await emu.close();
    await work.cleanup();
  });
  await writeTree(work.dir, files);
  const env = envFor({ ...emu, baseUrl: proxy.baseUrl });
  const cli = (args: string[], more: Record<string, string> = {}) => runCli([...args, '--dir', work.dir], { ...env, ...more });
  return { emu, dir: work.dir, env, cli };
}

/** The deployment record's `domains.url` replaced by what `url()` says at the time. */
const domainUrl = (url: () => string): Rewrite => (op, body, req) => {
  if (req.method !== 'GET' || !/^\/deployments\/[^/]+$/.test(op)) return undefined;
  const record = body as { domains?: Record<string, unknown> | null };
  return { ...record, domains: { ...(record.domains ?? {}), url: url() } };
};

const HOSTILE_ADDRESSES = ['file:///etc/passwd', 'javascript:alert(document.cookie)', '--help', 'http://x/\n--help'];

describe('issue 44 item 3: open hands the opener only a plain web address', () => {
  it('refuses an address that is not http: or https:, in one line naming it (exit 1), and prints no URL', async () => {
    let given = '';
    const t = await setup({ 'index.html': 'x\n' }, domainUrl(() => given));
    for (const address of HOSTILE_ADDRESSES) {
      given = address;
      const json = await t.cli(['open', '--json']);
      expect(json.code, address).toBe(1);
      const out = JSON.parse(json.stdout) as { ok: boolean; url: string | null; error: string };
      expect(out).toMatchObject({ ok: false, url: null });
      expect(out.error).toContain(`${JSON.stringify(address)} is not an http: or https: URL: not opened`);
      const human = await t.cli(['open']);
      expect(human.code).toBe(1);
      expect(human.stdout).toBe('');
      expect(human.stderr.trim().split('\n')).toHaveLength(1);
    }
    given = 'https://app.example.test/a b?q="x"';
    const ok = await t.cli(['open']);
    expect(ok.code).toBe(0);
    expect(ok.stdout).toBe('https://app.example.test/a%20b?q=%22x%22\n');
  });

  it('the address is parsed and serialised again, and the Windows opener does not go through cmd', () => {
    expect(webAddress('http://x/&calc.exe')).toBe('http://x/&calc.exe');
    expect(webAddress('HTTPS://Example.test')).toBe('https://example.test/');
    for (const a of HOSTILE_ADDRESSES) expect(webAddress(a)).toBeNull();
    const desktop = { DISPLAY: ':0' };
    expect(desktopOpener(desktop, 'win32', true)).toEqual(['rundll32', 'url.dll,FileProtocolHandler']);
    expect(desktopOpener(desktop, 'darwin', true)).toEqual(['open']);
    expect(desktopOpener(desktop, 'linux', true)).toEqual(['xdg-open']);
    expect(desktopOpener({ ...desktop, CI: 'true' }, 'linux', true)).toBeNull();
    expect(desktopOpener(desktop, 'linux', false)).toBeNull();
  });

  // The opener is started only on a terminal: util-linux's `script` gives the CLI one.
  it.runIf(process.platform === 'linux')('xdg-open gets only the web address, as one argument; the hostile ones never reach it', async () => {
    let given = '';
    const t = await setup({ 'index.html': 'x\n' }, domainUrl(() => given));
    const bin = path.join(t.dir, '..', `${path.basename(t.dir)}-bin`);
    await mkdir(bin, { recursive: true });
    cleanups.push(() => import('node:fs/promises').then((fs) => fs.rm(bin, { recursive: true, force: true })));
    const log = path.join(bin, 'opened.log');
    await writeTree(bin, { 'xdg-open': `#!/bin/sh\nfor a in "$@"; do printf 'ARG[%s]\\n' "$a"; done >> '${log}'\n` });
    await chmod(path.join(bin, 'xdg-open'), 0o755);
    const quote = (s: string): string => `'${s.replace(/'/g, `'\\''`)}'`;
    const env = { PATH: `${bin}:${process.env.PATH ?? ''}`, HOME: process.env.HOME ?? '/tmp', NO_COLOR: '1', XDG_CONFIG_HOME: TEST_CONFIG_HOME, DISPLAY: ':0', ...t.env };
    const onTerminal = (): Promise<number> =>
      new Promise((resolve, reject) => {
        const command = [process.execPath, CLI, 'open', '--dir', t.dir].map(quote).join(' ');
        const child = spawn('script', ['-qec', command, '/dev/null'], { env, stdio: 'ignore' });
        child.on('error', reject);
        child.on('exit', (code) => resolve(code ?? 1));
      });
    for (const address of HOSTILE_ADDRESSES) {
      given = address;
      expect(await onTerminal(), address).toBe(1);
    }
    given = 'http://x/&calc.exe';
    expect(await onTerminal()).toBe(0);
    // The opener runs detached: its line is awaited, and by then the earlier ones would have come.
    while (!(await stat(log).catch(() => null))?.size) await sleep(20);
    expect(await readFile(log, 'utf8')).toBe('ARG[http://x/&calc.exe]\n');
  });
});

describe('issue 44 item 5: names and strings from outside are escaped before a terminal or a CI log', () => {
  it('a deployment file named "x\\n::warning::pwned" or holding ESC/BEL prints quoted, on its own line, in CI', async () => {
    const t = await setup({ 'index.html': 'x\n' }, () => undefined);
    expect((await t.cli(['push', '--no-apply'])).code).toBe(0);
    await writeTree(t.emu.volume, { 'x\n::warning::pwned': 'a\n', 't\u001b]0;pwned\u0007': 'b\n' });
    const r = await t.cli(['status'], { CI: 'true' });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).not.toMatch(/^::/m);
    expect(r.stdout).not.toMatch(/[\u0007\u001b]/);
    expect(r.stdout).toContain('"x\\n::warning::pwned"');
    expect(r.stdout).toContain('"t\\033]0;pwned\\a"');
  });

  it('a record batch whose host holds a newline cannot print a forged ::error:: line', async () => {
    const t = await setup({ 'a.txt': 'one\n' }, () => undefined);
    expect((await t.cli(['push', '--no-apply'])).code).toBe(0);
    // A second copy of the project: its push is "from elsewhere" for the first.
    const other = await tempDir('hostsync-outside-other-');
    cleanups.push(other.cleanup);
    await writeTree(other.dir, { 'a.txt': 'two\n' });
    const pushed = await runCli(['push', '--no-apply', '--force', '--dir', other.dir], t.env);
    expect(pushed.code, pushed.stderr).toBe(0);
    const records = path.join(t.emu.volume, '.hostsync');
    const { readdir, writeFile } = await import('node:fs/promises');
    const name = (await readdir(records)).find((n) => /^base-[0-9a-f]{32}\.rec$/.test(n))!;
    const text = await readFile(path.join(records, name), 'utf8');
    await writeFile(path.join(records, name), text.replace(/"host":"[^"]*"/g, '"host":"ci\\n::error::pwned"'));
    const r = await t.cli(['status'], { CI: 'true' });
    expect(r.stdout).toContain('a.txt');
    expect(r.stdout).toContain('"ci\\n::error::pwned"');
    expect(r.stdout).not.toMatch(/^::/m);
  });

  it('the app\'s log lines keep their text, lose their escape sequences, and stay one line each', async () => {
    const t = await setup({ 'index.html': 'x\n' }, (op, body) =>
      op.endsWith('/logs') ? { ...(body as object), lines: ['\u001b[32mready\u001b[0m on :3000', '\u001b]0;pwned\u0007title', 'a\n::error::pwned', 'tab\there', '::warning::from the app', '  ::add-mask::x'] } : undefined,
    );
    const r = await t.cli(['logs'], { CI: 'true' });
    expect(r.code, r.stderr).toBe(0);
    // A line of the app's that starts with `::` is no workflow command in a CI log: a zero-width space before it.
    expect(r.stdout).toBe('ready on :3000\ntitle\na\\n::error::pwned\ntab\there\n\u200b::warning::from the app\n\u200b  ::add-mask::x\n');
    expect(r.stdout).not.toMatch(/^\s*::/m);
    expect(r.stdout).not.toMatch(/^::/m);
  });
});

describe('issue 44 item 6: a base record that cannot be read is never replaced', () => {
  it('the record left out of the read answer: the push fails (exit 1, naming the record), the record and the files stay as they were', async () => {
    let refuseRecord = false;
    const t = await setup({ 'app.js': 'v1\n', 'lib.js': 'l1\n' }, (op, body) => {
      if (!refuseRecord || !op.endsWith('/files/read-many')) return undefined;
      const b = body as { files: Array<{ path: string }> };
      return { ...b, files: b.files.map((f) => ({ path: f.path, skipped: 'unreadable' })) };
    });
    expect((await t.cli(['push', '--no-apply'])).code).toBe(0);
    const [name] = (await readdir(path.join(t.emu.volume, '.hostsync'))).filter((n) => n.endsWith('.rec'));
    const recordFile = path.join(t.emu.volume, '.hostsync', name!);
    const before = await readFile(recordFile, 'utf8');
    // A second copy (no local copy of the record: it must read it) with an edit.
    await rm(path.join(t.dir, '.hostsync'), { recursive: true, force: true });
    await writeFile(path.join(t.dir, 'app.js'), 'v2\n');
    refuseRecord = true;
    const r = await t.cli(['push', '--no-apply', '--json']);
    expect(r.code, r.stdout + r.stderr).toBe(1);
    const out = JSON.parse(r.stdout) as { error: string };
    expect(out.error).toContain(`could not read the deployment's base record (.hostsync/${name})`);
    expect(out.error).not.toContain('files:read');
    expect(await readFile(recordFile, 'utf8')).toBe(before);
    expect(await readFile(path.join(t.emu.volume, 'app.js'), 'utf8')).toBe('v1\n');
  });

  it('a damaged record is replaced only through a compare-and-swap on the text that was read', async () => {
    const t = await setup({ 'app.js': 'v1\n' }, () => undefined);
    expect((await t.cli(['push', '--no-apply'])).code).toBe(0);
    const [name] = (await readdir(path.join(t.emu.volume, '.hostsync'))).filter((n) => n.endsWith('.rec'));
    const recordFile = path.join(t.emu.volume, '.hostsync', name!);
    await writeFile(recordFile, 'damaged\n');
    await rm(path.join(t.dir, '.hostsync'), { recursive: true, force: true });
    const r = await t.cli(['push', '--no-apply', '--force', '--json']);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(await readFile(recordFile, 'utf8')).toMatch(/^hostsync base record 1\n/);
    const ops = (await (await fetch(`${t.emu.baseUrl}/__emulator/stats`)).json()) as { requests: { byOperation: Record<string, number> } };
    expect(ops.requests.byOperation['files.edit'] ?? 0).toBeGreaterThanOrEqual(1);
    expect(ops.requests.byOperation['files.write'] ?? 0).toBe(1);
  });
});
