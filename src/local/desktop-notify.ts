/**
 * A desktop notification through whichever of notify-send (Linux), osascript (macOS) and
 * PowerShell (Windows) exists; none: nothing, silently. Never through a shell: the program
 * gets its arguments as an array, and the text is data to it (notify-send after `--` and
 * with its markup escaped, osascript through `argv`, PowerShell through environment
 * variables the script reads), so a log line cannot become a command or an option.
 */
import { spawn } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import path from 'node:path';

export interface DesktopCommand {
  command: string;
  args: string[];
  /** Added to the environment (PowerShell reads the text from it). */
  env: Record<string, string>;
}

/** notify-send renders a subset of HTML in the body: its specials escaped, it is text. */
const markupEscaped = (s: string): string => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

const POWERSHELL_SCRIPT = [
  "Add-Type -AssemblyName System.Windows.Forms, System.Drawing",
  '$n = New-Object System.Windows.Forms.NotifyIcon',
  '$n.Icon = [System.Drawing.SystemIcons]::Information',
  '$n.Visible = $true',
  '$n.ShowBalloonTip(10000, $env:HOSTSYNC_NOTIFY_TITLE, $env:HOSTSYNC_NOTIFY_BODY, [System.Windows.Forms.ToolTipIcon]::Info)',
  'Start-Sleep -Seconds 10',
  '$n.Dispose()',
].join('; ');

/** The program for `platform`, given which programs exist (`has`); null when none does. */
export function desktopCommand(platform: NodeJS.Platform, has: (program: string) => boolean, title: string, body: string): DesktopCommand | null {
  if (platform === 'darwin' && has('osascript')) {
    return { command: 'osascript', args: ['-e', 'on run argv', '-e', 'display notification (item 2 of argv) with title (item 1 of argv)', '-e', 'end run', title, body], env: {} };
  }
  if (platform === 'win32') {
    const ps = ['powershell.exe', 'pwsh.exe', 'powershell', 'pwsh'].find(has);
    if (ps) return { command: ps, args: ['-NoProfile', '-NonInteractive', '-Command', POWERSHELL_SCRIPT], env: { HOSTSYNC_NOTIFY_TITLE: title, HOSTSYNC_NOTIFY_BODY: body } };
    return null;
  }
  if (has('notify-send')) return { command: 'notify-send', args: ['--app-name=hostsync', '--', title, markupEscaped(body)], env: {} };
  return null;
}

/** Whether `program` is an executable file in a PATH folder. */
export function onPath(program: string, env: NodeJS.ProcessEnv = process.env): boolean {
  for (const dir of (env.PATH ?? '').split(path.delimiter)) {
    if (dir === '') continue;
    try {
      accessSync(path.join(dir, program), constants.X_OK);
      return true;
    } catch {
      // not in this folder
    }
  }
  return false;
}

/** Shows it, or does nothing when no program is there; never waits for it, never fails. */
export function showDesktopNotification(title: string, body: string): void {
  const cmd = desktopCommand(process.platform, (p) => onPath(p), title, body);
  if (cmd === null) return;
  try {
    // The desktop's own variables (DISPLAY, DBUS_SESSION_BUS_ADDRESS, ...), never hostsync's (the API key).
    const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('HOSTSYNC_')));
    const child = spawn(cmd.command, cmd.args, { stdio: 'ignore', shell: false, env: { ...env, ...cmd.env }, windowsHide: true });
    child.on('error', () => undefined);
    child.unref();
  } catch {
    // A notification that cannot be shown is not a problem of the sync.
  }
}
