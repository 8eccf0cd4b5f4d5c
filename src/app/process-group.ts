/**
 * A shell command in a process group of its own, so that stopping it reaches everything it
 * started, a background child (`cmd &`) included: on POSIX `detached` makes the shell the
 * leader of a new session and group, and the group is signalled as a whole.
 *
 * Out of our group, the command no longer gets the terminal's Ctrl-C, nor goes when we are
 * killed. So until the group is gone, SIGINT, SIGTERM and SIGHUP sent to us are passed on
 * to it, and we end as before (raised again on us when nothing else listens for that
 * signal); our own exit kills it.
 *
 * Windows has no process groups: the command stays in our console (Ctrl-C reaches it), a
 * stop is `taskkill /T /F` on the shell's tree, and what the shell left running when it
 * exited cannot be found from it.
 */
import { spawn, type ChildProcessByStdio } from 'node:child_process';
import type { Readable } from 'node:stream';
import { BUILD_KILL_GRACE_MS } from './tunables.js';

const FORWARDED = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;
const WINDOWS = process.platform === 'win32';

export interface GroupRun {
  child: ChildProcessByStdio<null, Readable, Readable>;
  /**
   * SIGTERM to every process of the group, SIGKILL to what is left after
   * BUILD_KILL_GRACE_MS, or when we exit before that. Idempotent; nothing to do once the
   * group is gone.
   */
  stop(): void;
}

/** Sends `signal` to the whole group led by `pgid`; false when no process of it was left. */
function signalGroup(pgid: number, signal: NodeJS.Signals | 0): boolean {
  try {
    process.kill(-pgid, signal);
    return true;
  } catch {
    return false;
  }
}

export function spawnGroup(command: string, opts: { cwd: string; env: NodeJS.ProcessEnv }): GroupRun {
  const child = spawn(command, { cwd: opts.cwd, env: opts.env, shell: true, detached: !WINDOWS, windowsHide: true, stdio: ['ignore', 'pipe', 'pipe'] });
  const pgid = child.pid;
  if (pgid === undefined || WINDOWS) {
    let stopped = false;
    const stop = (): void => {
      if (stopped || pgid === undefined || child.exitCode !== null || child.signalCode !== null) return;
      stopped = true;
      spawn('taskkill', ['/pid', String(pgid), '/T', '/F'], { stdio: 'ignore', windowsHide: true }).on('error', () => undefined);
    };
    return { child, stop };
  }

  const onExit = (): void => void signalGroup(pgid, 'SIGKILL');
  const forward = (signal: NodeJS.Signals): void => {
    signalGroup(pgid, signal);
    release();
    if (process.listenerCount(signal) === 0) process.kill(process.pid, signal);
  };
  const handlers = FORWARDED.map((s) => [s, () => forward(s)] as const);
  let kill: NodeJS.Timeout | undefined;
  let released = false;
  function release(): void {
    if (released) return;
    released = true;
    clearTimeout(kill);
    process.off('exit', onExit);
    for (const [s, h] of handlers) process.off(s, h);
  }
  process.on('exit', onExit);
  // First in line, and gone before the next listener runs: one that goes by the count of
  // listeners (signal-exit, under proper-lockfile's lock) then sees itself alone and ends us.
  for (const [s, h] of handlers) process.prependListener(s, h);

  let stopping = false;
  const stop = (): void => {
    if (stopping || released) return;
    stopping = true;
    if (!signalGroup(pgid, 'SIGTERM')) return release();
    // Not holding the command open: if it ends first, the exit hook kills what is left. (Whether
    // the group is gone cannot be asked cheaply: kill(2) counts its zombies, which init reaps when it will.)
    kill = setTimeout(() => {
      signalGroup(pgid, 'SIGKILL');
      release();
    }, BUILD_KILL_GRACE_MS);
    kill.unref();
  };
  return { child, stop };
}
