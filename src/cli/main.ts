#!/usr/bin/env node
import { realpathSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { createRequire } from 'node:module';
import { setFlagsFromString } from 'node:v8';
import type * as Commander from 'commander';
import { describeError } from './errors.js';
import { EXIT } from '../errors.js';
import { WASM_TIERING_BUDGET } from './tunables.js';
import { safeText } from './terminal-text.js';

// CommonJS packages are required, not imported: see docs/decisions.md, "Start-up". Commander
// is required once a command line is parsed: a status the running watch answers never
// parses one, and running commander (with the child_process it requires) cost ~10 ms.
const commander = (): typeof Commander => createRequire(import.meta.url)('commander') as typeof Commander;
type Command = Commander.Command;

function integer(name: string, min: number, max: number) {
  return (raw: string): number => {
    const n = Number(raw);
    if (!Number.isInteger(n) || n < min || n > max) throw new (commander().InvalidArgumentError)(`${name} must be a whole number from ${min} to ${max}`);
    return n;
  };
}

function seconds(name: string, min: number, max: number) {
  return (raw: string): number => {
    const n = Number(raw);
    if (raw.trim() === '' || !Number.isFinite(n) || n < min || n > max) throw new (commander().InvalidArgumentError)(`${name} must be a number of seconds from ${min} to ${max}`);
    return n;
  };
}

/** The package ships README.md and docs/ (package.json "files"), so these paths hold wherever hostsync is installed. */
const README = fileURLToPath(new URL('../../README.md', import.meta.url));
const DOCS = fileURLToPath(new URL('../../docs/', import.meta.url));

/** Ends `hostsync --help`: what a script reads (exit codes) and where the long answers are. */
const HELP_FOOTER = `
Exit codes:
  0  done, and the deployment is healthy (or nothing needed applying)
  1  failed: network, server, local I/O, or a file that did not verify
  2  bad usage or configuration (key, deployment, base URL, hostsync.json)
  3  refused: conflicts, the mass-delete guard, a project that vanished, or another hostsync holding the lock
  4  pushed, but the deployment is unhealthy
  5  the address answered, but not as the API (a web page in front of it, or a wrong --base-url)

Run \`hostsync <command> --help\` for a command's flags. The README (${README}) is the tour;
the pages in ${DOCS} are the guides and the reference: commands.md, configuration.md, ci.md, safety.md,
how-push-decides.md, health.md, json-output.md, emulator.md`;

const collect = (value: string, previous: string[] = []): string[] => [...previous, value];

/** Each command's module is imported when it runs: `status` never loads the emulator, `--version` loads nothing. */
export function buildProgram(setExit: (code: number) => void, onSubcommand: (name: string) => void = () => undefined): Command {
  const { Command, Option } = commander();
  const program = new Command('hostsync')
    .description('Keep a hosted deployment in step with a local project: only what changed, never clobbering what it did not change.')
    .version('0.1.0')
    .option('--dir <dir>', 'project directory to sync (default: the current directory)')
    .option('--deployment <id>', 'deployment id (else HOSTSYNC_DEPLOYMENT or hostsync.json)')
    .option('--base-url <url>', 'service address (else HOSTSYNC_BASE_URL or hostsync.json)')
    .option('-t, --target <name>', 'a target of hostsync.json, e.g. staging (else HOSTSYNC_TARGET, else "defaultTarget")')
    .option('-y, --yes', 'answer yes for a target marked "confirm": true (needed without a terminal)')
    .option('--log-level <level>', 'diagnostics on stderr: fatal, error, warn, info, debug, trace, silent (else HOSTSYNC_LOG_LEVEL)')
    .option('--json', 'machine-readable output on stdout')
    .option('-q, --quiet', 'print only errors and the final line')
    .showHelpAfterError('(run hostsync --help for usage)')
    // Set before any .command(): subcommands inherit it, so each one's --help lists the global flags too.
    .configureHelp({ showGlobalOptions: true })
    .addHelpText('after', HELP_FOOTER)
    .hook('preSubcommand', (_program, sub) => onSubcommand(sub.name()))
    .exitOverride();

  program
    .command('status')
    .description('show what a push would change, conflicts, and remote drift (git-style letters)')
    .option('--scan', 'look at every file even when a running watch could say what changed')
    .action(async (opts: { scan?: boolean }, cmd: Command) => setExit(await (await import('./commands/status.js')).statusCommand(opts, cmd)));

  program
    .command('push')
    .description('push local changes to the deployment, then apply them and report whether the app came up')
    .option('--dry-run', 'show the plan, send nothing')
    .option('--force', 'local wins every conflict (still never deletes ignored or remote-only files)')
    .option('--mirror', 'also delete files that exist only on the deployment (never ignored ones)')
    .option('--no-apply', 'do not call deployments.apply after pushing')
    .option('--allow-mass-delete', 'allow deleting more than half of the tracked files, or all of them')
    .option('--no-backup', 'take no server-side copy of what --force or --mirror replaces (nor undo\'s copy of files an upload overwrites)')
    .option('--change-runtime <runtime>', 'let hostsync.json\'s startup.runtime replace the deployment\'s runtime (name it again; the service deletes every file and reinstalls)')
    .option('--no-build', 'do not run the "build" command of hostsync.json first')
    .action(async (opts, cmd: Command) => setExit(await (await import('./commands/push.js')).pushCommand(opts, cmd)));

  program
    .command('restart')
    .description('restart the app and report whether it came up, as push does (one deployments.apply with restart: true)')
    .option('--force', 'restart even when "restartsPerDay" is reached')
    .action(async (opts: { force?: boolean }, cmd: Command) => setExit(await (await import('./commands/restart.js')).restartCommand(cmd, opts)));

  program
    .command('open')
    .description("print the app's public URL (one deployments.get), and open it in a browser on a desktop")
    .action(async (_opts, cmd: Command) => setExit(await (await import('./commands/open.js')).openCommand(cmd)));

  program
    .command('create')
    .description("create a deployment from the project's settings (hostsync.json runtime, version and size; one deployments.create) and link it in hostsync.json")
    .argument('<name>', 'the new deployment\'s name')
    .action(async (name: string, _opts, cmd: Command) => setExit(await (await import('./commands/create.js')).createCommand(name, cmd)));

  program
    .command('diff')
    .description('show local against the deployment: a unified diff for text (- deployment, + local), size and hash for binary files')
    .argument('[path...]', 'limit to these files or folders (named paths cost a request each, not a walk of the whole deployment)')
    .option('--stat', 'one line per file with added and removed line counts')
    .option('--scan', 'look at every file even when a running watch could say what changed')
    .action(async (paths: string[], opts, cmd: Command) => setExit(await (await import('./commands/two-way.js')).diffCommand(paths, opts, cmd)));

  program
    .command('pull')
    .description("take the deployment's changes into this directory; a file edited here since the last sync is a conflict (exit 3) and left alone")
    .argument('[path...]', 'limit to these files or folders; an ignored path comes down only when named here')
    .option('--force', "the deployment wins every conflict (replaces local edits of those files)")
    .option('--dry-run', 'show what would come down, write nothing')
    .action(async (paths: string[], opts, cmd: Command) => setExit(await (await import('./commands/two-way.js')).pullCommand(paths, opts, cmd)));

  program
    .command('resolve')
    .description("settle conflicts per path: --theirs takes the deployment's file, --ours makes the next push write yours")
    .argument('<path...>', 'the conflicting files or folders')
    .option('--ours', 'keep the local file; the next push writes it without --force')
    .option('--theirs', "take the deployment's file into this directory")
    .action(async (paths: string[], opts, cmd: Command) => setExit(await (await import('./commands/two-way.js')).resolveCommand(paths, opts, cmd)));

  program
    .command('undo')
    .description('take back the last push on the deployment (files written, deleted, moved, chmod-ed); local files are not touched')
    .option('--dry-run', 'show what would be taken back, change nothing')
    .option('--no-apply', 'do not call deployments.apply afterwards')
    .option('--steps <n>', 'take back the last N pushes (default 1); running undo again also steps further back')
    .option('--continue', 'finish an undo that was interrupted (a plain undo finishes it too)')
    .option('--abandon', 'end an interrupted undo where it stopped, keeping the deployment as it is now')
    .action(async (opts, cmd: Command) => setExit(await (await import('./commands/undo.js')).undoCommand(opts, cmd)));

  program
    .command('history')
    .description("list the deployment's pushes from every machine, newest first (its base record); with an id, that push's files before and after")
    .argument('[id]', 'a push id as history lists it (a unique prefix of 4 or more characters)')
    .option('--local', 'list only the pushes from this directory that undo can take back (no request)')
    .action(async (id: string | undefined, opts: { local?: boolean }, cmd: Command) => setExit(await (await import('./commands/undo.js')).historyCommand(id, opts, cmd)));

  program
    .command('rollback')
    .description("put the deployment's files back to what they were right after a push from history (any machine's); local files are not touched")
    .argument('<id>', 'a push id as history lists it (a unique prefix of 4 or more characters)')
    .option('--dry-run', 'show the plan and what it costs in requests, change nothing')
    .option('--force', 'also roll back files changed on the deployment since hostsync left them (the API keeps what it replaces)')
    .option('--no-apply', 'do not call deployments.apply afterwards')
    .action(async (id: string, opts, cmd: Command) => setExit(await (await import('./commands/rollback.js')).rollbackCommand(id, opts, cmd)));

  program
    .command('watch')
    .description('sync on every save: push each change, apply it, and report whether the app came up (Ctrl-C stops)')
    .option('--no-apply', 'do not call deployments.apply after each sync')
    .option('--logs', "also print the app's new console lines ([app] ...), read again after each apply")
    .addHelpText('after', '\nOutput: one line per sync cycle; with --json, one JSON object per line (type, changes, paths, requests, state, healthy, ms).')
    .addOption(new Option('--watcher <backend>', 'file watcher backend').choices(['auto', 'native', 'chokidar']).default('auto'))
    .action(async (opts, cmd: Command) => setExit(await (await import('./commands/watch.js')).watchCommand(opts, cmd)));

  program
    .command('init')
    .description('write hostsync.json and .syncignore in the project directory; with --target NAME, add that target')
    .action(async (_opts, cmd: Command) => setExit(await (await import('./commands/init.js')).initCommand(cmd)));

  program
    .command('targets')
    .description('list the targets of hostsync.json (staging, production...) and which one commands use now')
    .action(async (_opts, cmd: Command) => setExit(await (await import('./commands/targets.js')).targetsCommand(cmd)));

  program
    .command('trust')
    .description('trust the "baseUrl" of hostsync.json to receive the API key (needed once for an address that only a file in the project names)')
    .action(async (_opts, cmd: Command) => setExit(await (await import('./commands/trust.js')).trustCommand(cmd)));

  program
    .command('dev')
    .description('the local loop: run the emulator (data in .hostsync/dev, same key, deployment and port each time), sync this project to it, print the app URL and its console, and keep syncing as you save (Ctrl-C stops everything)')
    .option('--port <n>', 'emulator port (default: the one it had last time if free, else any free port)', integer('--port', 0, 65535))
    .option('--runtime <runtime>', 'runtime of the emulated deployment, on first start (default nodejs)')
    .option('--entry <file>', 'entry file of the emulated deployment, on first start (default index.js)')
    .option('--ram-mb <mb>', 'RAM of the emulated deployment, on first start (default 256, the service\'s default: npm install needs 512, a Svelte/Next build 1024)', integer('--ram-mb', 64, 8192))
    .option('--stop-remote', 'stop the deployments that run with the same bot token as dev\'s .env while dev runs, and start them again when it ends')
    .action(async (opts, cmd: Command) => setExit(await (await import('./commands/dev.js')).devCommand(opts, cmd)));

  program
    .command('link')
    .description('pick the deployment this directory syncs with, from those the key can see, and write it into hostsync.json')
    .option('--name <name>', 'link the deployment with this name (else --deployment ID, or a choice on a terminal)')
    .action(async (opts, cmd: Command) => setExit(await (await import('./commands/link.js')).linkCommand(opts, cmd)));

  const env = program
    .command('env')
    .description('the deployment\'s environment variables against the project\'s .env: list, diff, push, pull (keys only; values are never printed)')
    // The action names the result shape a usage error's --json keeps (not-run.ts).
    .hook('preSubcommand', (_env, sub) => onSubcommand(`env ${sub.name()}`));
  const envFile = (c: Command): Command => c.option('--file <path>', 'environment file (default: "envFile" of hostsync.json, else .env)');
  envFile(env.command('list').description('list the deployment\'s variables (secret, plain, system) and whether the file has each'))
    .action(async (opts, cmd: Command) => setExit(await (await import('./commands/env.js')).envCommand('list', opts, cmd)));
  const flagOpts = (c: Command): Command => c
    .option('--plain <key>', 'this key is a plain (readable) variable; repeatable (new keys are secrets, existing ones keep their kind)', collect)
    .option('--secret <key>', 'this key is a secret, also when the deployment has it plain; repeatable', collect);
  flagOpts(envFile(env.command('diff').description('keys the file adds, changes or lacks compared with the deployment (never a value)')))
    .action(async (opts, cmd: Command) => setExit(await (await import('./commands/env.js')).envCommand('diff', opts, cmd)));
  flagOpts(envFile(env.command('push').description('set the file\'s variables on the deployment: new keys as secrets unless --plain KEY')))
    .option('--prune', 'also delete the deployment\'s variables the file lacks (asks, or needs --yes)')
    .option('--restart', 'restart the app afterwards, so it reads the new values')
    .action(async (opts, cmd: Command) => setExit(await (await import('./commands/env.js')).envCommand('push', opts, cmd)));
  envFile(env.command('pull').description('write the deployment\'s plain variables into the file; list the secrets it cannot fetch'))
    .action(async (opts, cmd: Command) => setExit(await (await import('./commands/env.js')).envCommand('pull', opts, cmd)));

  program
    .command('doctor')
    .description('check the key, scopes, deployment, entry file, runtime, RAM, disk, variables, ignore rules, drift, rate budget and clock; each with the fix (exit 1 when one fails)')
    .option('--shutdown', 'also restart the app once and time its stop: names an app that does not exit on its stop signal (the restart counts as one)')
    .action(async (opts: { shutdown?: boolean }, cmd: Command) => setExit(await (await import('./commands/doctor.js')).doctorCommand(cmd, opts)));

  program
    .command('exec')
    .description('run a command in the deployment (deployments.shell) and exit with its exit code, e.g. hostsync exec -- npm run migrate')
    .argument('<command...>', 'the command; one argument is a whole shell line, several are quoted word by word')
    .option('--timeout <seconds>', 'stop the command after this long (the service default is 90, the most is about 100)', integer('--timeout', 1, 3600))
    .option('--cwd <dir>', 'absolute directory in the container to run in (default /home/container)')
    .action(async (words: string[], opts, cmd: Command) => setExit(await (await import('./commands/exec.js')).execCommand(words, opts, cmd)));

  program
    .command('logs')
    .description("print the deployment's console; --follow keeps printing new lines (across restarts) until Ctrl-C")
    .option('-n, --lines <n>', 'the last N lines (default 100; the service answers at most 500)', integer('--lines', 0, 500))
    .option('-f, --follow', 'then print each new line once, as it comes (one long-poll read every 2.5 s at most)')
    .option('--grep <pattern>', 'only lines matching this regular expression, case-insensitively')
    .addHelpText('after', '\nConsole lines go to stdout; with --follow, state changes go to stderr. --json: one object; with --follow, one JSON line per event (line, state, gap, waiting, recovered).')
    .action(async (opts, cmd: Command) => setExit(await (await import('./commands/logs.js')).logsCommand(opts, cmd)));

  program
    .command('emulator')
    .description('run a local emulator of the Hosting API (prints one JSON ready line)')
    .option('--port <n>', 'port on 127.0.0.1 (default: any free port)', integer('--port', 0, 65535))
    .option('--data <dir>', 'folder for volumes and history (default: a temporary folder)')
    .option('--rate-limit <n>', 'requests per key per window (default 120)', integer('--rate-limit', 1, 1_000_000))
    .option('--rate-window <seconds>', 'sliding window length (default 60)', integer('--rate-window', 1, 3600))
    .option('--latency <ms>', 'added to every API response', integer('--latency', 0, 60_000))
    .option('--faults <spec>', 'fault injection, e.g. 5xx=0.1,reset=0.05,429=0.02,partial=0.1')
    .option('--key <token:scopes>', 'an extra key, e.g. ci-key:files:read,files:write (repeatable)', collect)
    .option('--deployments <n>', 'how many deployments to start with (default 1; deployments.create adds more)', integer('--deployments', 1, 16))
    .addOption(new Option('--runtime <runtime>', 'runtime of the emulated deployment').default('nodejs'))
    .option('--entry <file>', 'entry file of the emulated deployment (default index.js)')
    .option('--dns-verified', 'verifyCustomDomain treats DNS as right (the emulator reaches no DNS)')
    .option('--no-backups', 'take no restore points (neither scheduled nor before destructive calls)')
    .option('--backup-interval <seconds>', 'period of automatic restore points (default 21600; 0: only before destructive calls)', integer('--backup-interval', 0, 31_536_000))
    .option('--boot-grace <seconds>', 'a process alive this long counts as running without listening (default 1.5)', seconds('--boot-grace', 0, 600))
    .option('--no-install', 'start apps without installing their dependencies first (npm install, pip install; offline use)')
    .option('--ram-mb <mb>', 'RAM of the deployments it starts with (default 256, the service\'s default: npm install needs 512, a Svelte/Next build 1024)', integer('--ram-mb', 64, 8192))
    .option('--console-lines <n>', 'lines the live console keeps (default 5000); older lines rotate out of logs but stay searchable', integer('--console-lines', 1, 5000))
    .action(async (opts, cmd: Command) => setExit(await (await import('./commands/emulator.js')).emulatorCommand(opts, cmd)));

  return program;
}

export async function main(argv: string[]): Promise<number> {
  // A running watch may answer a status whole: then nothing below is loaded (status-from-watch.ts).
  if (argv.includes('status')) {
    const answered = await (await import('./status-from-watch.js')).statusFromWatch(argv);
    if (answered !== null) return answered;
  }
  let code: number = EXIT.ok;
  let command: string | undefined;
  const program = buildProgram(
    (c) => {
      code = c;
    },
    (name) => (command = name),
  );
  try {
    if (argv.length <= 2) {
      program.outputHelp();
      return EXIT.usage;
    }
    await program.parseAsync(argv);
    return code;
  } catch (err) {
    const { CommanderError } = commander();
    if (err instanceof CommanderError && (err.code === 'commander.helpDisplayed' || err.code === 'commander.version')) return EXIT.ok;
    const { message, exitCode } = describeError(err);
    const json = argv.includes('--json');
    // commander already printed its own usage errors on stderr
    if (!(err instanceof CommanderError) && !json) process.stderr.write(`hostsync: ${safeText(message)}\n`);
    if (json) {
      // Imported here: it loads every command's result module, which a run that succeeds never needs.
      const { notRunJson } = await import('./not-run.js');
      process.stdout.write(`${JSON.stringify(notRunJson(command, message.replace(/^error: /, ''), exitCode))}\n`);
    }
    return exitCode;
  }
}

/** True when this file is the program node runs (directly, or through npm's bin link), not a module a test imported. */
function isEntryPoint(): boolean {
  const script = process.argv[1];
  if (!script) return false;
  try {
    return realpathSync(script) === realpathSync(fileURLToPath(import.meta.url));
  } catch {
    return false;
  }
}

/**
 * What the program's own process sets up before main(): the entry point below, and the tests'
 * CLI host, which runs main() as that process would (test/helpers/cli-host.ts). A library
 * user's process keeps its flags and streams: main() alone changes neither.
 */
export function prepareProcess(): void {
  // Before any wasm module is made (undici's llhttp, xxhash): see WASM_TIERING_BUDGET.
  setFlagsFromString(`--wasm-tiering-budget=${WASM_TIERING_BUDGET}`);
  // A reader that went away (`hostsync status --json | head -c 300`) must not crash a
  // command with an unhandled EPIPE, least of all a push half done: what it writes after
  // that is dropped, and it ends as it would have, with its own exit code.
  for (const out of [process.stdout, process.stderr]) {
    out.on('error', (err: NodeJS.ErrnoException) => {
      if (err.code !== 'EPIPE') throw err;
    });
  }
}

if (isEntryPoint()) {
  prepareProcess();
  // Long-lived commands (emulator, watch) return only when they are done.
  process.exitCode = await main(process.argv);
}
