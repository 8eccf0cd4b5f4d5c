import { spawn } from 'node:child_process';
import type { Command } from 'commander';
import { runOpen } from '../../app/open.js';
import { webAddress } from '../../model/web-address.js';
import { connectionFlags, globalFlags } from '../context.js';
import { emitResult } from '../output.js';

/**
 * The program and leading arguments that open a browser on a desktop: macOS, Windows,
 * or a Linux session with a display; never over SSH or in CI. The URL is passed as one
 * argument of its own, never through a shell. On Windows not `cmd /c start`, whose
 * parser would run what follows an `&` in the URL: url.dll's FileProtocolHandler,
 * through rundll32, takes the rest of its command line as the address.
 */
export function desktopOpener(env: NodeJS.ProcessEnv, platform: NodeJS.Platform, isTTY: boolean): string[] | null {
  if (env.CI || env.SSH_CONNECTION || !isTTY) return null;
  if (platform === 'darwin') return ['open'];
  if (platform === 'win32') return ['rundll32', 'url.dll,FileProtocolHandler'];
  return env.DISPLAY || env.WAYLAND_DISPLAY ? ['xdg-open'] : null;
}

/** `hostsync open`: prints the app's URL, and opens it in a browser on a desktop. */
export async function openCommand(cmd: Command): Promise<number> {
  const g = globalFlags(cmd);
  const json = g.json ?? false;
  const outcome = await runOpen(connectionFlags(cmd));
  // Without an address there is nothing to print but why: the error line, on stderr.
  const code = emitResult({ ...outcome, thrown: outcome.thrown || !outcome.result.ok }, json, (r) => r.url ?? '', { quiet: g.quiet ?? false });
  const opener = json ? null : desktopOpener(process.env, process.platform, process.stdout.isTTY === true);
  // runOpen hands back only a checked web address; checked again here, where it meets the opener.
  const url = outcome.result.url ? webAddress(outcome.result.url) : null;
  if (url && opener) {
    const child = spawn(opener[0]!, [...opener.slice(1), url], { stdio: 'ignore', detached: true, shell: false });
    child.on('error', () => undefined);
    child.unref();
  }
  return code;
}
