import { spawn } from 'node:child_process';
import type { Command } from 'commander';
import { runOpen } from '../../app/open.js';
import { connectionFlags, globalFlags } from '../context.js';
import { emitResult } from '../output.js';

/** A desktop to open a browser on: macOS, Windows, or a Linux session with a display. Never over SSH or in CI. */
function desktopOpener(env: NodeJS.ProcessEnv): string[] | null {
  if (env.CI || env.SSH_CONNECTION || !process.stdout.isTTY) return null;
  if (process.platform === 'darwin') return ['open'];
  if (process.platform === 'win32') return ['cmd', '/c', 'start', '""'];
  return env.DISPLAY || env.WAYLAND_DISPLAY ? ['xdg-open'] : null;
}

/** `hostsync open`: prints the app's URL, and opens it in a browser on a desktop. */
export async function openCommand(cmd: Command): Promise<number> {
  const g = globalFlags(cmd);
  const json = g.json ?? false;
  const outcome = await runOpen(connectionFlags(cmd));
  const code = emitResult(outcome, json, (r) => r.url ?? '', { quiet: g.quiet ?? false });
  const opener = json ? null : desktopOpener(process.env);
  if (outcome.result.url && opener) {
    const child = spawn(opener[0]!, [...opener.slice(1), outcome.result.url], { stdio: 'ignore', detached: true });
    child.on('error', () => undefined);
    child.unref();
  }
  return code;
}
