/**
 * The notifier of a command (sync/notify.ts) from its configuration: hostsync.json
 * "notify", and the strings no message may carry (the API key, every value of every env
 * file hostsync.json names, read at the start). Also what a push result tells it.
 */
import { nearRestartLimit } from '../sync/apply/restart-guard.js';
import path from 'node:path';
import { projectRootOf, type Config } from '../config/config.js';
import { EXIT } from '../errors.js';
import { readEnvFile } from '../local/envfile.js';
import { Notifier, type NotifyOrigin } from '../sync/notify.js';
import type { ApplyResult } from '../api/types.js';
import type { HealthReport } from '../sync/apply/apply.js';

/** What of a push's (or a cycle's) result a notification reads; PushResult has these fields, named here so push.ts can import this module. */
export interface NotifiableOutcome {
  dryRun: boolean;
  healthy: boolean | null;
  health: HealthReport | null;
  apply: ApplyResult | null;
  conflicts: readonly { path: string }[];
  exitCode?: number | undefined;
  error?: string | undefined;
  restarts?: { today: number; limit: number | null } | null;
}

/** Who the messages are about: the target and the deployment, never the key or the URL's path. */
export const notifySubject = (config: Config): string =>
  `${config.target ? `target ${config.target}, ` : ''}deployment ${config.deploymentId}${config.baseUrl ? ` (${new URL(config.baseUrl).host})` : ''}`;

/** null when hostsync.json has no "notify" (or it sends nowhere). */
export async function notifierFor(config: Config): Promise<Notifier | null> {
  const settings = config.notify ?? null;
  if (settings === null || (settings.webhook === null && !settings.desktop)) return null;
  const secrets: string[] = [config.apiKey];
  for (const file of config.envFiles) {
    const values = await readEnvFile(path.resolve(projectRootOf(config), file)).catch(() => null);
    if (values) secrets.push(...values.values());
  }
  return new Notifier({ settings, subject: notifySubject(config), secrets });
}

/** What a push's or cycle's outcome is worth telling: unhealthy, conflicts, a refusal. */
export function notifyPushOutcome(n: Notifier, r: NotifiableOutcome, origin: NotifyOrigin): void {
  if (r.dryRun) return;
  if (r.healthy === false) {
    n.notify({ kind: 'unhealthy', origin, state: r.health?.state ?? r.apply?.state ?? 'unknown', reason: r.health?.reason ?? 'the app is not healthy', lines: r.health?.logs ?? [] });
  }
  if (r.restarts && r.restarts.limit !== null && nearRestartLimit(r.restarts.today, r.restarts.limit)) n.notify({ kind: 'restart-limit', restartsToday: r.restarts.today, limit: r.restarts.limit });
  if (r.conflicts.length > 0) n.notify({ kind: 'conflict', origin, paths: r.conflicts.map((c) => c.path) });
  else if (r.exitCode === EXIT.refused && r.error) n.notify({ kind: 'refusal', origin, message: r.error });
}
