/**
 * The difference between an environment file and a deployment's variables, as keys only.
 * Pure: the file's values, the remote list and what hostsync remembers of its secrets go
 * in; keys marked added / changed / removed come out. No value ever leaves this function.
 */
import type { EnvVariable } from '../../api/types.js';

export type EnvChangeKind = 'added' | 'changed' | 'removed';

export interface EnvChange {
  key: string;
  change: EnvChangeKind;
  /** How push would set it (added, changed) or how it is on the deployment (removed). */
  secret: boolean;
}

export interface EnvPlan {
  /** Sorted by key. */
  changes: EnvChange[];
  /**
   * Secrets on the deployment that hostsync did not set (or no longer remembers): their
   * value cannot be read back, so whether the file matches them is unknown. Not changes.
   */
  unverified: string[];
  /**
   * Keys of the file that are system variables on the deployment (env.list marks them
   * `system`: PORT, SERVER_PORT...): the node sets them and refuses a change, so they are
   * neither changes nor sent. Sorted.
   */
  system: string[];
}

export interface EnvPlanInput {
  /** The file's variables (dotenv-parsed). */
  local: Map<string, string>;
  /** env.list's answer; system variables are ignored. */
  remote: EnvVariable[];
  /** Keys pushed as plain variables (`--plain`). */
  plain: ReadonlySet<string>;
  /** Keys pushed as secrets (`--secret`): turns a plain variable secret. */
  secret?: ReadonlySet<string>;
  /** Remembered digest check of a secret: true equal, false different, null unknown. */
  secretMatches: (key: string, value: string) => boolean | null;
}

export function planEnv(input: EnvPlanInput): EnvPlan {
  const remote = new Map(input.remote.filter((v) => !v.system).map((v) => [v.key, v]));
  const systemKeys = new Set(input.remote.filter((v) => v.system).map((v) => v.key));
  const changes: EnvChange[] = [];
  const unverified: string[] = [];
  const system: string[] = [];
  for (const [key, value] of input.local) {
    if (systemKeys.has(key) && !remote.has(key)) {
      system.push(key);
      continue;
    }
    const there = remote.get(key);
    // A new key is a secret unless --plain; an existing one keeps its flag unless a flag names it.
    const wantSecret = input.plain.has(key) ? false : input.secret?.has(key) ? true : (there?.secret ?? true);
    if (!there) {
      changes.push({ key, change: 'added', secret: wantSecret });
      continue;
    }
    let same: boolean;
    if (there.secret) {
      const m = input.secretMatches(key, value);
      if (m === null) unverified.push(key);
      same = m !== false;
    } else {
      same = there.value === value;
    }
    // A flag that differs from what push would set is a change too: push flips it (only when asked).
    if (!same || there.secret !== wantSecret) changes.push({ key, change: 'changed', secret: wantSecret });
  }
  for (const [key, v] of remote) if (!input.local.has(key)) changes.push({ key, change: 'removed', secret: v.secret });
  changes.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  return { changes, unverified: unverified.sort(), system: system.sort() };
}
