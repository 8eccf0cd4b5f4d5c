/**
 * Every restart hostsync asks of a deployment, counted and judged (issue 47): a layer
 * around `client.deployments.apply` (as undici composes its policies), so push, watch,
 * `restart`, `env push --restart` and undo are all covered without each knowing.
 *
 * - Counts: an apply that answers `restarted: true` is one restart in the machine's
 *   24-hour ledger (state/restart-ledger.ts).
 * - Limits: with `restartsPerDay` reached, an apply that could restart is sent with
 *   `restart: false` instead (the files still go live where the runtime serves them from
 *   the volume), and the refusal is noted; `force` restarts anyway.
 * - Shutdowns: the documented answers carry no "the stop was forced" field, so a kill is
 *   inferred from time (docs/decisions.md, "A stop that was a kill"): an apply that
 *   restarted and took SHUTDOWN_KILLED_MIN_MS or more is followed by one deployments.resources,
 *   whose `uptimeMs` dates the new process's start; the time from the request to that
 *   start is the stop (plus the spawn). A quick apply costs no extra request.
 *
 * Notes are kept for the command to report (`take()`), never printed here.
 */
import type { ApplyRequest, ApplyResult } from '../../api/types.js';
import type { DiscordLibrary, RestartRules } from '../../config/restart-settings.js';
import type { HostingClient } from '../../remote/client.js';
import type { RestartLedger } from '../../state/restart-ledger.js';
import { RESTARTS_WARN_SHARE, SHUTDOWN_KILLED_MIN_MS } from '../tunables.js';

/** A restart whose stop took long enough to be the service's kill after its grace. */
export interface SlowStop {
  /** From the apply's request to the new process's start, in ms. */
  stopMs: number;
  /** The whole apply, in ms. */
  restartMs: number;
  /** At least SHUTDOWN_KILLED_MIN_MS: the app did not exit on its stop signal and was killed. */
  killed: boolean;
  /** One line: what happened and the fix for the project's library. */
  message: string;
}

export interface RestartNote {
  /** The apply restarted the app. */
  restarted: boolean;
  /** Restarts of the deployment in the last 24 hours (this one included); null when not counted. */
  today: number | null;
  limit: number | null;
  /** Why a restart was not asked for (the day's limit); null otherwise. */
  refused: string | null;
  /** The count has reached the warning share of the limit. */
  warning: string | null;
  /** The stop, when it was timed (a slow restart, or `timeStops: 'always'`). */
  stop: SlowStop | null;
}

/** The fix for an app that ignores its stop signal, in its library's own words. */
export function shutdownFix(library: DiscordLibrary | null): string {
  switch (library) {
    case 'discord.js':
      return "close the client on the stop signal: process.once('SIGTERM', () => client.destroy())";
    case 'discord.py':
    case 'nextcord':
    case 'py-cord':
      return `${library} does not close on SIGTERM: call bot.close() from a signal handler (loop.add_signal_handler(signal.SIGTERM, lambda: asyncio.ensure_future(bot.close())))`;
    default:
      return 'handle SIGTERM in the app: close its connections and exit';
  }
}

const secs = (ms: number): string => `${(ms / 1000).toFixed(1)} s`;

export function describeStop(stopMs: number, restartMs: number, library: DiscordLibrary | null): SlowStop {
  const killed = stopMs >= SHUTDOWN_KILLED_MIN_MS;
  const message = killed
    ? `the app did not exit on its stop signal (SIGTERM): it was killed after ${secs(stopMs)} (the restart took ${secs(restartMs)}); a bot killed this way stays online until Discord times it out. Fix: ${shutdownFix(library)}`
    : `the app exited on its stop signal: the stop took ${secs(stopMs)} (the restart ${secs(restartMs)})`;
  return { stopMs, restartMs, killed, message };
}

export interface RestartGuardOptions {
  rules: RestartRules;
  ledger: RestartLedger | null;
  /** Restart past the day's limit (--force). */
  force?: boolean;
  /** 'always': time every restart's stop (doctor --shutdown); 'slow': only an apply that took SHUTDOWN_KILLED_MIN_MS. */
  timeStops?: 'slow' | 'always';
  now?: () => number;
}

export class RestartGuard {
  private readonly notes: RestartNote[] = [];
  private readonly now: () => number;

  constructor(
    private readonly client: HostingClient,
    private readonly opts: RestartGuardOptions,
  ) {
    this.now = opts.now ?? (() => performance.now());
  }

  get rules(): RestartRules {
    return this.opts.rules;
  }

  /** Wraps the client's deployments.apply; returns the guard. Once per client. */
  install(): this {
    const d = this.client.deployments;
    const send = d.apply.bind(d);
    d.apply = (req: ApplyRequest = {}) => this.apply(req, send);
    return this;
  }

  /** The notes since the last take (oldest first), and forgets them. */
  take(): RestartNote[] {
    return this.notes.splice(0);
  }

  /** Restarts in the last 24 hours; null without a ledger. */
  async today(): Promise<number | null> {
    return this.opts.ledger ? this.opts.ledger.count() : null;
  }

  /** Whether the day's limit is reached (so a restart would be refused without force). */
  async atLimit(): Promise<boolean> {
    const limit = this.opts.rules.perDay;
    if (limit === null || this.opts.ledger === null) return false;
    return (await this.opts.ledger.count()) >= limit;
  }

  private async apply(req: ApplyRequest, send: (req: ApplyRequest) => Promise<ApplyResult>): Promise<ApplyResult> {
    const limit = this.opts.rules.perDay;
    let refused: string | null = null;
    if (req.restart !== false && !this.opts.force && (await this.atLimit())) {
      refused = `not restarted: ${limit} restarts of this deployment in 24 hours reached "restartsPerDay" (each is a bot login; Discord resets a token past 1,000 a day); the files were sent, and \`--force\` restarts anyway`;
      req = { ...req, restart: false };
    }
    const t0 = this.now();
    const answer = await send(req);
    const restartMs = this.now() - t0;
    let today: number | null = null;
    if (answer.restarted && this.opts.ledger) today = (await this.opts.ledger.take(null)).count || null;
    else if (this.opts.ledger) today = await this.opts.ledger.count();
    let stop: SlowStop | null = null;
    if (answer.restarted && (this.opts.timeStops === 'always' || restartMs >= SHUTDOWN_KILLED_MIN_MS)) stop = await this.timeStop(t0, restartMs);
    const warning =
      limit !== null && today !== null && nearRestartLimit(today, limit) && refused === null
        ? `${today} of ${limit} restarts in 24 hours ("restartsPerDay"): past it hostsync stops restarting this deployment`
        : null;
    this.notes.push({ restarted: answer.restarted, today, limit, refused, warning, stop });
    return answer;
  }

  /** One deployments.resources: the new process's uptime dates its start. Null when nothing runs (a crash at start) or the read fails. */
  private async timeStop(t0: number, restartMs: number): Promise<SlowStop | null> {
    try {
      const r = await this.client.deployments.resources();
      const at = this.now();
      if (r.state === 'offline' || !(r.uptimeMs > 0)) return null;
      const stopMs = Math.max(0, Math.min(restartMs, at - r.uptimeMs - t0));
      return describeStop(Math.round(stopMs), Math.round(restartMs), this.opts.rules.library);
    } catch {
      return null;
    }
  }
}

/** The day's restarts are at RESTARTS_WARN_SHARE of the limit or past it: said, and notified (hostsync.json "notify"). */
export const nearRestartLimit = (today: number, limit: number): boolean => today >= Math.ceil(limit * RESTARTS_WARN_SHARE);
