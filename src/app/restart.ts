/**
 * `hostsync restart`: restarts the app and judges it as a push judges its apply. One
 * deployments.apply with `restart: true` restarts, waits for the app to settle and answers
 * the diagnose payload in the same request (deployments.power would need a diagnose after
 * it); the health rules (hostsync.json "health") may add their own reads, as after a push.
 * A pending apply is met by it: the restart runs the files the deployment has.
 */
import type { ApplyResult } from '../api/types.js';
import { EXIT } from '../errors.js';
import { awaitHealth, type HealthReport } from '../sync/apply/apply.js';
import type { SlowStop } from '../sync/apply/restart-guard.js';
import { guardRestarts, type RestartCount } from './restart-rules.js';
import type { Session } from '../sync/session.js';
import { connect, deploymentRef, type ConnectionOptions, type DeploymentRef } from './options.js';
import { failedWith, requestsOf, runCommand, SEE_LOGS, type FailureFields, type Outcome, type RequestsSummary } from './result.js';

export interface RestartOptions extends ConnectionOptions {
  /** Restart even when "restartsPerDay" is reached. */
  force?: boolean;
}


/** What `restart --json` prints and `restart()` resolves to; `error` and `exitCode` when `ok` is false. */
export interface RestartResult extends Partial<FailureFields> {
  /** The app restarted and is healthy. */
  ok: boolean;
  apply: ApplyResult | null;
  health: HealthReport | null;
  healthy: boolean | null;
  /** The app's public address, when it has one. */
  url: string | null;
  requests: RequestsSummary;
  durationMs: number;
  deployment: DeploymentRef | null;
  /** Restarts counted today, after this one; null when not counted. */
  restarts: RestartCount | null;
  /** When the restart took long enough to time its stop: how long, whether the app was killed, the fix. */
  shutdown: SlowStop | null;
  /** Lines to read beside the result: the day's count nearing its limit, a stop that was a kill. */
  warnings: string[];
}

export const emptyRestartResult = (): RestartResult => ({
  ok: false, apply: null, health: null, healthy: null, url: null, requests: requestsOf(null), durationMs: 0, deployment: null, restarts: null, shutdown: null, warnings: [],
});

export async function runRestart(opts: RestartOptions = {}): Promise<{ result: Outcome<RestartResult>; thrown: boolean }> {
  const started = Date.now();
  let session: Session | null = null;
  return runCommand(
    () => ({
      ...emptyRestartResult(),
      requests: requestsOf(session?.client.stats()),
      durationMs: Date.now() - started,
      deployment: session ? deploymentRef(session.config) : null,
    }),
    async () => {
      session = await connect(opts, 'restart');
      try {
        const { client, config } = session;
        const warnings: string[] = [];
        const guard = await guardRestarts(session, { force: opts.force ?? false, onUnavailable: (m) => warnings.push(m) });
        if (!opts.force && (await guard.atLimit())) {
          const today = (await guard.today()) ?? 0;
          return failedWith(
            { ...emptyRestartResult(), requests: requestsOf(client.stats()), durationMs: Date.now() - started, deployment: deploymentRef(config), restarts: { today, limit: guard.rules.perDay }, warnings },
            `not restarted: ${today} restarts of this deployment in 24 hours reached "restartsPerDay" (${guard.rules.perDay}); each is a bot login, and Discord resets a token past 1,000 a day: wait, or restart with --force`,
            EXIT.refused,
          );
        }
        const apply = await client.deployments.apply({ restart: true, ...(config.applyWaitSeconds !== undefined ? { waitSeconds: config.applyWaitSeconds } : {}) });
        await session.store.setApplyPending(false).catch(() => undefined);
        const note = guard.take().at(-1);
        if (note?.warning) warnings.push(note.warning);
        if (note?.stop?.killed) warnings.push(note.stop.message);
        const health = await awaitHealth(client, apply, config.health, { started: apply.restarted });
        const result: RestartResult = {
          ok: health.healthy,
          apply,
          health,
          healthy: health.healthy,
          url: apply.http?.url || null,
          requests: requestsOf(client.stats()),
          durationMs: Date.now() - started,
          deployment: deploymentRef(config),
          restarts: note?.today != null ? { today: note.today, limit: note.limit } : null,
          shutdown: note?.stop ?? null,
          warnings,
        };
        return health.healthy ? result : failedWith(result, `the app is unhealthy after the restart: ${health.reason}; ${SEE_LOGS}`, EXIT.unhealthy);
      } finally {
        await session.close();
      }
    },
    () => session?.config.apiKey ?? opts.apiKey ?? (opts.env ?? process.env).HOSTSYNC_API_KEY,
  );
}

export async function restart(opts: RestartOptions = {}): Promise<RestartResult> {
  return (await runRestart(opts)).result;
}
