/**
 * Whether the deployment came up: a pure judgement of what apply, diagnose or
 * deployments.logs returned, under the hostsync.json "health" settings. The waiting
 * (which request to send next, and when) is sync/apply/apply.ts's; this file decides.
 *
 * - web: running, and `path` answers 2xx/3xx. A definite answer (any HTTP status) is
 *   final; no answer yet (status 0) is waited for until `timeoutSeconds`.
 * - worker: running (the service reports a process `running` once it stays up past its
 *   boot grace). After a start, with `ready` set, a line of this start must match it.
 * - auto: web when the app answered HTTP on its port, else worker.
 */
import type { DeploymentState } from '../../api/types.js';
import type { HealthKind, HealthSettings } from '../../config/config.js';
import { linesOfThisStart } from '../console-lines.js';
import { outOfMemoryLine, outOfMemoryReason } from './memory-advice.js';

export type ResolvedKind = Exclude<HealthKind, 'auto'>;

/** What one payload tells about the deployment. */
export interface HealthInput {
  state: DeploymentState;
  /** The answer on the health path; null when the payload carries no probe (deployments.logs). */
  http: { url: string; status: number; ok: boolean } | null;
  logs: readonly string[];
  /** The app was (re)started by this apply: a worker's `ready` line is awaited. */
  started: boolean;
}

/** What to read next while waiting: the state settling, the web answer, or the ready line. */
export type Need = 'state' | 'http' | 'ready';

export type Verdict =
  | { status: 'healthy' | 'unhealthy'; kind: ResolvedKind | null; reason: string; readyLine?: string }
  | { status: 'waiting'; kind: ResolvedKind | null; reason: string; need: Need };

/** `auto` resolved from a probe: an app that answered HTTP (any status) is a web app. */
export function resolveKind(kind: HealthKind, http: HealthInput['http']): ResolvedKind | null {
  if (kind !== 'auto') return kind;
  if (http === null) return null;
  return http.status !== 0 ? 'web' : 'worker';
}

const NOT_UP: Partial<Record<DeploymentState, string>> = {
  offline: 'the app is not running (offline): it exited, crashed or was stopped',
  stopping: 'the app is stopping',
  unknown: "the deployment's node could not be reached (state unknown)",
};

export function judgeHealth(input: HealthInput, settings: HealthSettings): Verdict {
  const pinned = settings.kind === 'auto' ? null : settings.kind;
  const down = NOT_UP[input.state];
  if (down !== undefined) {
    // A start the out-of-memory killer ended: the cause and the fix, not "it crashed".
    const oom = input.state === 'offline' ? outOfMemoryLine(linesOfThisStart(input.logs)) : undefined;
    return { status: 'unhealthy', kind: pinned, reason: oom === undefined ? down : outOfMemoryReason(oom) };
  }
  if (input.state !== 'running') return { status: 'waiting', kind: pinned, reason: `the app is ${input.state}`, need: 'state' };

  const kind = resolveKind(settings.kind, input.http);
  if (kind === null) return { status: 'waiting', kind, reason: 'the app is running', need: 'http' };
  if (kind === 'web') {
    const http = input.http;
    if (http === null || http.status === 0) return { status: 'waiting', kind, reason: `no HTTP answer on ${settings.path} yet`, need: 'http' };
    if (http.ok) return { status: 'healthy', kind, reason: `HTTP ${http.status} on ${settings.path}` };
    return { status: 'unhealthy', kind, reason: `${settings.path} answered HTTP ${http.status}` };
  }
  if (settings.ready === null || !input.started) return { status: 'healthy', kind, reason: 'running' };
  const ready = new RegExp(settings.ready);
  const line = linesOfThisStart(input.logs).find((l) => ready.test(l));
  if (line !== undefined) return { status: 'healthy', kind, reason: 'ready line seen', readyLine: line };
  return { status: 'waiting', kind, reason: `waiting for a line matching /${settings.ready}/`, need: 'ready' };
}

/** The verdict once `timeoutSeconds` have passed and the app is still not known to be up. */
export function timedOut(verdict: Verdict, settings: HealthSettings): Verdict {
  if (verdict.status !== 'waiting') return verdict;
  const after = `within ${settings.timeoutSeconds} s`;
  const reason =
    verdict.need === 'ready'
      ? `no line matching /${settings.ready}/ appeared in the logs ${after} (health.ready)`
      : verdict.need === 'http'
        ? `${settings.path} gave no HTTP answer ${after}; a web app must listen on SERVER_PORT (pin "kind": "worker" if it serves no HTTP)`
        : `${verdict.reason} still, ${settings.timeoutSeconds} s after the apply`;
  return { status: 'unhealthy', kind: verdict.kind, reason };
}
