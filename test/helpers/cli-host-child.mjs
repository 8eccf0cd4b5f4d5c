// The CLI host's child process (test/helpers/cli-host.ts explains the whole). Plain ESM, no
// TypeScript: node runs it as it is. It loads the bundled CLI (dist/bin/hostsync.js, the file
// a real process runs) once, then runs one command per IPC request:
//   parent -> { id, args, env, cwd }    child -> { id, code, restart, why? }
// Before it answers, everything the command wrote is on this process's fd 1 and fd 2 (pipes
// the parent reads), followed by a sentinel per stream that ends the call's output there.
// Writing through the fds, not intercepting process.stdout.write, also catches what bypasses
// the streams: pino's destination(2) writes fd 2 with fs.write (sonic-boom), asynchronously.
import { readdirSync, readFileSync, readlinkSync, writeSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

const CLI = process.argv[2];
const DEBUG = process.argv[3] === 'debug';

/**
 * Events whose listeners a command must not leave behind: in a real process they die with it.
 * A library may install its own once per process, on first use: proper-lockfile's
 * signal-exit (SIGINT, SIGTERM, SIGHUP...), pino's on-exit-leak-free ('exit', 'beforeExit').
 * So the first call that adds listeners to an event is let be; a later call that adds more
 * to the same event is a per-command leak, and the host is replaced after it. (No signal is
 * ever sent to the host: tests of signals run real processes.)
 */
const WATCHED = ['SIGINT', 'SIGTERM', 'SIGHUP', 'SIGQUIT', 'SIGUSR2', 'uncaughtException', 'unhandledRejection', 'warning', 'exit', 'beforeExit'];
const grownOnce = new Set();

const realExit = process.exit.bind(process);
const reallyExit = process.reallyExit.bind(process);
// Loaded once, then set up as the entry point sets up its own process before main()
// (main.ts prepareProcess: the wasm tiering flag, EPIPE on a closed stdout). The stand-in
// CLI of the host's own test has no such function.
const cliLoaded = import(pathToFileURL(CLI).href).then((cli) => {
  cli.prepareProcess?.();
  return cli;
});
// The stdout and stderr handles are made on first use: made here, they are in the idle
// baseline below, not taken for what a command left behind.
void process.stdout;
void process.stderr;

/** The call in progress: a crash or process.exit() inside it ends it. */
let current = null;

process.exit = (code) => {
  const c = code ?? process.exitCode ?? 0;
  if (!current) realExit(c);
  // As in a real process: 'exit' listeners run (pino flushes synchronously there), then the
  // call ends with that code and this host ends too (the command's work is cut short).
  try {
    process.emit('exit', Number(c));
  } catch {}
  current.finish(Number(c), 'process.exit()');
  throw new HostExit();
};
class HostExit extends Error {}

function crash(err) {
  if (err instanceof HostExit) return;
  if (!current) {
    writeSync(2, `cli-host: ${err?.stack ?? err}\n`);
    reallyExit(7);
  }
  // Node prints the error and exits 1 (an uncaught exception or unhandled rejection).
  writeSync(2, `${err?.stack ?? String(err)}\n`);
  current.finish(1, 'uncaught error');
}
process.on('uncaughtException', crash);
process.on('unhandledRejection', crash);

let idleResources = null;
let idleFiles = null;

/**
 * Not counted: finished FileHandle reads that Node keeps for reuse. FileHandle::ReadStart
 * (node_file.cc, Node 20 to 24) puts each finished read request on a per-process freelist
 * of up to 100, and getActiveResourcesInfo() lists every request object that exists, busy
 * or not, so after the first file-backed Blob is read (fs.openAsBlob: an upload of a file)
 * 'FileHandleReadWrap' stays listed for the life of the process, though nothing is read,
 * no fd is open, and a real process exits past it (an idle one holds no loop reference).
 * A read that really is in flight holds its file open: openFiles() sees that instead.
 */
const POOLED = new Set(['FileHandleReadWrap']);

/** What a real process would still be busy with (sockets, timers, fs requests) or hold (open files), beyond an idle host. */
function extraResources() {
  const counts = new Map();
  for (const r of process.getActiveResourcesInfo()) if (!POOLED.has(r)) counts.set(r, (counts.get(r) ?? 0) + 1);
  for (const [r, n] of idleResources) counts.set(r, (counts.get(r) ?? 0) - n);
  const extra = [...counts].filter(([, n]) => n > 0).map(([r, n]) => `${r}x${n}`);
  const files = openFiles().filter((f) => !idleFiles.has(f));
  if (files.length) extra.push(`open ${files.map((f) => f.replace(/^\d+->/, '')).join(', ')}`);
  return extra;
}

/**
 * Files (and directories) this process has open, as 'fd->path', from /proc/self/fd: pipes,
 * sockets and event fds are left to getActiveResourcesInfo(). A command that leaves one open
 * would pile them up in a long-lived `hostsync watch`. Empty where there is no /proc.
 */
function openFiles() {
  let fds;
  try {
    fds = readdirSync('/proc/self/fd');
  } catch {
    return [];
  }
  const files = [];
  for (const fd of fds) {
    let to;
    try {
      to = readlinkSync(`/proc/self/fd/${fd}`);
    } catch {
      continue; // the fd readdir itself used, closed since
    }
    if (to.startsWith('/')) files.push(`${fd}->${to}`);
  }
  return files;
}

/**
 * A real process ends when its loop has nothing left: pino's writes land, a ref'd timer fires.
 * Wait for that here, boundedly; what is still there after DRAIN_MS would have kept the real
 * process alive past this point, so the host is replaced after this call.
 */
const DRAIN_MS = 3000;
async function drained() {
  const until = Date.now() + DRAIN_MS;
  for (;;) {
    await new Promise((r) => setImmediate(r));
    const extra = extraResources();
    if (extra.length === 0) return null;
    if (Date.now() > until) return extra.join(',');
    await new Promise((r) => setTimeout(r, 2).unref());
  }
}

function listeners() {
  return Object.fromEntries(WATCHED.map((e) => [e, process.listeners(e)]));
}

/** Listener functions seen on each event, so a library's uninstall-and-reinstall of its own is no leak. */
const seen = new Map(WATCHED.map((e) => [e, new WeakSet()]));

function leakedListeners(before) {
  const leaked = [];
  for (const e of WATCHED) {
    const added = process.listeners(e).filter((f) => !before[e].includes(f) && !seen.get(e).has(f));
    for (const f of process.listeners(e)) seen.get(e).add(f);
    if (added.length === 0) continue;
    if (grownOnce.has(e)) leaked.push(DEBUG ? `${e} ${added.map((f) => f.toString().slice(0, 80)).join(' | ')}` : e);
    grownOnce.add(e);
  }
  return leaked;
}

/**
 * A lock a command left (.hostsync/<deployment>/lock holding this pid): a real process that
 * left it would be gone, so the next command would find it stale and take it over; this
 * pid is alive, so the host is replaced (which makes it stale).
 */
function leftLock(args, cwd) {
  const at = args.indexOf('--dir');
  const root = path.resolve(cwd, at >= 0 && args[at + 1] ? args[at + 1] : args.find((a) => a.startsWith('--dir='))?.slice(6) ?? '.');
  let entries;
  try {
    entries = readdirSync(path.join(root, '.hostsync'));
  } catch {
    return null;
  }
  for (const d of entries) {
    const file = path.join(root, '.hostsync', d, 'lock');
    try {
      if (JSON.parse(readFileSync(file, 'utf8')).pid === process.pid) return file;
    } catch {}
  }
  return null;
}

/** Exactly the environment runCli gives a real process. */
function setEnv(env) {
  for (const k of Object.keys(process.env)) delete process.env[k];
  Object.assign(process.env, env);
}

async function run({ id, args, env, cwd }) {
  const cli = await cliLoaded;
  if (idleResources === null) {
    idleResources = new Map();
    for (const r of process.getActiveResourcesInfo()) if (!POOLED.has(r)) idleResources.set(r, (idleResources.get(r) ?? 0) + 1);
    idleFiles = new Set(openFiles());
  }
  setEnv(env);
  process.chdir(cwd);
  process.exitCode = undefined;
  const argv = [process.execPath, CLI, ...args];
  process.argv = argv.slice();
  const before = listeners();
  let done = false;
  const finish = (code, why) => {
    if (done) return;
    done = true;
    current = null;
    // Synchronous, after all the command wrote: the parent cuts each stream here.
    writeSync(1, sentinel(id));
    writeSync(2, sentinel(id));
    if (why) {
      // Cut short (process.exit, a crash): the command may still be running; this host ends.
      process.send({ id, code, restart: true, why }, () => reallyExit(0));
    } else process.send({ id, code, restart: false });
  };
  current = { finish };
  let code;
  try {
    code = await cli.main(argv);
  } catch (err) {
    if (err instanceof HostExit || done) return;
    crash(err);
    return;
  }
  if (done) return;
  // main() returned: the entry point would set process.exitCode to it and let the loop drain.
  const left = await drained();
  if (done) return;
  const leaked = leakedListeners(before);
  const lock = leftLock(args, cwd);
  const why = left
    ? `still active after ${DRAIN_MS} ms: ${left}`
    : leaked.length
      ? `listeners left on ${leaked.join(', ')}`
      : lock
        ? `lock left: ${lock}`
        : undefined;
  if (why) finish(code, why);
  else finish(code);
}

function sentinel(id) {
  return `\u0000cli-host-end:${id}\u0000`;
}

process.on('message', (msg) => {
  void run(msg);
});
process.on('disconnect', () => reallyExit(0));
await cliLoaded;
process.send({ ready: true });
