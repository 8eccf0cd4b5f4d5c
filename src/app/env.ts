/**
 * `hostsync env list|diff|push|pull`: the deployment's variables against the project's
 * environment file (.env, `--file`, or "envFile"). Keys only, ever: no value is printed,
 * logged or stored. Secrets cannot be read back, so hostsync compares them through the
 * keyed digests it keeps of what it set (state/env-digests.ts; the key is the user's).
 */
import { projectRootOf } from '../config/config.js';
import path from 'node:path';
import type { ApplyResult, EnvVariable } from '../api/types.js';
import { EXIT, usageError } from '../errors.js';
import { envWriteTarget, readEnvFileChecked, skippedLinesWarning, writeEnvValues } from '../local/envfile.js';
import { userConfigDir } from '../config/trust.js';
import { EnvDigests } from '../state/env-digests.js';
import { planEnv, type EnvChange } from '../sync/settings/env-plan.js';
import { awaitHealth } from '../sync/apply/apply.js';
import type { Session } from '../sync/session.js';
import { sharedTokenWarnings } from './shared-tokens.js';
import { connect, deploymentRef, type ConnectionOptions, type DeploymentRef } from './options.js';
import { failedWith, requestsOf, runCommand, type FailureFields, type Outcome, type RequestsSummary } from './result.js';

export type EnvAction = 'list' | 'diff' | 'push' | 'pull';

export interface EnvOptions extends ConnectionOptions {
  /** The environment file; else "envFile" of hostsync.json (or the target), else .env. Relative to the project directory. */
  file?: string;
  /** diff/push: keys set as plain variables. A new key is otherwise a secret; an existing one keeps its flag. */
  plain?: string[];
  /** diff/push: keys set as secrets, turning a plain variable secret. */
  secret?: string[];
  /** push: also delete the deployment's variables the file lacks (destructive: needs `yes` or a yes from `confirm`). */
  prune?: boolean;
  /** push: restart the app afterwards (deployments.apply with restart), since variables apply at the next start. */
  restart?: boolean;
}

/** One deployment variable as `env list` shows it: never its value. */
export interface EnvListItem {
  key: string;
  secret: boolean;
  system: boolean;
  /** The environment file has this key (null: the file could not be read). */
  inFile: boolean | null;
}

/** What `env <action> --json` prints and `env()` resolves to; `error` and `exitCode` when `ok` is false. */
export interface EnvResult extends Partial<FailureFields> {
  ok: boolean;
  action: EnvAction;
  /** The environment file, absolute; null before the configuration resolved. */
  file: string | null;
  deployment: DeploymentRef | null;
  /** list: the deployment's variables. */
  variables: EnvListItem[];
  /** diff: what a push would change; push: what it changed. Keys only. */
  changes: EnvChange[];
  /** Secrets hostsync did not set: their value cannot be compared. */
  unverified: string[];
  /** push: the app was restarted afterwards, and how it came up; null without --restart. */
  restart: { state: string; healthy: boolean; reason: string; logs: string[] } | null;
  /** push: keys the deployment's code reads (env.audit) that are set neither in the file nor on the deployment. */
  unset: string[];
  /** pull: keys written into the file (plain values only). */
  pulled: string[];
  /** pull: secret keys the file lacks, whose values cannot be fetched. */
  secretsNotFetched: string[];
  warnings: string[];
  requests: RequestsSummary;
}

export const emptyEnvResult = (action: EnvAction): EnvResult => ({
  ok: false, action, file: null, deployment: null, variables: [], changes: [], unverified: [], restart: null, unset: [], pulled: [], secretsNotFetched: [], warnings: [], requests: requestsOf(null),
});

const KEY = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** The file's variables; a line dotenv skips is named in one warning. */
async function readLocal(file: string, result: EnvResult): Promise<Map<string, string>> {
  const { values, skipped } = await readEnvFileChecked(file);
  const warning = skippedLinesWarning(path.basename(file), skipped);
  if (warning !== null) result.warnings.push(warning);
  return values;
}

function envFileOf(session: Session, opts: EnvOptions): string {
  return path.resolve(projectRootOf(session.config), opts.file ?? session.config.envFile);
}

/** Keys dotenv accepted but the service would refuse: named all at once, before anything is sent. */
function checkKeys(local: Map<string, string>, file: string): void {
  const bad = [...local.keys()].filter((k) => !KEY.test(k));
  if (bad.length > 0) throw usageError(`${file}: ${bad.join(', ')} ${bad.length === 1 ? 'is not a valid variable name' : 'are not valid variable names'} (letters, digits and _, not starting with a digit): rename ${bad.length === 1 ? 'it' : 'them'}`);
}

async function list(session: Session, file: string, result: EnvResult): Promise<EnvResult> {
  const remote = (await session.client.env.list()).variables;
  const local = await readLocal(file, result).catch(() => null);
  result.variables = remote
    .map((v) => ({ key: v.key, secret: v.secret, system: v.system, inFile: local ? local.has(v.key) : null }))
    .sort((a, b) => Number(a.system) - Number(b.system) || (a.key < b.key ? -1 : 1));
  if (!local) result.warnings.push(`${file} could not be read: inFile is unknown`);
  return { ...result, ok: true };
}

async function diffOrPush(session: Session, file: string, opts: EnvOptions, result: EnvResult, apply: boolean): Promise<EnvResult> {
  const local = await readLocal(file, result);
  checkKeys(local, file);
  const plain = new Set(opts.plain ?? []);
  const secret = new Set(opts.secret ?? []);
  const both = [...plain].filter((k) => secret.has(k));
  if (both.length > 0) throw usageError(`--plain and --secret both name ${both.join(', ')}: pick one`);
  const unknown = [...plain, ...secret].filter((k) => !local.has(k));
  if (unknown.length > 0) result.warnings.push(`--plain/--secret name ${unknown.join(', ')}, which ${path.basename(file)} does not set`);
  const digests = await EnvDigests.load(session.stateDir, userConfigDir(opts.env ?? process.env));
  const remote: EnvVariable[] = (await session.client.env.list()).variables;
  const plan = planEnv({ local, remote, plain, secret, secretMatches: (k, v) => digests.matches(k, v) });
  result.unverified = plan.unverified;
  if (plan.system.length > 0) {
    const keys = plan.system.join(', ');
    const one = plan.system.length === 1;
    result.warnings.push(`${keys} ${one ? 'is a system variable' : 'are system variables'} the node sets (env.list marks ${one ? 'it' : 'them'} system): skipped, ${path.basename(file)} cannot change ${one ? 'it' : 'them'}`);
  }
  const removals = plan.changes.filter((c) => c.change === 'removed');
  if (!apply) return { ...result, ok: true, changes: plan.changes };

  // push: sets always; deletes only with --prune, and only once confirmed.
  result.warnings.push(...(await sharedTokenWarnings(session.config)));
  const sets = plan.changes.filter((c) => c.change !== 'removed');
  const deletes = opts.prune ? removals : [];
  if (deletes.length > 0 && !opts.yes) {
    const keys = deletes.map((c) => c.key).join(', ');
    const them = deletes.length === 1 ? 'it' : 'them';
    if (!opts.confirm) throw usageError(`--prune would delete ${deletes.length} variable${deletes.length === 1 ? '' : 's'} from the deployment (${keys}): pass --yes to delete ${them}; nothing was changed`);
    if (!(await opts.confirm(`Delete ${keys} from the deployment?`))) throw usageError('cancelled: nothing was changed');
  }
  if (!opts.prune && removals.length > 0) {
    result.warnings.push(`${removals.length} variable${removals.length === 1 ? '' : 's'} on the deployment ${removals.length === 1 ? 'is' : 'are'} not in ${path.basename(file)} (${removals.map((c) => c.key).join(', ')}): kept; --prune deletes them`);
  }
  const done: EnvChange[] = [];
  try {
    for (const c of sets) {
      const value = local.get(c.key)!;
      await session.client.env.set({ key: c.key, value, secret: c.secret });
      if (c.secret) digests.remember(c.key, value);
      else digests.forget(c.key);
      done.push(c);
    }
    for (const c of deletes) {
      await session.client.env.delete(c.key);
      digests.forget(c.key);
      done.push(c);
    }
  } finally {
    result.changes = done;
    await digests.save();
  }
  await warnUnset(session, result);
  if (opts.restart) {
    const since = performance.now();
    const a: ApplyResult = await session.client.deployments.apply({ restart: true, ...(session.config.applyWaitSeconds !== undefined ? { waitSeconds: session.config.applyWaitSeconds } : {}) });
    const health = await awaitHealth(session.client, a, session.config.health, { started: true, since });
    result.restart = { state: health.state, healthy: health.healthy, reason: health.reason, logs: health.logs };
    if (!health.healthy) return failedWith({ ...result, ok: false }, `the app is not healthy after the restart (${health.reason}): run \`hostsync doctor\`, or read its logs`, EXIT.unhealthy);
  } else if (done.length > 0) {
    result.warnings.push('variables apply at the next restart: pass --restart to restart now');
  }
  return { ...result, ok: true };
}

/**
 * One warning for every key the deployment's code reads that nobody set (env.audit, after
 * the sets, so keys just pushed are not named). An audit the key may not read is no reason
 * to fail a push that succeeded.
 */
async function warnUnset(session: Session, result: EnvResult): Promise<void> {
  const audit = await session.client.env.audit().catch(() => null);
  if (!audit || audit.missing.length === 0) return;
  result.unset = [...audit.missing].sort();
  result.warnings.push(`the deployment's code reads ${result.unset.join(', ')}, which ${result.unset.length === 1 ? 'is' : 'are'} set nowhere: add ${result.unset.length === 1 ? 'it' : 'them'} to ${path.basename(result.file ?? '.env')} and push again`);
}

async function pull(session: Session, file: string, result: EnvResult): Promise<EnvResult> {
  const remote = (await session.client.env.list()).variables.filter((v) => !v.system);
  const local = await readLocal(file, result).catch((err: unknown) => {
    // A missing file is created; any other problem is the user's to fix.
    if ((err as Error).message.includes('does not exist')) return new Map<string, string>();
    throw err;
  });
  const plain = new Map(remote.filter((v) => !v.secret).map((v) => [v.key, v.value]));
  // Through a symlink to its target (inside the project only), never over the link.
  result.pulled = await writeEnvValues(await envWriteTarget(file, session.config.root), plain);
  result.secretsNotFetched = remote.filter((v) => v.secret && !local.has(v.key)).map((v) => v.key).sort();
  return { ...result, ok: true };
}

/** `hostsync env ACTION` as a function. Never rejects; see runPush. */
export async function runEnv(action: EnvAction, opts: EnvOptions = {}): Promise<{ result: Outcome<EnvResult>; thrown: boolean }> {
  let session: Session | null = null;
  let file: string | null = null;
  return runCommand(
    () => ({
      ...emptyEnvResult(action),
      file,
      deployment: session ? deploymentRef(session.config) : null,
      requests: requestsOf(session?.client.stats()),
    }),
    async () => {
      session = await connect(opts, action === 'push' ? 'push variables to' : undefined);
      try {
        file = envFileOf(session, opts);
        const result: EnvResult = { ...emptyEnvResult(action), file, deployment: deploymentRef(session.config) };
        const out =
          action === 'list' ? await list(session, file, result)
          : action === 'pull' ? await pull(session, file, result)
          : await diffOrPush(session, file, opts, result, action === 'push');
        return { ...out, requests: requestsOf(session.client.stats()) };
      } finally {
        await session.close();
      }
    },
    () => session?.config.apiKey ?? opts.apiKey ?? (opts.env ?? process.env).HOSTSYNC_API_KEY,
  );
}

export async function env(action: EnvAction, opts: EnvOptions = {}): Promise<EnvResult> {
  return (await runEnv(action, opts)).result;
}
