import { unwatchFile, watchFile } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Command } from 'commander';
import { applyDevStartup } from '../../app/dev-startup.js';
import { deploymentRef } from '../../app/options.js';
import { failure } from '../../app/result.js';
import { startWatching, watchEvent, type WatchRun } from '../../app/watch.js';
import { CONFIG_FILE, readConfigFile, type Config, type LogLevel } from '../../config/config.js';
import { findProjectRoot } from '../../config/find-root.js';
import { startEmulator, type RunningEmulator } from '../../emulator/index.js';
import { EXIT } from '../../errors.js';
import { HostingClient } from '../../remote/client.js';
import { STATE_DIR } from '../../state/paths.js';
import type { WatchEvent as DaemonEvent } from '../../watch/daemon.js';
import { pc } from '../colors.js';
import { globalFlags } from '../context.js';
import { createLogger } from '../logger.js';
import { DEV_CONFIG_POLL_MS } from '../tunables.js';
import { targetName } from '../render.js';
import { settingsLines } from '../render-settings.js';
import { renderWatchEvent } from '../watch-render.js';
import { sharedTokens, sharedTokenWarning, type TokenParty } from '../../app/shared-tokens.js';
import { stopRemoteCopies, type StoppedCopy } from '../../app/stop-remote.js';
import { askYesNo, canPrompt } from '../prompt.js';
import { safeText } from '../terminal-text.js';

export interface DevFlags {
  port?: number;
  runtime?: string;
  entry?: string;
  ramMb?: number;
  /** Stop the deployments that run with the same bot token as dev's .env while dev runs; start them again on exit. */
  stopRemote?: boolean;
}

/**
 * How often the app's console is read for new lines. Each read is one deployments.logs
 * request against the local emulator's budget (120 a minute), shared with the sync: 12 a
 * minute leaves the rest for saves, and a line shows up within a few seconds.
 */
const LOG_POLL_MS = 5_000;
/** Console lines read per poll: more than an app prints in one interval in the common case. */
const LOG_POLL_LINES = 200;

/** `.hostsync/dev/`: the emulator's data (volumes, history, key and deployments) and the port it last had. */
export const devDir = (root: string): string => path.join(root, STATE_DIR, 'dev');

interface DevRecord {
  port?: number;
}

async function readRecord(file: string): Promise<DevRecord> {
  try {
    const r = JSON.parse(await readFile(file, 'utf8')) as DevRecord;
    return typeof r.port === 'number' && Number.isInteger(r.port) ? { port: r.port } : {};
  } catch {
    return {};
  }
}

/** The same port as last time when it is free (bookmarks and a second shell keep working), else any free one. */
async function startDevEmulator(dataDir: string, flags: DevFlags, saved: DevRecord): Promise<{ emu: RunningEmulator; note: string | null }> {
  const base = {
    dataDir,
    ...(flags.runtime ? { runtime: flags.runtime } : {}),
    ...(flags.entry ? { entryFile: flags.entry } : {}),
    ...(flags.ramMb !== undefined ? { ramMB: flags.ramMb } : {}),
  };
  const wanted = flags.port ?? saved.port;
  if (wanted === undefined) return { emu: await startEmulator(base), note: null };
  try {
    return { emu: await startEmulator({ ...base, port: wanted }), note: null };
  } catch (err) {
    if (flags.port !== undefined || !/already in use/.test((err as Error).message)) throw err;
    const emu = await startEmulator(base);
    return { emu, note: `port ${wanted} was taken; the emulator is on ${new URL(emu.baseUrl).port} this time` };
  }
}

/** The lines of `next` that follow what `prev` already showed (the longest tail of prev that heads next). */
export function newLogLines(prev: string[], next: string[]): string[] {
  for (let k = Math.min(prev.length, next.length); k > 0; k--) {
    let same = true;
    for (let i = 0; i < k && same; i++) same = prev[prev.length - k + i] === next[i];
    if (same) return next.slice(k);
  }
  return next;
}

/**
 * `hostsync dev`: the local loop in one command. Starts the emulator with its data under
 * `.hostsync/dev/` (same key, deployment and port across restarts), syncs the project to
 * it, applies, prints the app's URL, then watches and prints the app's console. The
 * project's hostsync.json is left alone: dev talks to its emulator only. SIGINT, SIGTERM
 * and SIGHUP stop the watch, the emulator and the app it runs, and exit 0.
 */
export async function devCommand(flags: DevFlags, cmd: Command): Promise<number> {
  const g = globalFlags(cmd);
  const json = g.json ?? false;
  const root = await findProjectRoot(g.dir);
  const dir = devDir(root);
  await mkdir(dir, { recursive: true });
  const recordFile = path.join(dir, 'dev.json');
  // hostsync.json's startup is how a new emulator's deployment starts too (a bot whose entry
  // is bot.js); an existing one gets it from applyDevStartup below, at every start.
  const raw = await readConfigFile(root);
  const declared = raw.startup ?? {};
  const startFlags: DevFlags = {
    ...flags,
    ...(flags.runtime === undefined && declared.runtime ? { runtime: declared.runtime } : {}),
    ...(flags.entry === undefined && declared.entryFile ? { entry: declared.entryFile } : {}),
  };
  const { emu, note } = await startDevEmulator(path.join(dir, 'emulator'), startFlags, await readRecord(recordFile));
  // The pid tells the project's other commands that this session is live (config/dev-emulator.ts).
  await writeFile(recordFile, `${JSON.stringify({ port: Number(new URL(emu.baseUrl).port), pid: process.pid })}\n`);
  // A closed terminal turns writes into EIO: they must not crash the process before it cleans up.
  process.stdout.on('error', () => undefined);
  process.stderr.on('error', () => undefined);

  const say = (human: string, event: Record<string, unknown>): void => {
    process.stdout.write(json ? `${JSON.stringify({ ...event, time: new Date().toISOString() })}\n` : `${human}\n`);
  };
  say(
    `hostsync dev: emulator on ${emu.baseUrl}, deployment ${emu.deploymentId} (data in ${path.relative(root, dir) || dir}; Ctrl-C stops it all)` +
      (note ? `\n  ${pc.yellow(note)}` : ''),
    { type: 'dev', baseUrl: emu.baseUrl, deployment: emu.deploymentId, dataDir: dir },
  );

  // One token, one running copy (issue 47, item 3): dev's .env against every target's env file.
  const devParty: TokenParty = { kind: 'dev', name: 'dev', envFile: raw.envFile ?? '.env', deployment: null };
  const shared = await sharedTokens(root, raw, devParty, true).catch(() => []);
  for (const s of shared) {
    const w = sharedTokenWarning(s, devParty);
    if (json) say('', { type: 'warning', message: w });
    else process.stderr.write(`${pc.yellow(`warning: ${safeText(w)}`)}\n`);
  }
  let stoppedCopies: StoppedCopy[] = [];
  if (flags.stopRemote) {
    if (shared.length === 0) say('--stop-remote: no deployment runs with a token of dev\'s env file; nothing stopped', { type: 'stop-remote', stopped: [] });
    else {
      const r = await stopRemoteCopies(root, shared.map((s) => s.other), { env: process.env, ...(g.yes ? { yes: true } : {}), ...(canPrompt(json) ? { confirm: askYesNo } : {}) });
      stoppedCopies = r.stopped;
      for (const c of r.stopped) say(`stopped ${c.party.kind === 'target' ? `target "${c.party.name}"` : `deployment ${c.party.name}`} while dev runs (started again when dev ends)`, { type: 'stop-remote', stopped: c.party.name });
      for (const n of r.notes) process.stderr.write(`${pc.yellow(`--stop-remote: ${safeText(n)}`)}\n`);
    }
  }

  const client = new HostingClient({ baseUrl: emu.baseUrl, apiKey: emu.apiKey, deploymentId: emu.deploymentId });
  let shownLogs: string[] = [];
  let logTimer: NodeJS.Timeout | null = null;
  let stopping = false;
  const pollLogs = async (): Promise<void> => {
    try {
      const { lines } = await client.deployments.logs(LOG_POLL_LINES);
      const fresh = newLogLines(shownLogs, lines);
      shownLogs = lines;
      for (const line of fresh) say(`${pc.dim('[app]')} ${line}`, { type: 'log', line });
    } catch {
      // A missed read only delays lines to the next one.
    }
    if (!stopping) logTimer = setTimeout(() => void pollLogs(), LOG_POLL_MS);
  };
  const showApp = (url: string | undefined, state: string): void => {
    say(url ? `app: ${pc.bold(url)} (${state})` : `app: ${state} (it publishes no URL)`, { type: 'app', url: url ?? null, state });
  };

  const ctx = { target: '', root, noApply: false };
  let first = true;
  let entryFile: string | null = null;
  let settingsApplied = false;
  const onEvent = (e: DaemonEvent): void => {
    if (json) process.stdout.write(`${JSON.stringify(watchEvent(e))}\n`);
    else {
      const text = renderWatchEvent(e, ctx);
      if (text.length > 0) (e.type === 'fatal' ? process.stderr : process.stdout).write(`${text.join('\n')}\n`);
    }
    if (e.type !== 'cycle' || !first) return;
    first = false;
    void (async () => {
      // Nothing changed since the last run: the files are there, but the app is not started yet.
      // A cycle whose changes were all hot paths (hostsync.json itself) applied without a
      // restart: new start settings, or an app this emulator never started, need one.
      const owed = e.apply === null || (!e.apply.restarted && (settingsApplied || e.apply.state !== 'running'));
      const apply = owed ? await client.deployments.apply(settingsApplied || e.apply ? { restart: true } : {}).catch(() => e.apply) : e.apply;
      if (apply) showApp(apply.http?.url || undefined, apply.state);
      if (apply && apply.state !== 'running' && apply.state !== 'starting' && !json) process.stdout.write(`${devNotRunningHint(entryFile)}\n`);
      if (!stopping) void pollLogs();
    })();
  };

  const connection = {
    dir: root,
    baseUrl: emu.baseUrl,
    apiKey: emu.apiKey,
    deployment: emu.deploymentId,
    // Only dev's own emulator: exported HOSTSYNC_* variables of a real deployment must not leak in.
    env: {},
    ...(g.logLevel !== undefined ? { logLevel: g.logLevel as LogLevel } : {}),
    logger: (config: Config) => createLogger(config.logLevel, { json }),
  };
  /** The project's start settings onto dev's deployment, then a watch; a change of hostsync.json stops it for the next round. */
  const startRound = async (): Promise<WatchRun | number> => {
    try {
      const applied = await applyDevStartup(connection, { ...(flags.runtime !== undefined ? { runtime: flags.runtime } : {}), ...(flags.entry !== undefined ? { entry: flags.entry } : {}), ...(flags.ramMb !== undefined ? { ramMb: flags.ramMb } : {}) });
      entryFile = applied.entryFile;
      settingsApplied = applied.settings?.applied ?? false;
      if (applied.settings && applied.settings.changes.length > 0) {
        say(settingsLines(applied.settings, 'push').join('\n') + pc.dim(`\n  (from ${applied.from === 'project' ? "the project's files, as `hostsync init` would write them" : applied.from === 'flags' ? "dev's flags" : 'hostsync.json'})`), {
          type: 'settings',
          changes: applied.settings.changes,
          from: applied.from,
        });
      }
    } catch (err) {
      const f = failure({ ok: false }, err, emu.apiKey);
      process.stderr.write(`hostsync dev: ${f.error}\n`);
      return f.exitCode;
    }
    first = true;
    return startWatching({ ...connection, lockAs: 'dev' }, { onEvent, onConfig: (config) => (ctx.target = targetName(deploymentRef(config))) });
  };

  let run: WatchRun | null = null;
  let shutdown: Promise<void> | null = null;
  const stopAll = (): Promise<void> =>
    (shutdown ??= (async () => {
      stopping = true;
      if (logTimer) clearTimeout(logTimer);
      unwatchFile(configFile, onConfigFile);
      if (run?.started) await run.stop();
      else await run?.abort();
      await client.destroy().catch(() => undefined);
      await emu.close();
      // What --stop-remote stopped runs again once dev's copy is gone.
      for (const c of stoppedCopies) say(await c.start(), { type: 'stop-remote', started: c.party.name });
    })());

  // hostsync.json edited (init writing it, an entry file changed): the watch in flight ends,
  // and the next round applies the new settings. Polled: the file may not exist yet.
  const configFile = path.join(root, CONFIG_FILE);
  let configText = await readFile(configFile, 'utf8').catch(() => null);
  let configChanged = false;
  const onConfigFile = (): void => {
    void readFile(configFile, 'utf8').catch(() => null).then((text) => {
      if (text === configText || stopping) return;
      configText = text;
      configChanged = true;
      say(`${CONFIG_FILE} changed: applying its settings and syncing again`, { type: 'config-changed' });
      void run?.stop();
      wakeOnConfig?.();
    });
  };
  /** Set while dev waits for hostsync.json to be fixed (a round that failed on it). */
  let wakeOnConfig: (() => void) | null = null;
  watchFile(configFile, { interval: DEV_CONFIG_POLL_MS }, onConfigFile);

  let signals = 0;
  const onSignal = (): void => {
    // A second signal leaves at once; the emulator's child reaper still kills the app on exit.
    if (++signals > 1) process.exit(130);
    void stopAll().then(() => process.exit(EXIT.ok));
  };
  for (const s of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.on(s, onSignal);

  let exitCode: number = EXIT.ok;
  for (let rounds = 0; ; rounds++) {
    configChanged = false;
    const round = await startRound();
    let failed: number | null = typeof round === 'number' ? round : null;
    if (typeof round !== 'number') {
      run = round;
      const end = await run.done;
      if (stopping) return EXIT.ok;
      if (configChanged) continue;
      failed = end.exitCode ?? EXIT.ok;
    }
    // The first round's failure ends dev; after an edit of hostsync.json (a half-typed file),
    // dev waits for the next edit rather than taking the emulator down mid-session.
    if (rounds === 0 || failed !== EXIT.usage) {
      exitCode = failed ?? EXIT.ok;
      break;
    }
    if (!configChanged) {
      say(`waiting for ${CONFIG_FILE} to be fixed (the emulator and the app keep running)`, { type: 'config-wait' });
      await new Promise<void>((resolve) => (wakeOnConfig = resolve));
      wakeOnConfig = null;
      if (stopping) return EXIT.ok;
    }
  }
  // The watch ended by itself (a fatal problem): take the emulator down with it.
  await stopAll();
  return exitCode;
}

/** What dev says when the app is not up after its first sync: hostsync's own ways, not the API's. */
export function devNotRunningHint(entryFile: string | null): string {
  const entry = entryFile ?? 'index.js (the default: hostsync.json names no startup.entryFile)';
  return pc.yellow(
    `  the app is not running: it starts with ${entry}. If your app starts from another file, set "startup": {"entryFile": "..."} in ${CONFIG_FILE} (\`hostsync init\` writes it from package.json); dev applies it as you save. \`hostsync logs\` shows the console, \`hostsync restart\` starts it again.`,
  );
}
