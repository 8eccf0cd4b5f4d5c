import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readFile, stat } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { killGroup, trackGroup, untrackGroup } from './child-reaper.js';
import type { ConsoleLog } from './console-log.js';
import { dependencyNames, npmInstallNeed } from '../api/memory.js';

/**
 * The dependency step of a runtime's default start command: the service's node
 * image runs `npm install` from package.json before it starts the app (Pterodactyl's
 * Node.js egg does `if [ -f package.json ]; then npm install; fi` at every boot), so an
 * app whose node_modules/ was never synced still comes up. A startCommand of the
 * user's own replaces the default and installs nothing (hosting-api.md, startCommand).
 */
export interface InstallStep {
  /** What the console shows, e.g. "npm install". */
  display: string;
  command: string;
  args: string[];
  /** Why it runs, for the console: "package.json lists 3 dependencies". */
  because: string;
  /** A digest of the manifests: an install that succeeded for the same digest need not run again. */
  digest: string;
  /** The folder the install fills; its presence is part of "already installed". */
  output: string;
  /** RAM below which the install is killed for want of memory (api/memory.ts: 512 MB, 1024 MB for a Svelte/Next build). */
  needMB: number;
  /** What needs that RAM, for the console and the hint: "npm install", "npm install of a next build". */
  needFor: string;
  /** The files the digest covers, for the console: "package.json and package-lock.json". */
  manifests: string;
}

export interface InstallOutcome {
  ok: boolean;
  /** The exit code as a shell reports it (a signal N is 128 + N: SIGKILL is 137). */
  exitCode: number;
  /** Killed for want of memory: the deployment's RAM is below what the install needs. */
  outOfMemory: boolean;
}

const readOr = (file: string): Promise<string | null> => readFile(file, 'utf8').catch(() => null);

/** The install a node app's default start runs, or null when package.json lists no dependency. */
export async function nodeInstallStep(volume: string): Promise<InstallStep | null> {
  const manifest = await readOr(path.join(volume, 'package.json'));
  if (manifest === null) return null;
  // An unreadable manifest still runs npm, which says what is wrong with it.
  const unreadable = dependencyNames(manifest) === null;
  const need = npmInstallNeed(manifest);
  if (need === null && !unreadable) return null;
  const count = need?.dependencies ?? 1;
  const lock = (await readOr(path.join(volume, 'package-lock.json'))) ?? '';
  return {
    display: 'npm install',
    command: 'npm',
    args: ['install', '--no-audit', '--no-fund'],
    because: `package.json lists ${count} dependenc${count === 1 ? 'y' : 'ies'}`,
    digest: createHash('sha256').update(manifest).update('\0').update(lock).digest('hex'),
    output: path.join(volume, 'node_modules'),
    needMB: need?.needMB ?? 0,
    needFor: need?.what ?? 'npm install',
    manifests: 'package.json and package-lock.json',
  };
}

export async function outputExists(step: InstallStep): Promise<boolean> {
  return stat(step.output).then((s) => s.isDirectory(), () => false);
}


/**
 * npm's and pip's settings from the machine the emulator runs on. The app's HOME is its
 * volume, so they would otherwise miss the user's registry, index and proxy settings, and
 * would fill the volume with their caches (`.npm/`, `.cache/pip`), which a sync would
 * then see as remote-only files.
 */
const PASSED_NPM_ENV = ['npm_config_registry', 'npm_config_offline', 'npm_config_prefer_offline', 'HTTP_PROXY', 'HTTPS_PROXY', 'NO_PROXY', 'http_proxy', 'https_proxy', 'no_proxy'];

export function installEnv(appEnv: Record<string, string>): Record<string, string> {
  const env = { ...appEnv };
  for (const name of PASSED_NPM_ENV) {
    const value = process.env[name];
    if (value !== undefined) env[name] = value;
  }
  env.npm_config_cache = process.env.npm_config_cache ?? path.join(os.homedir(), '.npm');
  env.npm_config_userconfig = process.env.npm_config_userconfig ?? path.join(os.homedir(), '.npmrc');
  env.npm_config_update_notifier = 'false';
  // pip's settings the same way (PIP_INDEX_URL, PIP_NO_INDEX, PIP_FIND_LINKS, ...), and its cache outside the volume.
  for (const [name, value] of Object.entries(process.env)) if (name.startsWith('PIP_') && value !== undefined) env[name] = value;
  env.PIP_CACHE_DIR = process.env.PIP_CACHE_DIR ?? path.join(os.homedir(), '.cache', 'pip');
  if (process.env.XDG_CONFIG_HOME === undefined) env.XDG_CONFIG_HOME = path.join(os.homedir(), '.config');
  return env;
}

/**
 * A running install, in its own process group, its output in the deployment's console.
 * Below the step's needMB (api/memory.ts, the document's guidance) it is killed at once
 * with SIGKILL, which is what the service's out-of-memory killer does to `npm install`
 * on a small plan (exit 137): the same outcome on every machine.
 */
export class Install {
  readonly done: Promise<InstallOutcome>;
  private readonly pid: number | null;

  constructor(private readonly step: InstallStep, opts: { cwd: string; env: Record<string, string>; log: ConsoleLog; ramLimitMB: number }) {
    const outOfMemory = opts.ramLimitMB < step.needMB;
    const child = spawn(step.command, step.args, { cwd: opts.cwd, env: opts.env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
    this.pid = child.pid ?? null;
    if (this.pid !== null) trackGroup(this.pid);
    for (const name of ['stdout', 'stderr'] as const) {
      child[name].setEncoding('utf8');
      child[name].on('data', (chunk: string) => opts.log.write(name, chunk));
      child[name].once('end', () => opts.log.end(name));
    }
    this.done = new Promise<InstallOutcome>((resolve) => {
      child.once('error', (err) => {
        if (this.pid !== null) return;
        opts.log.note(`[emulator] ${step.display} could not be started: ${err.message}`);
        resolve({ ok: false, exitCode: 127, outOfMemory: false });
      });
      child.once('close', (code, signal) => {
        if (this.pid !== null) {
          killGroup(this.pid);
          untrackGroup(this.pid);
        }
        const exitCode = code ?? 128 + (signal ? os.constants.signals[signal] : 0);
        resolve({ ok: exitCode === 0, exitCode, outOfMemory });
      });
    });
    if (outOfMemory) this.kill();
  }

  /** SIGKILL to the whole group (npm's own children included); `done` resolves once it is gone. */
  kill(): void {
    if (this.pid !== null) killGroup(this.pid, 'SIGKILL');
  }

  /** What runs, for hints: "npm install". */
  get display(): string {
    return this.step.display;
  }

  /** The group leader's pid, for resource figures while it runs. */
  get groupId(): number | null {
    return this.pid;
  }
}
