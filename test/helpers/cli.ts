import { spawn } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { currentFile, log, runInHost, whyNotHosted } from './cli-host.js';
import { runDir } from './tree.js';

/** The CLI's user config directory (`hostsync trust` records) in tests: never the real ~/.config. */
export const TEST_CONFIG_HOME = runDir('xdg-');

export const CLI = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../dist/bin/hostsync.js');

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
  /** Killed by `killAfterMs`: the command did not end by itself. */
  killed: boolean;
  /** Ran in the test file's CLI host (cli-host.ts), not as a process of its own. */
  hosted: boolean;
}

export interface CliOptions {
  cwd?: string;
  /** A bound for a command that must end by itself: past it the child is killed. Implies a real process. */
  killAfterMs?: number;
  /**
   * A real process, not the file's CLI host (cli-host.ts): for tests of the process itself
   * (its exit, its streams, the bundle as users start it).
   */
  process?: boolean;
}

/**
 * Runs the built CLI (npm test builds dist/ first) with a clean, explicit environment, in the
 * test file's CLI host when it can (cli-host.ts: same bundle, same environment, same answer,
 * without a Node start per command), else as a real process.
 * `killAfterMs` is a safety bound for tests of commands that must end by themselves: past
 * it the child is killed and `killed` says so (a bound that stops the test, not a timing assertion).
 */
export async function runCli(args: string[], env: Record<string, string | undefined>, opts: CliOptions = {}): Promise<CliResult> {
  const clean = cleanEnv(env);
  const cwd = opts.cwd ?? process.cwd();
  const why = opts.process ? 'opted out' : opts.killAfterMs !== undefined ? 'killAfterMs' : whyNotHosted(args);
  if (why === null) {
    const hosted = await runInHost(args, clean, cwd, CLI, cleanEnv({}));
    if (hosted) return { ...hosted, killed: false, hosted: true };
  } else log(currentFile(), 'process', why, args);
  return runProcess(args, clean, cwd, opts.killAfterMs);
}

/** The environment a CLI process gets: nothing of the test runner's but PATH and HOME. */
function cleanEnv(env: Record<string, string | undefined>): Record<string, string> {
  const clean: Record<string, string> = { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', NO_COLOR: '1', XDG_CONFIG_HOME: TEST_CONFIG_HOME };
  if (process.env.HOSTSYNC_CACHE_DIR) clean.HOSTSYNC_CACHE_DIR = process.env.HOSTSYNC_CACHE_DIR;
  for (const [k, v] of Object.entries(env)) if (v !== undefined) clean[k] = v;
  return clean;
}

function runProcess(args: string[], clean: Record<string, string>, cwd: string, killAfterMs: number | undefined): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, ...args], { env: clean, cwd, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    let killed = false;
    const safety = killAfterMs === undefined ? null : setTimeout(() => {
      killed = true;
      child.kill('SIGKILL');
    }, killAfterMs);
    child.on('error', reject);
    child.on('exit', (code, signal) => {
      if (safety) clearTimeout(safety);
      resolve({ code: code ?? (signal ? 128 : 1), stdout, stderr, killed, hosted: false });
    });
  });
}
