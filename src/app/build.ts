/**
 * hostsync.json "build": the project's own build command, run in the project root before
 * a push, so the folder "dir" names holds this build's output and not the one before.
 * A build that fails stops the push before anything is sent (exit 1).
 *
 * It runs in a process group of its own (process-group.ts) and counts against the
 * command's deadline: when that passes, the whole group is stopped and the push ends
 * naming the build. The build is done when its shell exits; anything it left running in
 * the background is stopped then too (the push reads the output folder next, and a
 * process still writing there would have it send a half-written tree), and the output
 * pipes it may hold are not waited for past the stop's grace.
 */
import { EXIT, HostsyncError } from '../errors.js';
import { secondsText } from '../remote/errors.js';
import { spawnGroup } from './process-group.js';
import { BUILD_ERROR_TAIL_LINES as TAIL_LINES, BUILD_KILL_GRACE_MS } from './tunables.js';

export interface BuildOptions {
  /** The build's output, as it comes. */
  onOutput?: (chunk: Buffer) => void;
  /** The command's deadline (HostingClient.deadline()); null or absent: none. */
  deadline?: { ms: number; leftMs: number } | null;
}

export async function runBuild(command: string, cwd: string, opts: BuildOptions = {}): Promise<void> {
  const tail: string[] = [];
  const keep = (chunk: Buffer): void => {
    opts.onOutput?.(chunk);
    tail.push(...chunk.toString('utf8').split(/\r?\n/).filter((l) => l.trim() !== ''));
    tail.splice(0, Math.max(0, tail.length - TAIL_LINES));
  };
  const deadline = opts.deadline ?? null;
  let overDeadline = false;
  const code = await new Promise<number | string>((resolve) => {
    // The API key stays out of the build's environment: a build has no use for it.
    const env = { ...process.env };
    delete env.HOSTSYNC_API_KEY;
    const { child, stop } = spawnGroup(command, { cwd, env });
    let result: number | string = 'ended';
    let pipesWait: NodeJS.Timeout | undefined;
    const timer = deadline ? setTimeout(() => {
      overDeadline = true;
      stop();
    }, deadline.leftMs) : undefined;
    const finish = (): void => {
      clearTimeout(timer);
      clearTimeout(pipesWait);
      resolve(result);
    };
    child.stdout.on('data', keep);
    child.stderr.on('data', keep);
    child.on('error', (err) => {
      result = err.message;
      stop();
      finish();
    });
    child.on('exit', (c, signal) => {
      clearTimeout(timer);
      result = c ?? `killed by ${signal}`;
      stop();
      // The pipes close as the group goes; one held by a process that left the group is let go.
      pipesWait = setTimeout(() => {
        child.stdout.destroy();
        child.stderr.destroy();
        finish();
      }, BUILD_KILL_GRACE_MS);
    });
    child.on('close', finish);
  });
  if (overDeadline) {
    throw new HostsyncError(
      `the build (\`${command}\`, "build" in hostsync.json) did not finish within the command's deadline of ${secondsText(deadline!.ms)} and was stopped: ` +
        'make it faster, or allow longer with HOSTSYNC_DEADLINE=<seconds> (or build first and push --no-build); nothing was sent',
      EXIT.failed,
    );
  }
  if (code === 0) return;
  const last = tail.length > 0 ? `; last output: ${tail.join(' | ')}` : '';
  throw new HostsyncError(`the build (\`${command}\`, "build" in hostsync.json) failed (${typeof code === 'number' ? `exit ${code}` : code})${last}: fix it and push again, or push --no-build; nothing was sent`, EXIT.failed);
}
