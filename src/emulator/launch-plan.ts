/**
 * How the emulator starts a deployment, from its runtime, entry file and start command:
 * the command it spawns (and the one getStartup reports, install step included), or the
 * static server, or nothing for a runtime it does not emulate. Pure.
 */

/** The startup settings a plan is made from (RunnerOptions has them). */
export interface LaunchInput {
  runtime: string;
  entryFile: string;
  startCommand?: string | undefined;
  install?: boolean | undefined;
}

/**
 * How the emulator runs a runtime. `files`: served from the volume by an in-process
 * static server (static; phpweb too, WITHOUT executing PHP: .php files are sent as
 * plain text). `process`: a spawned command (node runtimes on the emulator's own Node,
 * python on the interpreter runtimeVersion names). `none`: not emulated (databases,
 * java, go, ... without a startCommand); the deployment stays offline.
 */
export type LaunchPlan =
  | { kind: 'files'; indexFiles: string[] }
  | { kind: 'process'; command: string; args: string[]; display: string; installs: boolean; python?: true; reported?: string }
  | { kind: 'none' };

/** Runtimes the emulator runs with its own Node binary: nodemon and bun behave like node for a one-shot start. */
const NODE_RUNTIMES = new Set(['nodejs', 'nodemon', 'bun']);
const DEFAULT_NODE_ENTRY = 'index.js';
/** The catalog's default entry of the python runtime. */
const DEFAULT_PYTHON_ENTRY = 'main.py';
/**
 * The install step the runtime's default start command begins with, as getStartup reports
 * it (the service's node egg: `if [ -f package.json ]; then npm install; fi; node ...`): a
 * client must be able to tell the default, which installs at every boot, from a command of
 * its own that only starts the app (`node bot.js`), or it would never set the latter.
 */
const DEFAULT_NODE_INSTALL = 'if [ -f package.json ]; then npm install; fi; ';
const DEFAULT_PYTHON_INSTALL = 'if [ -f requirements.txt ]; then pip install -r requirements.txt; fi; ';
export const FILES_RESTART_SKIPPED: Record<string, string> = {
  static: 'static site is served from the volume; no restart needed',
  phpweb: 'PHP site is served from the volume; no restart needed',
};

function shellQuote(word: string): string {
  return /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}

/** The launch plan of a deployment's startup settings (`install`: the emulator's --no-install turns the default's install step off). */
export function planFor(opts: LaunchInput): LaunchPlan {
  if (opts.runtime === 'static') return { kind: 'files', indexFiles: ['index.html', 'index.htm'] };
  if (opts.runtime === 'phpweb') return { kind: 'files', indexFiles: ['index.html', 'index.htm', 'index.php'] };
  const startCommand = opts.startCommand?.trim() ?? '';
  // A startCommand of the user's own replaces the default, install step included (hosting-api.md, startCommand).
  if (startCommand !== '') return { kind: 'process', command: '/bin/sh', args: ['-c', startCommand], display: startCommand, installs: false };
  if (NODE_RUNTIMES.has(opts.runtime)) {
    const entry = opts.entryFile.trim() || DEFAULT_NODE_ENTRY;
    // Our own node binary, so the app runs on the version startup() reports.
    const display = `node ${shellQuote(entry)}`;
    const installs = opts.install ?? true;
    return { kind: 'process', command: process.execPath, args: [entry], display, installs, reported: installs ? `${DEFAULT_NODE_INSTALL}${display}` : display };
  }
  if (opts.runtime === 'python') {
    const entry = opts.entryFile.trim() || DEFAULT_PYTHON_ENTRY;
    // The interpreter is found at each start (python.ts): the one runtimeVersion names.
    const display = `python ${shellQuote(entry)}`;
    const installs = opts.install ?? true;
    return { kind: 'process', command: 'python3', args: [entry], display, installs, python: true, reported: installs ? `${DEFAULT_PYTHON_INSTALL}${display}` : display };
  }
  return { kind: 'none' };
}
