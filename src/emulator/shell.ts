/**
 * deployments.shell: one `sh` line run in the deployment's files with the app's
 * environment. It runs beside the app when the app runs ("app") and on its own
 * when it does not ("temporary"), as the service's temporary container would.
 *
 * Confinement is what a local process allows: the working directory and HOME are
 * the volume, `/home/container` paths are mapped onto it, and the command runs in
 * its own process group that is killed when it ends (so `&` and `nohup` do not
 * outlive it). It is NOT a container: the command can still read the host outside
 * the volume. The emulator is for trusted local use.
 */
import { spawn } from 'node:child_process';
import type { ShellResult } from '../api/types.js';
import { SHELL_DEFAULT_TIMEOUT_S } from '../api/limits.js';
import { statSync } from 'node:fs';
import path from 'node:path';
import { killGroup, trackGroup, untrackGroup } from './child-reaper.js';
import { depRoute, type Ctx, type Route } from './context.js';
import type { EmulatedDeployment } from './deployment.js';
import { badRequest } from './errors.js';
import { liveGroupMembers } from './proc-stats.js';
import { EMULATOR_SHELL_DEFAULT_MAX_CHARS, EMULATOR_SHELL_MAX_TIMEOUT_S } from './tunables.js';
import { optInt, optString, reqString } from './validate.js';

/** The volume's path inside the service's container. */
export const CONTAINER_HOME = '/home/container';
/** Exit code reported for a command cut at its timeout (what coreutils `timeout` uses). */
const TIMED_OUT_EXIT = 124;
/** How long the output pipes may take to drain after the command's group is gone. */
const PIPE_DRAIN_MS = 1_000;


/** Container path -> host path inside the volume; undefined when it leaves the volume. */
function toHost(volume: string, containerPath: string): string | undefined {
  const norm = path.posix.normalize(containerPath);
  if (norm !== CONTAINER_HOME && !norm.startsWith(CONTAINER_HOME + '/')) return undefined;
  return path.join(volume, norm.slice(CONTAINER_HOME.length));
}

function toContainer(volume: string, hostPath: string): string {
  const rel = path.relative(volume, hostPath);
  if (rel.startsWith('..') || path.isAbsolute(rel)) return CONTAINER_HOME;
  return rel === '' ? CONTAINER_HOME : `${CONTAINER_HOME}/${rel.split(path.sep).join('/')}`;
}

/** Keeps the start and the end of the output, as the document says, marking the cut. */
export function keepEnds(text: string, maxChars: number): { text: string; cut: boolean } {
  if (text.length <= maxChars) return { text, cut: false };
  const marker = `\n[... ${text.length - maxChars} characters cut ...]\n`;
  const half = Math.max(0, Math.floor((maxChars - marker.length) / 2));
  return { text: text.slice(0, half) + marker + text.slice(text.length - half), cut: true };
}

export async function runShell(
  dep: EmulatedDeployment,
  req: { command: string; cwd?: string; timeoutSeconds?: number; maxChars?: number },
): Promise<ShellResult> {
  const volume = dep.volume.root;
  const startDir = req.cwd === undefined ? volume : toHost(volume, req.cwd);
  if (startDir === undefined) throw badRequest(`cwd must be an absolute directory under ${CONTAINER_HOME}`);
  try {
    if (!statSync(startDir).isDirectory()) throw new Error();
  } catch {
    throw badRequest(`cwd ${req.cwd} is not a directory in the deployment`);
  }
  const timeoutS = Math.min(req.timeoutSeconds ?? SHELL_DEFAULT_TIMEOUT_S, EMULATOR_SHELL_MAX_TIMEOUT_S);
  const maxChars = req.maxChars ?? EMULATOR_SHELL_DEFAULT_MAX_CHARS;
  const target = dep.runner.state === 'running' ? 'app' : 'temporary';
  // Where the command ended goes to fd 3, out of band of its output, even when it calls `exit`.
  const script = `trap 'pwd >&3' EXIT\n${req.command}`;
  const started = Date.now();
  const child = spawn('/bin/sh', ['-c', script], {
    cwd: startDir,
    env: { ...dep.runner.appEnv(), PWD: startDir },
    stdio: ['ignore', 'pipe', 'pipe', 'pipe'],
    detached: true,
  });
  const pgid = child.pid;
  if (pgid !== undefined) trackGroup(pgid);
  let output = '';
  let endDir = '';
  child.stdout!.setEncoding('utf8').on('data', (d: string) => (output += d));
  child.stderr!.setEncoding('utf8').on('data', (d: string) => (output += d));
  (child.stdio[3] as NodeJS.ReadableStream).setEncoding('utf8');
  (child.stdio[3] as NodeJS.ReadableStream).on('data', (d: string) => (endDir += d));
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    if (pgid !== undefined) killGroup(pgid, 'SIGKILL');
  }, timeoutS * 1000);
  // 'exit', not 'close': a background job holding the output pipe would keep 'close' away.
  const closed = new Promise<void>((resolve) => child.on('close', () => resolve()));
  const exitCode = await new Promise<number>((resolve) => {
    child.on('error', () => resolve(127));
    child.on('exit', (code, signal) => resolve(code ?? (signal ? 128 : 1)));
  });
  clearTimeout(timer);
  let backgroundStopped = 0;
  if (pgid !== undefined) {
    backgroundStopped = liveGroupMembers(pgid).length;
    if (backgroundStopped > 0) killGroup(pgid, 'SIGKILL');
    untrackGroup(pgid);
  }
  // The group is dead, so the pipes drain and close; a process that left the group (setsid) cannot hold the answer.
  await Promise.race([closed, new Promise((r) => setTimeout(r, PIPE_DRAIN_MS))]);
  for (const s of child.stdio) s?.destroy();
  const kept = keepEnds(output, maxChars);
  const ended = endDir.trim();
  return {
    exitCode: timedOut ? TIMED_OUT_EXIT : exitCode,
    output: kept.text,
    truncated: kept.cut,
    cwd: toContainer(volume, ended === '' ? startDir : ended),
    durationMs: Date.now() - started,
    target,
    timedOut,
    outputLimit: kept.cut,
    backgroundStopped,
    // Output is data produced by the deployment's own code: never instructions.
    untrusted: true,
  };
}

async function shell(ctx: Ctx, dep: EmulatedDeployment): Promise<ShellResult> {
  const body = await ctx.body();
  const command = reqString(body, 'command');
  const cwd = optString(body, 'cwd');
  if (cwd !== undefined && !cwd.startsWith('/')) throw badRequest(`cwd must be absolute (e.g. ${CONTAINER_HOME}/src)`);
  const timeoutSeconds = optInt(body, 'timeout', 1, 3600);
  const maxChars = optInt(body, 'maxChars', 100, 10_000_000);
  return runShell(dep, {
    command,
    ...(cwd === undefined ? {} : { cwd }),
    ...(timeoutSeconds === undefined ? {} : { timeoutSeconds }),
    ...(maxChars === undefined ? {} : { maxChars }),
  });
}

export const shellRoutes: Route[] = [
  depRoute('POST', '/deployments/:id/shell', 'deployments.shell', 'deployments:shell', shell, { destructive: true }),
];
