/**
 * hostsync.json "build": the project's own build command, run in the project root before
 * a push, so the folder "dir" names holds this build's output and not the one before.
 * A build that fails stops the push before anything is sent (exit 1).
 */
import { spawn } from 'node:child_process';
import { EXIT, HostsyncError } from '../errors.js';
import { BUILD_ERROR_TAIL_LINES as TAIL_LINES } from './tunables.js';

export async function runBuild(command: string, cwd: string, onOutput?: (chunk: Buffer) => void): Promise<void> {
  const tail: string[] = [];
  const keep = (chunk: Buffer): void => {
    onOutput?.(chunk);
    tail.push(...chunk.toString('utf8').split(/\r?\n/).filter((l) => l.trim() !== ''));
    tail.splice(0, Math.max(0, tail.length - TAIL_LINES));
  };
  const code = await new Promise<number | string>((resolve) => {
    // The API key stays out of the build's environment: a build has no use for it.
    const env = { ...process.env };
    delete env.HOSTSYNC_API_KEY;
    const child = spawn(command, { cwd, shell: true, env, stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout.on('data', keep);
    child.stderr.on('data', keep);
    child.on('error', (err) => resolve(err.message));
    child.on('close', (c, signal) => resolve(c ?? `killed by ${signal}`));
  });
  if (code === 0) return;
  const last = tail.length > 0 ? `; last output: ${tail.join(' | ')}` : '';
  throw new HostsyncError(`the build (\`${command}\`, "build" in hostsync.json) failed (${typeof code === 'number' ? `exit ${code}` : code})${last}: fix it and push again, or push --no-build; nothing was sent`, EXIT.failed);
}
