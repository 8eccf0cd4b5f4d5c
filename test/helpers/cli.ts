import { spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** The CLI's user config directory (`hostsync trust` records) in tests: never the real ~/.config. */
export const TEST_CONFIG_HOME = mkdtempSync(path.join(tmpdir(), 'hostsync-test-xdg-'));

export const CLI = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../dist/bin/hostsync.js');

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
  /** Killed by `killAfterMs`: the command did not end by itself. */
  killed: boolean;
}

/**
 * Runs the built CLI (npm test builds dist/ first) with a clean, explicit environment.
 * `killAfterMs` is a safety bound for tests of commands that must end by themselves: past
 * it the child is killed and `killed` says so (a bound that stops the test, not a timing assertion).
 */
export function runCli(args: string[], env: Record<string, string | undefined>, opts: { cwd?: string; killAfterMs?: number } = {}): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const clean: Record<string, string> = { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', NO_COLOR: '1', XDG_CONFIG_HOME: TEST_CONFIG_HOME };
    if (process.env.HOSTSYNC_CACHE_DIR) clean.HOSTSYNC_CACHE_DIR = process.env.HOSTSYNC_CACHE_DIR;
    for (const [k, v] of Object.entries(env)) if (v !== undefined) clean[k] = v;
    const child = spawn(process.execPath, [CLI, ...args], { env: clean, cwd: opts.cwd ?? process.cwd(), stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    let killed = false;
    const safety = opts.killAfterMs === undefined ? null : setTimeout(() => {
      killed = true;
      child.kill('SIGKILL');
    }, opts.killAfterMs);
    child.on('error', reject);
    child.on('exit', (code, signal) => {
      if (safety) clearTimeout(safety);
      resolve({ code: code ?? (signal ? 128 : 1), stdout, stderr, killed });
    });
  });
}
