/**
 * The CLI host: runs `hostsync` commands for tests in one long-lived Node process per test
 * file instead of one process per command. A CLI process spends about 0.4 s of CPU, most of
 * it starting Node and loading the bundle, and the CLI and integration tests start some 440
 * of them: about half the suite's CPU (docs/decisions.md, "CI on Node 20, 22 and 24").
 *
 * How: runCli (cli.ts) hands a command to the host of the running test file when it can. The
 * host (cli-host-child.mjs, forked with an IPC channel and no Node flags) imports the same
 * dist/bin/hostsync.js a real process runs, once, and per request sets process.env to exactly
 * the clean environment runCli builds, chdirs to the call's cwd, runs
 * `main([node, dist/bin/hostsync.js, ...args])`, waits for its event loop work to drain as
 * a real process would before exiting, and answers the exit code. Output is captured at the
 * file descriptors, not by wrapping process.stdout.write: the host's fd 1 and fd 2 are pipes
 * read here, and after each call the host writes a sentinel on each, so everything before it
 * is that call's. That also catches pino, which writes fd 2 itself (sonic-boom's fs.write
 * on `pino.destination(2)`), bypassing process.stderr, asynchronously: the drain waits for it.
 *
 * Invariants (the host must answer what a real process would):
 * - stdin is /dev/null and stdout/stderr are pipes, as for a real runCli process: no TTY.
 * - Only short commands run in the host. A real process runs: a call with `killAfterMs`
 *   (a command that must end by itself, or is killed), `{ process: true }` (a test that
 *   asserts on the process itself), the long-lived commands (watch, dev, emulator, logs
 *   --follow), and a call made while the host is busy (two calls racing each other).
 * - A command that ends the host's reuse is followed by a fresh host: process.exit() (turned
 *   into the call's exit code, then the host exits), an uncaught exception or unhandled
 *   rejection (exit code 1, as Node), signal/uncaught listeners left behind, or loop work
 *   (sockets, ref'd timers) still active 3 s after main() returned. Module-level caches of
 *   the CLI (undici's classes, the xxhash instance, tar) are the ones a real process also
 *   fills on first use and never change an answer.
 * - One host per test file (vitest's testPath), closed in the file's afterAll
 *   (cli-host-setup.ts): nothing leaks from one file to the next, and the host's CPU is
 *   reaped inside its file's window for the opt-in CPU log (cpu-log.ts).
 *
 * HOSTSYNC_TEST_CLI_HOST=0 runs every call as a real process. HOSTSYNC_TEST_CLI_LOG=FILE
 * appends one JSON line per call: {file, mode: host|process, reason, command}.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { appendFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from 'vitest';

const CHILD = path.resolve(path.dirname(fileURLToPath(import.meta.url)), 'cli-host-child.mjs');

export interface HostResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** Commands that run until stopped, or stop on a signal: always a real process. */
const LONG_LIVED = new Set(['watch', 'dev', 'emulator']);

/** Why `args` cannot run in the host, or null when it can. */
export function whyNotHosted(args: readonly string[]): string | null {
  if (process.env.HOSTSYNC_TEST_CLI_HOST === '0') return 'HOSTSYNC_TEST_CLI_HOST=0';
  for (const a of args) if (LONG_LIVED.has(a)) return `long-lived (${a})`;
  if (args.includes('logs') && args.some((a) => a === '--follow' || /^-[a-z]*f[a-z]*$/.test(a))) return 'long-lived (logs --follow)';
  return null;
}

interface Pending {
  id: number;
  args: string[];
  code: number | null;
  resolve: (r: HostResult) => void;
}

class CliHost {
  readonly file: string;
  readonly cli: string;
  busy = false;
  dead = false;
  private readonly child: ChildProcess;
  private readonly ready: Promise<boolean>;
  private readonly exited: Promise<void>;
  private stdout = '';
  private stderr = '';
  private nextId = 1;
  private pending: Pending | null = null;

  constructor(file: string, cli: string, env: Record<string, string>) {
    this.file = file;
    this.cli = cli;
    this.child = fork(CHILD, [cli, process.env.HOSTSYNC_TEST_CLI_HOST_DEBUG ? 'debug' : ''], { env, execArgv: [], stdio: ['ignore', 'pipe', 'pipe', 'ipc'], serialization: 'json' });
    this.child.stdout!.setEncoding('utf8');
    this.child.stderr!.setEncoding('utf8');
    this.child.stdout!.on('data', (d: string) => {
      this.stdout += d;
      this.settle();
    });
    this.child.stderr!.on('data', (d: string) => {
      this.stderr += d;
      this.settle();
    });
    let onReady: (ok: boolean) => void = () => undefined;
    this.ready = new Promise((r) => (onReady = r));
    this.child.on('message', (m: { ready?: boolean; id?: number; code?: number; restart?: boolean; why?: string }) => {
      if (m.ready) return onReady(true);
      if (this.pending && m.id === this.pending.id) {
        this.pending.code = m.code ?? 1;
        if (m.restart) {
          this.dead = true;
          log(this.file, 'restart', m.why ?? '', this.pending.args);
        }
        this.settle();
      }
    });
    this.child.on('exit', () => {
      this.dead = true;
      onReady(false);
    });
    // 'close': exited and both pipes read to their end, so a call's last output is in.
    this.exited = new Promise((resolve) => {
      this.child.on('close', (code, signal) => {
        // Died inside a call without answering it: that call ends as the process did.
        if (this.pending) {
          const p = this.pending;
          this.pending = null;
          p.resolve({ code: p.code ?? code ?? (signal ? 128 : 1), stdout: this.stdout, stderr: this.stderr });
        }
        resolve();
      });
    });
    this.child.on('error', () => undefined);
  }

  /** Null when the host could not start (the caller runs a real process instead). */
  async run(args: string[], env: Record<string, string>, cwd: string): Promise<HostResult | null> {
    this.busy = true;
    try {
      if (!(await this.ready) || this.dead) return null;
      const id = this.nextId++;
      const result = new Promise<HostResult>((resolve) => (this.pending = { id, args, code: null, resolve }));
      this.child.send({ id, args, env, cwd });
      return await result;
    } finally {
      this.busy = false;
    }
  }

  /** Ends the call once its exit code and both streams' sentinels are in. */
  private settle(): void {
    const p = this.pending;
    if (!p || p.code === null) return;
    const end = `\u0000cli-host-end:${p.id}\u0000`;
    const o = this.stdout.indexOf(end);
    const e = this.stderr.indexOf(end);
    if (o < 0 || e < 0) return;
    const result = { code: p.code, stdout: this.stdout.slice(0, o), stderr: this.stderr.slice(0, e) };
    this.stdout = this.stdout.slice(o + end.length);
    this.stderr = this.stderr.slice(e + end.length);
    this.pending = null;
    p.resolve(result);
  }

  async close(): Promise<void> {
    this.dead = true;
    if (this.child.exitCode === null && this.child.signalCode === null) this.child.kill('SIGKILL');
    await this.exited;
  }
}

let host: CliHost | null = null;

export function currentFile(): string {
  return expect.getState().testPath ?? '';
}

/**
 * Runs `args` in this file's host; null when the host is busy or could not run it (then the
 * caller starts a real process). `baseEnv` is the environment a fresh host starts with.
 */
export async function runInHost(args: string[], env: Record<string, string>, cwd: string, cli: string, baseEnv: Record<string, string>): Promise<HostResult | null> {
  const file = currentFile();
  // No await before the host is claimed (run() marks it busy at once): a call racing this
  // one sees it busy and runs a real process.
  if (host && (host.file !== file || host.cli !== cli || (host.dead && !host.busy))) {
    void host.close();
    host = null;
  }
  if (host?.busy) {
    log(file, 'process', 'host busy', args);
    return null;
  }
  host ??= new CliHost(file, cli, baseEnv);
  const result = await host.run(args, env, cwd);
  log(file, result ? 'host' : 'process', result ? '' : 'host did not start', args);
  return result;
}

/** Ends the host (a test file's afterAll: cli-host-setup.ts). */
export async function closeCliHost(): Promise<void> {
  const old = host;
  host = null;
  await old?.close();
}

export function log(file: string, mode: string, reason: string, args: readonly string[]): void {
  const to = process.env.HOSTSYNC_TEST_CLI_LOG;
  if (!to) return;
  const command = args.find((a) => !a.startsWith('-')) ?? args[0] ?? '';
  appendFileSync(to, `${JSON.stringify({ file: file.replace(/^.*?\/test\//, 'test/'), mode, reason, command })}\n`);
}
