/**
 * `hostsync dev`'s start settings: its emulator keeps the deployment it made the first time
 * (`.hostsync/dev/emulator/`), so the startup that deployment was created with (index.js
 * when the project had no hostsync.json yet) would stay for good. Before every watch it
 * starts, dev sets the deployment's startup and size the way `push` does
 * (app/deploy-settings.ts), from, first to last: dev's flags, hostsync.json ("startup",
 * "size"), and when hostsync.json declares no startup, what `init` would write from the
 * project's own files (config/project-start.ts). Costs one deployments.get, plus one
 * updateStartup / resize when something differs, against the local emulator.
 */
import type { DeclaredSize, DeclaredStartup } from '../config/deploy-settings.js';
import { projectRootOf } from '../config/config.js';
import { pushSettings, type SettingsResult } from './deploy-settings.js';
import { connect, type ConnectionOptions } from './options.js';
import { detectStart } from './project-settings.js';

export interface DevStartFlags {
  runtime?: string;
  entry?: string;
  ramMb?: number;
}

/** What dev applied, and where the startup came from (for its line). */
export interface DevStartup {
  settings: SettingsResult | null;
  from: 'flags' | 'hostsync.json' | 'project' | 'none';
  entryFile: string | null;
}

export async function applyDevStartup(opts: ConnectionOptions, flags: DevStartFlags): Promise<DevStartup> {
  const session = await connect(opts, undefined, null);
  try {
    const declared = session.config.startup ?? {};
    const found = Object.keys(declared).length > 0 ? null : ((await detectStart(projectRootOf(session.config)))?.startup ?? null);
    const startup: DeclaredStartup = {
      ...(found ?? declared),
      ...(flags.runtime !== undefined ? { runtime: flags.runtime } : {}),
      ...(flags.entry !== undefined ? { entryFile: flags.entry } : {}),
    };
    const size: DeclaredSize = { ...(session.config.size ?? {}), ...(flags.ramMb !== undefined ? { ramMB: flags.ramMb } : {}) };
    const from = flags.runtime !== undefined || flags.entry !== undefined ? 'flags' : found ? 'project' : Object.keys(declared).length > 0 ? 'hostsync.json' : 'none';
    session.config = { ...session.config, startup, size };
    // The emulator is dev's own: the folder's settings win over anything set on it since
    // (--force), and a runtime change, which empties the deployment, is what the folder
    // says (dev sends every file again at once).
    const settings = await pushSettings(session, { dryRun: false, force: true, ...(startup.runtime ? { changeRuntime: startup.runtime } : {}) });
    return { settings, from, entryFile: startup.entryFile ?? null };
  } finally {
    await session.close().catch(() => undefined);
  }
}
