/**
 * Issue 27, item 5: the CI recipes of docs/ci.md work as written on a shallow clone with
 * no .hostsync/. Each recipe's YAML (or shell) is read from the page and run as its runner
 * runs it, in a fresh `git clone --depth 1` of a small project that a laptop pushed,
 * against the emulator. Two things are stood in for, and only these: the service address
 * (the page's https://hosting.example.com becomes the emulator's), and the install of
 * hostsync from its repository, which needs the network: it is replaced by what it leaves
 * behind, this build as the `hostsync` command on PATH (issue 46, item 4: hostsync is not
 * on the npm registry, so the earlier `npm ci` + `npx hostsync` failed with E404).
 */
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator, type RunningEmulator } from '../../src/emulator/index.js';
import { bash, githubRunner, parseYaml, runCompositeAction, runSteps, type Yaml } from '../helpers/actions.js';
import { CLI, runCli, TEST_CONFIG_HOME } from '../helpers/cli.js';
import { tempDir, writeTree } from '../helpers/tree.js';

const run = promisify(execFile);
const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const DOC = path.join(REPO, 'docs/ci.md');
const PAGE_URL = 'https://hosting.example.com';

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

/** The first fenced block of `lang` under the `## heading` of docs/ci.md, with the emulator's address. */
async function recipe(heading: string, lang: string): Promise<string> {
  const page = await readFile(DOC, 'utf8');
  const at = page.indexOf(`\n## ${heading}\n`);
  expect(at, `docs/ci.md has a "## ${heading}" section`).toBeGreaterThan(-1);
  const section = page.slice(at + 1).split(/\n## /)[0]!;
  const block = new RegExp('```' + lang + '\\n([\\s\\S]*?)\\n```').exec(section);
  expect(block, `a ${lang} block under "${heading}"`).not.toBeNull();
  return block![1]!.replaceAll(PAGE_URL, emu.baseUrl);
}

/**
 * What `npm install -g github:acme/hostsync#v1` leaves (hostsync is not on the npm
 * registry: the recipes install it from the repository): the `hostsync` command in npm's
 * global bin, which is on the runner's PATH. Only that line is stood in for: a recipe that
 * runs `npm ci` or `npx hostsync` reaches the (offline) registry, and fails as it would
 * for a user today.
 */
const INSTALL_LINE = 'npm install -g github:acme/hostsync#v1';
const installStandIn = (globalBin: string): string =>
  [
    `mkdir -p ${JSON.stringify(globalBin)}`,
    `printf '#!/bin/sh\\nexec node %s "$@"\\n' ${JSON.stringify(JSON.stringify(CLI))} > ${JSON.stringify(path.join(globalBin, 'hostsync'))}`,
    `chmod +x ${JSON.stringify(path.join(globalBin, 'hostsync'))}`,
  ].join('\n');
const standInFor = (p: Project) => (script: string): string | undefined => (script === INSTALL_LINE ? installStandIn(p.globalBin) : undefined);

interface Project {
  origin: string;
  workspace: string;
  deployment: { id: string; volume: string };
  temp: string;
  /** npm's global bin, on the runner's PATH. */
  globalBin: string;
  /** Environment every runner gives: PATH, HOME, npm kept offline. */
  base: Record<string, string>;
}

/**
 * A small project in git, pushed from its own folder (the laptop), whose deployment
 * names it in hostsync.json as `hostsync link` leaves it; the clone is made later by the
 * recipe's checkout (or by the test for GitLab and a shell).
 */
async function project(): Promise<Project> {
  const dep = await emu.createDeployment({ runtime: 'static' });
  const origin = await tempDir('hostsync-ci-origin-');
  const ws = await tempDir('hostsync-ci-ws-');
  const temp = await mkdtemp(path.join(tmpdir(), 'hostsync-ci-tmp-'));
  cleanups.push(origin.cleanup, ws.cleanup, () => rm(temp, { recursive: true, force: true }));
  await writeTree(origin.dir, {
    'hostsync.json': `${JSON.stringify({ deployment: dep.id, gitignore: true }, null, 2)}\n`,
    '.gitignore': 'node_modules/\n.hostsync/\n',
    '.syncignore': '*.log\n',
    'index.html': '<h1>home</h1>\n',
    'about.html': '<h1>about</h1>\n',
  });
  await git(origin.dir, 'init', '-q', '-b', 'main');
  await git(origin.dir, 'add', '-A');
  await git(origin.dir, 'commit', '-q', '-m', 'site');
  const laptop = await runCli(['push', '--dir', origin.dir], { HOSTSYNC_API_KEY: emu.apiKey, HOSTSYNC_BASE_URL: emu.baseUrl });
  expect(laptop.code, laptop.stderr).toBe(0);
  const globalBin = path.join(temp, 'npm-global', 'bin');
  const base = {
    PATH: `${globalBin}:${process.env.PATH ?? ''}`,
    HOME: process.env.HOME ?? '/tmp',
    XDG_CONFIG_HOME: TEST_CONFIG_HOME,
    npm_config_offline: 'true',
    npm_config_cache: path.join(temp, 'npm-cache'),
    npm_config_update_notifier: 'false',
    npm_config_fund: 'false',
    npm_config_audit: 'false',
  };
  return { origin: origin.dir, workspace: ws.dir, deployment: dep, temp, globalBin, base };
}

async function git(cwd: string, ...args: string[]): Promise<void> {
  await run('git', args, { cwd, env: { ...process.env, GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@example.com', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@example.com' } });
}

/** actions/checkout with fetch-depth 1, GitLab's GIT_DEPTH: a shallow clone, no .hostsync/. */
async function shallowClone(p: Project): Promise<void> {
  await run('git', ['clone', '-q', '--depth', '1', `file://${p.origin}`, p.workspace]);
  expect(existsSync(path.join(p.workspace, '.hostsync'))).toBe(false);
  expect((await run('git', ['rev-parse', '--is-shallow-repository'], { cwd: p.workspace })).stdout.trim()).toBe('true');
}

/** What a recipe run came to: the job's exit code (the push step's), and the text a human reads in the job log. */
interface Outcome {
  code: number;
  log: string;
}

async function githubPlain(p: Project): Promise<Outcome> {
  const wf = parseYaml(await recipe('GitHub Actions, without the action', 'yaml')) as { jobs: { deploy: { steps: Yaml[] } } };
  const runner = await githubRunner(p.workspace, p.base);
  cleanups.push(() => rm(runner.temp, { recursive: true, force: true }));
  const onUses = async (uses: string): Promise<void> => {
    if (uses.startsWith('actions/checkout@')) await shallowClone(p);
    else if (!uses.startsWith('actions/setup-node@')) throw new Error(`no stand-in for ${uses}`);
  };
  const { steps, failed } = await runSteps(wf.jobs.deploy.steps as never, runner, { secrets: { HOSTSYNC_API_KEY: emu.apiKey } }, { onUses, standIn: standInFor(p) });
  const pushStep = steps.find((s) => s.name === 'push to the deployment')!;
  expect(failed).toBe(pushStep.code !== 0);
  // The result went to $RUNNER_TEMP, outside the synced folder.
  expect(existsSync(path.join(runner.temp, 'hostsync.json'))).toBe(true);
  return { code: pushStep.code, log: steps.map((s) => s.stdout + s.stderr).join('') };
}

async function githubAction(p: Project): Promise<Outcome> {
  const wf = parseYaml(await recipe('GitHub Actions, with the action', 'yaml')) as { jobs: { deploy: { steps: Yaml[] } } };
  const runner = await githubRunner(p.workspace, p.base);
  cleanups.push(() => rm(runner.temp, { recursive: true, force: true }));
  const onUses = async (uses: string, withInputs: Record<string, string>) => {
    if (uses.startsWith('actions/checkout@')) return void (await shallowClone(p));
    // `<owner>/hostsync@v1`: this repository's action.yml, as the runner would fetch it.
    if (!/^[\w-]+\/hostsync@v1$/.test(uses)) throw new Error(`no stand-in for ${uses}`);
    const r = await runCompositeAction(REPO, withInputs, runner);
    return { code: r.code, outputs: r.outputs, stdout: r.stdout + r.stderr + r.summary };
  };
  const { steps } = await runSteps(wf.jobs.deploy.steps as never, runner, { secrets: { HOSTSYNC_API_KEY: emu.apiKey } }, { onUses });
  const action = steps.find((s) => s.id === 'hostsync')!;
  return { code: action.code, log: steps.map((s) => s.stdout + s.stderr).join('') };
}

async function gitlab(p: Project): Promise<Outcome> {
  const doc = parseYaml(await recipe('GitLab CI', 'yaml')) as { deploy: { script: string[]; after_script: string[]; variables: Record<string, string>; artifacts: { paths: string[] } } };
  const job = doc.deploy;
  await shallowClone(p);
  // The runner's environment: CI variables, the job's variables, the masked CI/CD variable.
  const env = { ...p.base, CI: 'true', GITLAB_CI: 'true', CI_PROJECT_DIR: p.workspace, CI_COMMIT_BRANCH: 'main', CI_DEFAULT_BRANCH: 'main', ...job.variables, HOSTSYNC_API_KEY: emu.apiKey };
  // GitLab runs the script lines as one bash script (-eo pipefail), after_script in a shell of its own.
  const script = await bash(job.script.map((l) => standInFor(p)(l) ?? l).join('\n'), env, p.workspace);
  const after = await bash(job.after_script.join('\n'), env, p.workspace);
  for (const artifact of job.artifacts.paths) expect(existsSync(path.join(p.workspace, artifact)), artifact).toBe(true);
  return { code: script.code, log: script.stdout + script.stderr + after.stdout + after.stderr };
}

async function anyShell(p: Project): Promise<Outcome> {
  const snippet = await recipe('Any shell', 'sh');
  await shallowClone(p);
  // "With hostsync installed": the install line the page names first, then its POSIX sh.
  expect(await readFile(DOC, 'utf8')).toContain(`With hostsync installed (\`${INSTALL_LINE}\`)`);
  expect((await bash(installStandIn(p.globalBin), p.base, p.workspace)).code).toBe(0);
  const r = await new Promise<{ code: number; out: string }>((resolve, reject) => {
    const child = execFile('sh', ['-c', snippet], { cwd: p.workspace, env: { ...p.base, CI: 'true', TMPDIR: p.temp, HOSTSYNC_API_KEY: emu.apiKey, HOSTSYNC_BASE_URL: emu.baseUrl } }, (err, stdout, stderr) => {
      if (err && typeof err.code !== 'number') reject(err);
      else resolve({ code: typeof err?.code === 'number' ? err.code : 0, out: stdout + stderr });
    });
    child.stdin?.end();
  });
  return { code: r.code, log: r.out };
}

const RECIPES: Array<[string, (p: Project) => Promise<Outcome>]> = [
  ['GitHub Actions, with the action', githubAction],
  ['GitHub Actions, without the action', githubPlain],
  ['GitLab CI', gitlab],
  ['any shell', anyShell],
];

describe.each(RECIPES)('docs/ci.md, %s, on a shallow clone with no .hostsync/', (_name, runRecipe) => {
  it('after a change made on the deployment to a file the commit changes too: exit 3, naming the file; nothing is overwritten, no result file reaches the deployment', async () => {
    const p = await project();
    await writeFile(path.join(p.origin, 'about.html'), '<h1>about v2</h1>\n');
    await git(p.origin, 'commit', '-q', '-am', 'about v2');
    await writeFile(path.join(p.deployment.volume, 'about.html'), '<h1>about, hotfixed on the server</h1>\n');
    const out = await runRecipe(p);
    expect(out.code, out.log).toBe(3);
    expect(out.log).toMatch(/1 conflict left alone \(first: about\.html\)|conflict on about\.html/);
    expect(await readFile(path.join(p.deployment.volume, 'about.html'), 'utf8')).toBe('<h1>about, hotfixed on the server</h1>\n');
    expect(existsSync(path.join(p.deployment.volume, 'hostsync.json.out'))).toBe(false);
    // The only thing hostsync keeps on the deployment is its base record.
    const kept = existsSync(path.join(p.deployment.volume, '.hostsync')) ? await readdir(path.join(p.deployment.volume, '.hostsync')) : [];
    expect(kept.every((n) => /^base-[0-9a-f]{32}\.rec$/.test(n)), kept.join(', ')).toBe(true);
    expect(out.log).not.toContain(emu.apiKey);
  });

  it('after a change made on the deployment to a file the commit leaves alone: exit 0, the hot-fix kept and reported as drift', async () => {
    const p = await project();
    await writeFile(path.join(p.deployment.volume, 'about.html'), '<h1>about, hotfixed on the server</h1>\n');
    const out = await runRecipe(p);
    expect(out.code, out.log).toBe(0);
    expect(await readFile(path.join(p.deployment.volume, 'about.html'), 'utf8')).toBe('<h1>about, hotfixed on the server</h1>\n');
    // Issue 46, item 15: the job log names the drift, not only the JSON (the action: an annotation).
    expect(out.log).toMatch(/drift[^\n]*about\.html|about\.html changed on the deployment/);
  });

  it('after a local change (a commit the deployment has not seen): exit 0, and the change is on the deployment', async () => {
    const p = await project();
    await writeFile(path.join(p.origin, 'index.html'), '<h1>home v2</h1>\n');
    await git(p.origin, 'commit', '-q', '-am', 'home v2');
    const out = await runRecipe(p);
    expect(out.code, out.log).toBe(0);
    expect(await readFile(path.join(p.deployment.volume, 'index.html'), 'utf8')).toBe('<h1>home v2</h1>\n');
    expect(out.log).not.toContain(emu.apiKey);
  });
});
