import type { Command } from 'commander';
import { deploymentRef } from '../../app/options.js';
import { startWatching, watchEvent, type WatchCycleEvent, type WatchEvent } from '../../app/watch.js';
import type { WatchEvent as DaemonEvent } from '../../watch/daemon.js';
import type { WatcherBackend } from '../../watch/watcher-backend.js';
import { renderWatchEvent } from '../watch-render.js';
import { targetName } from '../render.js';
import { connectionFlags, globalFlags } from '../context.js';
import { EXIT } from '../../errors.js';
import { followDeploymentLogs } from '../../app/logs.js';
import { pc } from '../colors.js';
import { AppMonitor, type AppDown } from '../../watch/app-monitor.js';
import { APP_MONITOR_INTERVAL_MS } from '../../watch/tunables.js';
import { safeLogLine, safeText } from '../terminal-text.js';
import { sharedTokenWarnings } from '../../app/shared-tokens.js';
import { notifierFor } from '../../app/notify.js';
import { nearRestartLimit } from '../../sync/apply/restart-guard.js';
import { flushNotifications, notify, setNotifier } from '../../sync/notify.js';
import { BottomLine } from '../watch-status-line.js';

export interface WatchFlags {
  /** commander's `--no-apply` */
  apply?: boolean;
  watcher?: WatcherBackend;
  /** `--logs`: the app's new console lines after each apply. */
  logs?: boolean;
}

/** `watch --quiet` shows problems and the final line only: a cycle that went well, a wait or a rescan says nothing. */
function worthTelling(e: WatchEvent): boolean {
  if (e.type === 'cycle') return e.healthy === false || e.conflicts.length > 0 || e.failures.length > 0;
  return e.type === 'fatal' || e.type === 'error' || e.type === 'refused' || e.type === 'held' || e.type === 'stopped';
}

/** After the daemon stopped, the process gets this long to exit by itself before it is made to. */
const EXIT_GUARD_MS = 1_000;

/**
 * `hostsync watch`: runs the daemon until SIGINT/SIGTERM (exit 0 after finishing or
 * safely abandoning the cycle in flight), or until a configuration error (exit 2).
 * A second Ctrl-C exits at once; the lock it leaves is recognised as stale next time.
 */
export async function watchCommand(flags: WatchFlags, cmd: Command): Promise<number> {
  const json = globalFlags(cmd).json ?? false;
  const quiet = globalFlags(cmd).quiet ?? false;
  const noApply = flags.apply === false;
  // A terminal can confirm held deletions with a key press (see onHeld).
  const keys = !json && process.stdin.isTTY === true && typeof process.stdin.setRawMode === 'function';
  const ctx = { target: '', root: '', noApply, keys };
  // The status line at the bottom of a terminal; every line of output goes above it.
  const term = new BottomLine(process.stdout, process.stderr, !json && process.stdout.isTTY === true);
  let budget: (() => { used: number; limit: number }) | null = null;
  const showBudget = (): void => {
    const b = budget?.();
    if (b) term.update({ budget: { remaining: Math.max(0, b.limit - b.used), limit: b.limit } });
  };
  let started = false;
  let listening = false;
  const onEvent = (daemonEvent: DaemonEvent): void => {
    // One object, printed as JSON or rendered for a human.
    const e = watchEvent(daemonEvent);
    // The app is watched between cycles too (its state, not only its lines): --logs or not, unless nothing is applied.
    if (e.type === 'ready' && (flags.logs || !noApply)) startLogs();
    if (e.type === 'cycle') monitor.cycle(e.state);
    if (e.type === 'cycle' && e.state !== null) pokeLogs();
    tell(daemonEvent);
    if (e.type === 'cycle') {
      const r = daemonEvent.type === 'cycle' ? daemonEvent.restarts : undefined;
      term.update({ lastSync: new Date(e.time), ...(e.state !== null ? { state: e.state } : {}), ...(r ? { restartsToday: r.today, restartLimit: r.limit } : {}) });
      showBudget();
    }
    if (json) {
      process.stdout.write(`${JSON.stringify(e)}\n`);
      return;
    }
    // A watch that never started failed like any command: one line on stderr.
    if (e.type === 'fatal' && !started) {
      term.writeErr(`hostsync: ${safeText(e.message)}\n`);
      return;
    }
    if (e.type === 'ready') started = true;
    if (e.type === 'held' && keys) listenForKeys();
    if (quiet && !worthTelling(e)) return;
    const text = renderWatchEvent(e, ctx);
    if (e.type === 'fatal') term.writeErr(`${text.join('\n')}\n`);
    else if (text.length > 0) term.write(`${text.join('\n')}\n`);
  };

  /** hostsync.json "notify": what a terminal nobody watches would keep to itself (sync/notify.ts). */
  const tell = (d: DaemonEvent): void => {
    if (d.type === 'cycle') {
      if (d.healthy === false) {
        const e = watchEvent(d) as WatchCycleEvent;
        notify({ kind: 'unhealthy', origin: 'watch', state: e.state ?? 'unknown', reason: d.health?.reason ?? e.hint ?? 'the app is not healthy', lines: d.health?.logs ?? e.logs ?? [] });
      }
      if (d.conflicts.length > 0) notify({ kind: 'conflict', origin: 'watch', paths: d.conflicts.map((c) => c.path) });
      const r = d.restarts;
      if (r && r.limit !== null && nearRestartLimit(r.today, r.limit)) notify({ kind: 'restart-limit', restartsToday: r.today, limit: r.limit });
    } else if (d.type === 'refused') notify({ kind: 'refusal', origin: 'watch', message: d.message });
    else if (d.type === 'held') notify({ kind: 'refusal', origin: 'watch', message: `holding ${d.paths.length} deletion(s): with the ones before, ${d.deletes} of ${d.tracked} tracked files within minutes` });
    else if (d.type === 'fatal') notify({ kind: 'watch-stop', reason: d.message });
    else if (d.type === 'stopped') notify({ kind: 'watch-stop', reason: null });
  };

  // A crash after the app came up: one line (and its first error line), as a push would show it.
  const monitor = new AppMonitor((down: AppDown) => {
    notify({ kind: 'crash', state: down.state, error: down.error, lines: down.lines });
    term.update({ state: down.state });
    if (json) {
      process.stdout.write(`${JSON.stringify({ ...down, time: new Date().toISOString() })}\n`);
      return;
    }
    term.write(`${pc.red('✘')} app ${pc.red(down.state)} after it came up${down.error ? `: ${safeLogLine(down.error)}` : ''}\n`);
    if (!quiet) for (const l of down.lines) term.write(`  ${pc.dim(safeLogLine(l))}\n`);
  });

  // --logs: a follower beside the daemon, read again at once after each apply so the app's lines follow its cycle line.
  // Without --logs it reads less often, for the app's state alone (APP_MONITOR_INTERVAL_MS).
  const logsStop = new AbortController();
  let pokeLogs = (): void => undefined;
  let logsDone: Promise<unknown> = Promise.resolve();
  const startLogs = (): void => {
    logsDone = followDeploymentLogs({
      ...connectionFlags(cmd), lines: 0, signal: logsStop.signal, onPokeReady: (poke) => (pokeLogs = poke),
      ...(flags.logs ? {} : { intervalMs: APP_MONITOR_INTERVAL_MS }),
    }, (le) => {
      if (le.type === 'line') monitor.line(le.line);
      if (le.type === 'state') {
        monitor.stateChanged(le.state);
        term.update({ state: le.state });
      }
      if (!flags.logs) return;
      if (json) {
        if (le.type === 'line') process.stdout.write(`${JSON.stringify({ type: 'log', line: le.line, time: new Date().toISOString() })}\n`);
        return;
      }
      if (le.type === 'line' && !quiet) term.write(`${pc.dim('[app]')} ${safeLogLine(le.line)}\n`);
    }).then((end) => {
      // The watch goes on without the app's lines; say why once.
      if (!end.ok) term.writeErr(`hostsync: watch stopped reading the app's console: ${safeText(end.error ?? '')}\n`);
    });
  };

  const run = startWatching(
    { ...connectionFlags(cmd), apply: !noApply, watcher: flags.watcher ?? 'auto' },
    {
      onEvent,
      onConfig: (config, readBudget) => {
        ctx.target = targetName(deploymentRef(config));
        ctx.root = config.root;
        budget = readBudget;
        void notifierFor(config).then(setNotifier, () => undefined);
        void sharedTokenWarnings(config).then((warnings) => {
          for (const w of warnings) {
            if (json) process.stdout.write(`${JSON.stringify({ type: 'warning', message: w, time: new Date().toISOString() })}\n`);
            else term.writeErr(`${pc.yellow(`warning: ${safeText(w)}`)}\n`);
          }
        });
      },
    },
  );

  /**
   * Raw mode only while deletions are held, so the terminal behaves as usual otherwise. In
   * raw mode Ctrl-C arrives as a byte, not a signal: it is handled as one.
   */
  const onKey = (data: Buffer): void => {
    const key = data.toString('utf8');
    if (key === '\u0003') onSignal();
    else if (key.toLowerCase() === 'd' && run.confirmDeletes()) {
      term.write('deleting the held files\n');
      stopListening();
    }
  };
  function listenForKeys(): void {
    if (listening) return;
    listening = true;
    process.stdin.setRawMode(true);
    process.stdin.on('data', onKey);
    process.stdin.resume();
  }
  function stopListening(): void {
    if (!listening) return;
    listening = false;
    process.stdin.off('data', onKey);
    process.stdin.setRawMode(false);
    process.stdin.pause();
  }

  let signals = 0;
  const onSignal = (): void => {
    signals++;
    if (signals > 1) process.exit(130);
    if (run.started) {
      void run.stop();
      return;
    }
    // Still starting (the initial sync can take a while): cancel its requests and leave.
    // A push cut short is safe by design, and the lock it leaves is recognised as stale.
    void run.abort();
    setTimeout(() => process.exit(EXIT.ok), 200).unref();
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  try {
    const end = await run.done;
    logsStop.abort();
    monitor.stop();
    await logsDone;
    term.close();
    // The stop's own notification (and any still under way) goes before the process does.
    await flushNotifications();
    setNotifier(null);
    const code = end.exitCode ?? EXIT.ok;
    // Anything still holding the event loop (an abandoned request) must not delay the exit.
    setTimeout(() => process.exit(code), EXIT_GUARD_MS).unref();
    return code;
  } finally {
    stopListening();
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
}
