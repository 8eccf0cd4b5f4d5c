/**
 * Issue 27, item 5: the GitHub Action (action.yml at the root, logic in
 * scripts/github-action.mjs), run step by step as a runner runs a composite action: its
 * inputs with their defaults, GITHUB_ACTION_PATH, and per step the GITHUB_OUTPUT,
 * GITHUB_STEP_SUMMARY, GITHUB_ENV and GITHUB_PATH files, against the emulator.
 */
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator, type RunningEmulator } from '../../src/emulator/index.js';
import { githubRunner, parseYaml, runCompositeAction, type Runner } from '../helpers/actions.js';
import { TEST_CONFIG_HOME } from '../helpers/cli.js';
import { startRewriteProxy } from '../helpers/rewrite-proxy.js';
import { tempDir, writeTree } from '../helpers/tree.js';

const ACTION_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

let emu: RunningEmulator;
const cleanups: Array<() => Promise<void>> = [];
beforeAll(async () => {
  emu = await startEmulator({ rateLimit: 1_000_000, userRateLimit: 1_000_000 });
});
afterAll(async () => {
  await emu?.close();
});
afterEach(async () => {
  await Promise.all(cleanups.splice(0).map((c) => c()));
});

/** A workspace holding `files`, and a runner around it. */
async function workspace(files: Record<string, string>): Promise<{ dir: string; runner: Runner }> {
  const ws = await tempDir('hostsync-action-ws-');
  cleanups.push(ws.cleanup);
  await writeTree(ws.dir, files);
  const runner = await githubRunner(ws.dir, { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', XDG_CONFIG_HOME: TEST_CONFIG_HOME });
  return { dir: ws.dir, runner };
}

const web = (status: number): string =>
  `require('node:http').createServer((q, s) => { s.statusCode = ${status}; s.end('<title>t${status}</title>'); }).listen(Number(process.env.SERVER_PORT), '0.0.0.0');\n`;

const inputs = (deployment: string, more: Record<string, string> = {}): Record<string, string> => ({
  'api-key': emu.apiKey,
  'base-url': emu.baseUrl,
  deployment,
  ...more,
});

/** Nothing the action writes may carry the key. */
function expectNoKey(...texts: string[]): void {
  for (const t of texts) expect(t).not.toContain(emu.apiKey);
}

describe('action.yml', () => {
  it('is a composite action with the documented inputs and outputs', async () => {
    const action = parseYaml(await readFile(path.join(ACTION_DIR, 'action.yml'), 'utf8')) as Record<string, Record<string, unknown>>;
    expect(action.runs!.using).toBe('composite');
    expect(Object.keys(action.inputs!).sort()).toEqual(['api-key', 'args', 'base-url', 'deployment', 'directory', 'force', 'target']);
    expect(Object.keys(action.outputs!).sort()).toEqual(['exit-code', 'healthy', 'result', 'url']);
  });

  it('success: exit 0, outputs healthy/url/exit-code, a summary with the changes, requests and health, no ::error', async () => {
    const dep = await emu.createDeployment({ runtime: 'nodejs', entryFile: 'index.js' });
    const { dir, runner } = await workspace({ 'index.js': web(200), 'public/app.css': 'body{}\n' });
    const r = await runCompositeAction(ACTION_DIR, inputs(dep.id), runner);
    expect(r.code, r.stderr).toBe(0);
    expect(r.outputs['exit-code']).toBe('0');
    expect(r.outputs.healthy).toBe('true');
    expect(r.outputs.url).toMatch(/^https?:\/\//);
    const result = JSON.parse(await readFile(r.outputs.result!, 'utf8')) as { ok: boolean; changes: { written: number } };
    expect(result).toMatchObject({ ok: true, changes: { written: 2 } });
    expect(r.summary).toContain('### hostsync push: deployed (exit 0)');
    expect(r.summary).toContain('- write `index.js`');
    expect(r.summary).toMatch(/^Requests: \d+ \(.*deployments\.apply 1, .*files\.writeMany 1; rate-limited 0\)\.$/m);
    expect(r.summary).toMatch(/Health: healthy \(web\): /);
    expect(r.summary).toContain(`URL: ${r.outputs.url}`);
    expect(r.summary).not.toContain('Log tail');
    expect(r.stdout).not.toContain('::error');
    expectNoKey(r.stdout, r.stderr, r.summary, await readFile(r.outputs.result!, 'utf8'));
    expect(dir).toBeTruthy();
  });

  it('conflict: exit 3, an ::error annotation on the file, the conflict in the summary', async () => {
    const dep = await emu.createDeployment({ runtime: 'static' });
    const { dir, runner } = await workspace({ 'index.html': '<h1>v1</h1>\n', 'about.html': 'about\n' });
    expect((await runCompositeAction(ACTION_DIR, inputs(dep.id), runner)).code).toBe(0);
    // Edited on the deployment, and differently here: a conflict, left alone.
    await writeFile(path.join(dep.volume, 'index.html'), '<h1>hotfix on the server</h1>\n');
    await writeFile(path.join(dir, 'index.html'), '<h1>v2</h1>\n');
    await writeFile(path.join(dir, 'about.html'), 'about v2\n');

    const r = await runCompositeAction(ACTION_DIR, inputs(dep.id), runner);
    expect(r.code).toBe(3);
    expect(r.outputs['exit-code']).toBe('3');
    expect(r.stdout).toMatch(/^::error file=index\.html,title=hostsync%3A conflict on index\.html::index\.html: [\w-]+, left alone on the deployment/m);
    expect(r.summary).toContain('### hostsync push: refused (exit 3)');
    expect(r.summary).toMatch(/> 1 conflict left alone \(first: index\.html\)/);
    expect(r.summary).toMatch(/\*\*Conflicts\*\* \(left alone on the deployment\):\n\n- `index\.html`: /);
    // The rest was still pushed.
    expect(await readFile(path.join(dep.volume, 'about.html'), 'utf8')).toBe('about v2\n');
    expect(await readFile(path.join(dep.volume, 'index.html'), 'utf8')).toBe('<h1>hotfix on the server</h1>\n');
    expectNoKey(r.stdout, r.stderr, r.summary);
  });

  it('a hot-fix on the deployment this commit does not touch: exit 0, kept, a ::warning and a summary line naming it', async () => {
    const dep = await emu.createDeployment({ runtime: 'static' });
    const { dir, runner } = await workspace({ 'index.html': '<h1>v1</h1>\n', 'about.html': 'about\n' });
    expect((await runCompositeAction(ACTION_DIR, inputs(dep.id), runner)).code).toBe(0);
    await writeFile(path.join(dep.volume, 'index.html'), '<h1>hotfix on the server</h1>\n');
    await writeFile(path.join(dir, 'about.html'), 'about v2\n');

    const r = await runCompositeAction(ACTION_DIR, inputs(dep.id), runner);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^::warning title=hostsync%3A index\.html changed on the deployment::/m);
    expect(r.summary).toMatch(/\*\*Left as they are on the deployment\*\*.*\n\n- `index\.html`: changed on the deployment/);
    expect(await readFile(path.join(dep.volume, 'index.html'), 'utf8')).toBe('<h1>hotfix on the server</h1>\n');
    expect(await readFile(path.join(dep.volume, 'about.html'), 'utf8')).toBe('about v2\n');
  });

  it('unhealthy: exit 4, healthy=false, an ::error naming the crash, the app\'s log tail in the summary', async () => {
    const dep = await emu.createDeployment({ runtime: 'nodejs', entryFile: 'index.js' });
    const { runner } = await workspace({
      'index.js': "console.log('connecting...');\nconst token = process.env.DISCORD_TOKEN;\nif (!token) throw new Error('An invalid token was provided.');\n",
    });
    const r = await runCompositeAction(ACTION_DIR, inputs(dep.id), runner);
    expect(r.code).toBe(4);
    expect(r.outputs['exit-code']).toBe('4');
    expect(r.outputs.healthy).toBe('false');
    expect(r.stdout).toMatch(/^::error title=hostsync%3A the app is unhealthy::.*not running.*; last log line: .*/m);
    expect(r.summary).toContain('### hostsync push: pushed, but unhealthy (exit 4)');
    expect(r.summary).toContain('Health: unhealthy');
    expect(r.summary).toMatch(/<details open><summary>Log tail \(the app\)<\/summary>\n\n```\n(.*\n)*.*Error: An invalid token was provided\./);
    expectNoKey(r.stdout, r.stderr, r.summary);
  });

  it('issue 44 item 1: an apply answer whose URL carries newlines cannot forge the outputs of a crashed app', async () => {
    const dep = await emu.createDeployment({ runtime: 'nodejs', entryFile: 'index.js' });
    const forged = 'http://x/\nhealthy=true\nexit-code=0';
    const proxy = await startRewriteProxy(emu.baseUrl, (op, body) =>
      op.endsWith('/apply') ? { ...(body as object), http: { ...(body as { http?: object }).http, url: forged } } : undefined,
    );
    cleanups.push(proxy.close);
    const { runner } = await workspace({ 'index.js': "throw new Error('crashed on start');\n" });
    const r = await runCompositeAction(ACTION_DIR, inputs(dep.id, { 'base-url': proxy.baseUrl }), runner);
    expect(r.code).toBe(4);
    expect(r.outputs.healthy).toBe('false');
    expect(r.outputs['exit-code']).toBe('4');
    // The value arrives whole, as the service gave it, in its own output.
    expect(r.outputs.url).toBe(forged);
  });

  it('issue 44 item 5: a file name and a URL from outside stay text in the job summary', async () => {
    const dep = await emu.createDeployment({ runtime: 'nodejs', entryFile: 'index.js' });
    const proxy = await startRewriteProxy(emu.baseUrl, (op, body) =>
      op.endsWith('/apply') ? { ...(body as object), http: { ...(body as { http?: object }).http, url: 'http://x/\n# forged heading' } } : undefined,
    );
    cleanups.push(proxy.close);
    const { runner } = await workspace({ 'index.js': "console.log('```');\nconsole.log('## forged');\nprocess.exit(1);\n", 'a`b #c.txt': 'x\n' });
    const r = await runCompositeAction(ACTION_DIR, inputs(dep.id, { 'base-url': proxy.baseUrl }), runner);
    expect(r.code).toBe(4);
    expect(r.summary).toContain('- write ``a`b #c.txt``');
    expect(r.summary).toContain('URL: http://x/\\\\n\\# forged heading');
    expect(r.summary).not.toMatch(/^# forged heading/m);
    // The app's "```" line does not close the log block: its fence is longer.
    expect(r.summary).toMatch(/^````\n(.*\n)*```\n## forged\n(.*\n)*````$/m);
  });

  it('a configuration error (no deployment): exit 2, an ::error with the message, hostsync\'s own lines in the summary', async () => {
    const { runner } = await workspace({ 'index.html': 'x\n' });
    const r = await runCompositeAction(ACTION_DIR, { 'api-key': emu.apiKey, 'base-url': emu.baseUrl }, runner);
    expect(r.code).toBe(2);
    expect(r.outputs['exit-code']).toBe('2');
    expect(r.outputs.healthy).toBe('');
    expect(r.stdout).toMatch(/^::error title=hostsync push failed \(exit 2\)::no deployment: /m);
    expect(r.summary).toContain('### hostsync push: configuration error (exit 2)');
    expectNoKey(r.stdout, r.stderr, r.summary);
  });
});
