import type { Command } from 'commander';
import type { ConfigFlags, LogLevel } from '../config/config.js';
import type { ConnectionOptions } from '../app/options.js';
import { createLogger } from './logger.js';
import { askYesNo, canPrompt } from './prompt.js';
import { noteDevEmulator } from './dev-emulator-note.js';
import { noteTargetFromFolder } from './target-folder-note.js';

/** Global flags every command accepts (declared once on the program). */
export interface GlobalFlags extends ConfigFlags {
  json?: boolean;
  yes?: boolean;
  /** Errors and the final line only. */
  quiet?: boolean;
}

export function globalFlags(cmd: Command): GlobalFlags {
  return cmd.optsWithGlobals<GlobalFlags>();
}

/** The global flags as the library's options, with diagnostics going to stderr. */
export function connectionFlags(cmd: Command): ConnectionOptions {
  const flags = globalFlags(cmd);
  return {
    ...(flags.dir !== undefined ? { dir: flags.dir } : {}),
    ...(flags.deployment !== undefined ? { deployment: flags.deployment } : {}),
    ...(flags.baseUrl !== undefined ? { baseUrl: flags.baseUrl } : {}),
    ...(flags.target !== undefined ? { target: flags.target } : {}),
    ...(flags.yes ? { yes: true } : {}),
    // A target with "confirm": true is asked about on a terminal, refused elsewhere unless --yes.
    ...(canPrompt(flags.json ?? false) ? { confirm: askYesNo } : {}),
    // Validated by the configuration loader, which names the bad value.
    ...(flags.logLevel !== undefined ? { logLevel: flags.logLevel as LogLevel } : {}),
    logger: (config) => {
      if (!flags.quiet) {
        noteDevEmulator(config);
        noteTargetFromFolder(config);
      }
      return createLogger(config.logLevel, { json: flags.json ?? false });
    },
  };
}
