import type { RestartPolicy } from '../config/config.js';
import type { IgnoreMatcher } from '../local/ignore.js';
import type { ApplyRequest, ApplyResult } from '../api/types.js';

/**
 * What to ask deployments.apply for. `auto` lets the runtime decide, except that a
 * change touching only hot paths (static assets, templates the app re-reads) never
 * needs a restart. `always` and `never` are the user's explicit word.
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

/**
 * Healthy: the process runs and, when it publishes a URL, that URL answers 2xx/3xx.
 * A worker with no URL (http.url empty) is healthy when it runs.
 */
export function isHealthy(result: Pick<ApplyResult, 'state' | 'http'>): boolean {
  if (result.state !== 'running') return false;
  if (!result.http || !result.http.url) return true;
  return result.http.ok;
}
