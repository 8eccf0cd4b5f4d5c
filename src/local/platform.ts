/**
 * What the local file system can hold, chosen once per command: from `process.platform`,
 * and overridden trait by trait by HOSTSYNC_FS (a comma list), so a test on Linux, or a
 * user reporting a bug, can run the Windows or macOS behaviour from outside:
 *   HOSTSYNC_FS=case-insensitive,no-exec,windows-names
 * Words: case-insensitive | case-sensitive, no-exec | exec, windows-names | posix-names,
 * and the presets windows (all three), macos (case-insensitive), linux (none).
 * The simulation changes what hostsync assumes, never what the disk does.
 */
import { usageError } from '../errors.js';

export interface Platform {
  /** Two names that differ only in case are one file (macOS and Windows defaults). */
  caseInsensitive: boolean;
  /** Files carry no executable bit (Windows): every file reads as not executable. */
  noExec: boolean;
  /** Windows naming rules: reserved names, trailing dot or space, `<>:"|?*\`, path length. */
  windowsNames: boolean;
}

const LINUX: Platform = { caseInsensitive: false, noExec: false, windowsNames: false };
const PRESETS: Record<string, Platform> = {
  linux: LINUX,
  macos: { caseInsensitive: true, noExec: false, windowsNames: false },
  windows: { caseInsensitive: true, noExec: true, windowsNames: true },
};
const TRAITS: Record<string, Partial<Platform>> = {
  'case-insensitive': { caseInsensitive: true },
  'case-sensitive': { caseInsensitive: false },
  'no-exec': { noExec: true },
  exec: { noExec: false },
  'windows-names': { windowsNames: true },
  'posix-names': { windowsNames: false },
};

/** The defaults of an operating system (`process.platform`). */
export function osPlatform(os: string = process.platform): Platform {
  if (os === 'win32') return PRESETS.windows!;
  if (os === 'darwin') return PRESETS.macos!;
  return LINUX;
}

/** The platform for `spec` (HOSTSYNC_FS) over the OS defaults; later words win. An unknown word is a usage error (exit 2). */
export function platformFrom(spec: string | undefined, os: string = process.platform): Platform {
  let out = { ...osPlatform(os) };
  for (const raw of (spec ?? '').split(',')) {
    const word = raw.trim().toLowerCase();
    if (word === '') continue;
    const preset = PRESETS[word];
    const trait = TRAITS[word];
    if (!preset && !trait) {
      throw usageError(`HOSTSYNC_FS: unknown word "${raw.trim()}": use a comma list of ${[...Object.keys(TRAITS), ...Object.keys(PRESETS)].join(', ')}`);
    }
    out = { ...out, ...(preset ?? trait) };
  }
  return out;
}

/** The platform of the running process's environment. */
export const currentPlatform = (env: NodeJS.ProcessEnv = process.env): Platform => platformFrom(env.HOSTSYNC_FS);
