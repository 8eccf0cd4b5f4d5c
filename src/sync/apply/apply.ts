import { setTimeout as sleep } from 'node:timers/promises';
import { FAILURE_TAIL_LINES, HEALTH_LOGS_SIZE, HEALTH_POLL_FIRST_MS, HEALTH_POLL_MAX_MS, HEALTH_SEARCH_LINES } from '../tunables.js';
import type { HealthSettings, RestartPolicy } from '../../config/config.js';
import type { IgnoreMatcher } from '../../local/ignore.js';
import type { ApplyRequest, DeploymentState, DiagnoseResult } from '../../api/types.js';
import type { HostingClient } from '../../remote/client.js';
import { failureTail, isStartMarker, newLines, readyAfterLastStart, startOrReadyPattern } from '../console-lines.js';
import { judgeHealth, timedOut, type HealthInput, type ResolvedKind, type Verdict } from './health.js';

/**
 * What to ask deployments.apply for. `auto` lets the runtime decide, except that a
 * change touching only hot paths (docs, static assets, templates the app re-reads)
 * never needs a restart. `always` and `never` are the user's explicit word.
 */
export function applyRequestFor(
  policy: RestartPolicy,
  hotPaths: IgnoreMatcher | null,
  changedPaths: readonly string[],
  waitSeconds: number | undefined,
): ApplyRequest {
  const req: ApplyRequest = {};
  if (policy === 'always') req.restart = true;
  else if (policy === 'never') req.restart = false;
  else if (hotPaths && changedPaths.length > 0 && changedPaths.every((p) => hotPaths.ignores(p, false))) req.restart = false;
  if (waitSeconds !== undefined) req.waitSeconds = waitSeconds;
  return req;
}

/** The health verdict of one push (or watch cycle), as rendered and printed by `--json`. */
export interface HealthReport {
  healthy: boolean;
  /** What the app was judged as; null when it never ran long enough to tell. */
  kind: ResolvedKind | null;
  /** `config`: hostsync.json pinned the kind; `auto`: decided from the app's answer. */
  decided: 'config' | 'auto';
  reason: string;
  /** The worker's line that matched `ready`, when one was awaited. */
  readyLine: string | null;
  /** The state at the last read. */
  state: DeploymentState;
  /** Requests spent waiting after the apply (or the one diagnose of a push with nothing to send). */
  requests: number;
  waitedMs: number;
  /** When unhealthy: the console lines that matter (this start's first error line and its last lines). */
  logs: string[];
}

function inputOf(p: Pick<DiagnoseResult, 'state' | 'http' | 'logs'>, started: boolean): HealthInput {
  return { state: p.state, http: p.http ?? null, logs: p.logs ?? [], started };
}

/**
 * Judges `payload` (an apply or diagnose answer) and, while the verdict is "waiting",
 * re-reads the deployment with backoff until it is not or `timeoutSeconds` have passed
 * since `since`: deployments.logs for a worker's ready line (it also tells a crash),
 * deployments.diagnose for the state or the web answer on "/", deployments.check for
 * another path. `started`: the apply (re)started the app, so a ready line is awaited.
 * `once`: judge this payload alone (a push with nothing to send spends one request).
 */
export async function awaitHealth(
  client: HostingClient,
  payload: Pick<DiagnoseResult, 'state' | 'http' | 'logs'>,
  settings: HealthSettings,
  opts: { started: boolean; since?: number; signal?: AbortSignal; once?: boolean },
): Promise<HealthReport> {
  const began = opts.since ?? performance.now();
  const deadline = began + settings.timeoutSeconds * 1000;
  let input = inputOf(payload, opts.started);
  let effective = settings;
  let requests = 0;
  let delay = HEALTH_POLL_FIRST_MS;

  const judge = async (): Promise<Verdict> => {
    // A web app on another path than "/" is judged by that path's answer (diagnose probes "/").
    if (settings.path !== '/' && input.state === 'running' && effective.kind !== 'worker' && input.http !== null && input.http.status !== 0) {
      const check = await client.deployments.check(settings.path);
      requests++;
      input = { ...input, http: { url: check.url, status: check.status, ok: check.ok } };
    }
    const v = judgeHealth(input, effective);
    // Once auto has decided, it stays decided for this wait (deployments.logs carries no probe).
    if (effective.kind === 'auto' && v.kind !== null) effective = { ...effective, kind: v.kind };
    return v;
  };

  // Every console line read since the apply, tails merged in order: a ready line seen in
  // one read stays seen when later output pushes it out of the (small) live console.
  let seen: string[] = [...input.logs];
  let verdict = await judge();
  while (verdict.status === 'waiting' && !opts.once) {
    const left = deadline - performance.now();
    if (left <= 0 || opts.signal?.aborted) break;
    const waitMs = Math.min(delay, left);
    const sent = performance.now();
    if (verdict.need === 'ready') {
      const r = await client.deployments.logs(HEALTH_LOGS_SIZE, waitMs / 1000);
      const fresh = newLines(seen, r.lines);
      // No overlap with what was read before: lines in between rotated out unread.
      const gap = seen.length > 0 && r.lines.length > 0 && fresh.length === r.lines.length;
      seen = [...seen, ...fresh];
      input = { ...input, state: r.state, logs: seen };
      // This start's first lines (or some since the last read) have rotated out of every
      // tail read: the ready line may have gone with them. The console log behind
      // searchLogs reaches further back than the live console.
      if (settings.ready !== null && r.state === 'running' && (gap || !seen.some(isStartMarker)) && judgeHealth(input, effective).status === 'waiting') {
        const found = await client.deployments.searchLogs(startOrReadyPattern(settings.ready), HEALTH_SEARCH_LINES);
        requests++;
        const line = readyAfterLastStart(found.matches.map((m) => m.text), new RegExp(settings.ready));
        if (line !== null) input = { ...input, logs: [...seen, line] };
      }
    } else {
      input = inputOf(await client.deployments.diagnose(waitMs / 1000), opts.started);
    }
    requests++;
    verdict = await judge();
    if (verdict.status !== 'waiting') break;
    // The service answers early when the app is idle: keep the pace of the backoff anyway.
    const rest = Math.min(waitMs - (performance.now() - sent), deadline - performance.now());
    if (rest > 0) await sleep(rest, undefined, opts.signal ? { signal: opts.signal } : {}).catch(() => undefined);
    delay = Math.min(delay * 2, HEALTH_POLL_MAX_MS);
  }
  if (opts.once && verdict.status === 'waiting') verdict = { status: 'unhealthy', kind: verdict.kind, reason: verdict.reason };
  verdict = timedOut(verdict, settings);
  const healthy = verdict.status === 'healthy';
  return {
    healthy,
    kind: verdict.kind,
    decided: settings.kind === 'auto' ? 'auto' : 'config',
    reason: verdict.reason,
    readyLine: verdict.status === 'healthy' ? (verdict.readyLine ?? null) : null,
    state: input.state,
    requests,
    waitedMs: Math.round(performance.now() - began),
    logs: healthy ? [] : failureTail(input.logs, FAILURE_TAIL_LINES),
  };
}
