/**
 * `hostsync doctor`: answers "why doesn't it work?" in one run. Each check passes or
 * fails with the fix. Few requests (about eight, counted in the result); nothing changes
 * on the deployment: the two write-scope probes are calls the service refuses or that have
 * no effect (see probeScope).
 */
import { access, readFile } from 'node:fs/promises';
import path from 'node:path';
import type { Account, Deployment, EnvAuditResult, ResourcesResult } from '../api/types.js';
import { EXIT } from '../errors.js';
import { ApiError } from '../remote/errors.js';
import { push as pushCore, type PushReport } from '../sync/push/push.js';
import type { Session } from '../sync/session.js';
import { connect, deploymentRef, type ConnectionOptions, type DeploymentRef } from './options.js';
import { failedWith, requestsOf, runCommand, type FailureFields, type Outcome, type RequestsSummary } from './result.js';
import { DOCTOR_CLOCK_MAX_SKEW_MS, DOCTOR_ENV_PROBE_KEY, DOCTOR_DISK_MAX_SHARE, DOCTOR_RATE_MIN_REMAINING, READ_COMMAND_DEADLINE_MS } from './tunables.js';
import { npmInstallNeed, type InstallMemoryNeed } from '../api/memory.js';
import { memoryFix } from '../sync/apply/memory-advice.js';
import { shutdownFix } from '../sync/apply/restart-guard.js';
import { guardRestarts } from './restart-rules.js';

export interface DoctorOptions extends ConnectionOptions {
  /** Also restart the app once and time its stop (`doctor --shutdown`): the one check that changes something. */
  shutdown?: boolean;
}

export type CheckId = 'key' | 'scopes' | 'deployment' | 'entry' | 'runtime' | 'ram' | 'disk' | 'env' | 'ignore' | 'drift' | 'rate' | 'clock' | 'shutdown';

export interface DoctorCheck {
  id: CheckId;
  ok: boolean;
  /** What was found, one line. */
  detail: string;
  /** What to do when it failed; "" when it passed. */
  fix: string;
}

export interface DoctorResult extends Partial<FailureFields> {
  /** Every check passed. */
  ok: boolean;
  checks: DoctorCheck[];
  deployment: DeploymentRef | null;
  requests: RequestsSummary;
}

const NODE_RUNTIMES = new Set(['nodejs', 'nodemon', 'bun']);

const exists = (p: string): Promise<boolean> => access(p).then(() => true, () => false);
const mb = (bytes: number): string => `${Math.round(bytes / 1024 / 1024)} MB`;

/** A call whose failure is a finding, not the end of the run. */
async function attempt<T>(fn: () => Promise<T>): Promise<{ value: T; error: null } | { value: null; error: ApiError | Error }> {
  try {
    return { value: await fn(), error: null };
  } catch (err) {
    return { value: null, error: err as Error };
  }
}

const statusOf = (err: Error | null): number | null => (err instanceof ApiError ? err.status : null);
const why = (err: Error): string => (err instanceof ApiError && err.status === 403 ? `refused (403): ${err.serverMessage || err.message}` : err.message);

/**
 * The fix for a per-deployment read that failed: a missing scope only on a 403; a 404 is the
 * deployment check's finding (a wrong id), which no scope would fix.
 */
function scopeFix(error: Error | null, scope: string): string {
  const st = statusOf(error);
  if (st === 404) return 'the deployment was not found: see the deployment check above';
  return st === 403 ? `give the key ${scope}` : `retry; if it persists, check that the key holds ${scope}`;
}

/** A 403 says the scope is missing; 2xx or another refusal after the scope check (400, 404) says it is held. */
function scopeFrom(r: { error: Error | null }): boolean | null {
  if (r.error === null) return true;
  const status = statusOf(r.error);
  if (status === 403) return false;
  if (status === 400 || status === 404 || status === 409) return true;
  return null;
}

/**
 * Whether the key holds the write scopes, with calls that change nothing: files.uploadUrl
 * only mints a one-time URL nobody uses; deployments.update sends the current name back;
 * env.update with an empty body names a key hostsync never sets, so the answer is 404
 * (scope held) or 403 (not held), and an existing key would be left as it is.
 */
async function probeWrites(s: Session, name: string | null): Promise<Array<[string, boolean | null]>> {
  return [
    ['files:write', scopeFrom(await attempt(() => s.client.files.uploadUrl()))],
    ['deployments:write', name === null ? null : scopeFrom(await attempt(() => s.client.deployments.rename(name)))],
    ['env:write', scopeFrom(await attempt(() => s.client.env.touch(DOCTOR_ENV_PROBE_KEY)))],
  ];
}

interface ProjectKind {
  node: boolean;
  python: boolean;
  /** What npm install of this package.json needs (api/memory.ts: the document's guidance), or null when it installs nothing. */
  install: InstallMemoryNeed | null;
}

async function projectKind(root: string): Promise<ProjectKind> {
  const pkgText = await readFile(path.join(root, 'package.json'), 'utf8').catch(() => null);
  return { node: pkgText !== null, python: await exists(path.join(root, 'requirements.txt')), install: pkgText === null ? null : npmInstallNeed(pkgText) };
}

/** The result's keys with nothing checked: what `--json` prints when the command never ran. */
export const emptyDoctorResult = (): DoctorResult => ({ ok: false, checks: [], deployment: null, requests: requestsOf(null) });

export async function runDoctor(opts: DoctorOptions = {}): Promise<{ result: Outcome<DoctorResult>; thrown: boolean }> {
  let session: Session | null = null;
  return runCommand<DoctorResult>(
    () => ({ ...emptyDoctorResult(), deployment: session ? deploymentRef(session.config) : null, requests: requestsOf(session?.client.stats()) }),
    async () => {
      session = await connect(opts, undefined, READ_COMMAND_DEADLINE_MS);
      try {
        const checks = await diagnose(session);
        if (opts.shutdown) checks.push(await shutdownCheck(session));
        const failed = checks.filter((c) => !c.ok);
        const result: DoctorResult = { ok: failed.length === 0, checks, deployment: deploymentRef(session.config), requests: requestsOf(session.client.stats()) };
        return failed.length === 0 ? result : failedWith(result, `${failed.length} check${failed.length === 1 ? '' : 's'} failed (${failed.map((c) => c.id).join(', ')})`, EXIT.failed);
      } finally {
        await session.close();
      }
    },
    () => session?.config.apiKey ?? opts.apiKey ?? (opts.env ?? process.env).HOSTSYNC_API_KEY,
  );
}

async function diagnose(s: Session): Promise<DoctorCheck[]> {
  const checks: DoctorCheck[] = [];
  const add = (id: CheckId, ok: boolean, detail: string, fix = ''): void => {
    checks.push({ id, ok, detail, fix: ok ? '' : fix });
  };
  const { root } = s.config;

  // 1. The key, through account.get (a 401 is a bad key; a 403 only a missing account:read).
  const account = await attempt<Account>(() => s.client.account.get());
  const accountStatus = statusOf(account.error);
  if (accountStatus === 401) {
    add('key', false, 'the service refused the key (401)', 'export HOSTSYNC_API_KEY with a valid key from the account\'s developer settings');
    return checks; // nothing else can be checked without a key
  }
  if (account.error && accountStatus !== 403) {
    add('key', false, `the service could not be reached: ${account.error.message}`, 'check the base URL and the network, then run doctor again');
    return checks;
  }
  add('key', true, account.value ? `valid, account ${account.value.username}` : 'valid (account:read not held, so the account is not shown)');

  // 2. The deployment, and its record (state, size, startup).
  const dep = await attempt<Deployment>(() => s.client.deployments.get());
  if (dep.error || !dep.value) {
    const st = statusOf(dep.error);
    add('deployment', false, st === 404 ? `deployment ${s.config.deploymentId} not found` : `deployments.get failed: ${why(dep.error!)}`,
      st === 404 ? 'run `hostsync link` to pick a deployment this key can see' : 'give the key deployments:read');
  }
  const d = dep.value;
  if (d) {
    const up = d.state === 'running';
    add('deployment', up, `reachable, ${d.state}`, d.state === 'unknown' ? 'its node cannot be reached: retry shortly' : 'run `hostsync push` (it applies and starts the app), and read `hostsync doctor` / the logs if it does not come up');
  }

  // 3. Scopes the commands need: reads were exercised above and below; writes are probed.
  const writes = await probeWrites(s, d?.name ?? null);
  const index = await attempt<PushReport>(() => pushCore(s, { dryRun: true, allowMassDelete: true }));
  const audit = await attempt<EnvAuditResult>(() => s.client.env.audit());
  const scopes: Array<[string, boolean | null]> = [
    ['deployments:read', d ? true : statusOf(dep.error) === 403 ? false : null],
    ['files:read', index.error ? (statusOf(index.error) === 403 ? false : null) : true],
    ['env:read', audit.error ? (statusOf(audit.error) === 403 ? false : null) : true],
    ...writes,
  ];
  const missing = scopes.filter(([, v]) => v === false).map(([k]) => k);
  const unknown = scopes.filter(([, v]) => v === null).map(([k]) => k);
  add('scopes', missing.length === 0, missing.length > 0 ? `missing ${missing.join(', ')}` : `holds ${scopes.filter(([, v]) => v).map(([k]) => k).join(', ')}${unknown.length ? ` (not determined: ${unknown.join(', ')})` : ''}`,
    `create a key with ${missing.join(', ')} in the account's developer settings (push needs files:read, files:write, deployments:read, deployments:write; env needs env:read and env:write)`);

  // 4. Entry file and runtime against the project.
  const kind = await projectKind(root);
  if (d) {
    const entry = d.startup?.entryFile || d.entryFile;
    if (!entry) add('entry', true, `no entry file (start command: ${d.startup?.startCommand || 'the runtime default'})`);
    else {
      const rel = entry.replace(/^\/+/, '').replace(/^home\/container\//, '');
      const present = await exists(path.join(root, rel));
      const ignored = present && s.matcher.ignores(rel, false);
      // "Synced" only from what the comparison saw: a deployment nothing was pushed to lacks the file.
      const write = index.value?.changes.find((c) => c.kind === 'write' && c.path === rel);
      const missing = write?.kind === 'write' && write.create;
      const where = index.error ? 'exists here (whether the deployment has it could not be read)'
        : missing ? 'exists here but is not on the deployment yet'
        : write ? 'exists here; the deployment has an older copy (a push sends yours)'
        : 'exists here and on the deployment';
      add('entry', present && !ignored && !missing,
        !present ? `the startup entry file ${rel} is not in ${root}` : ignored ? `the startup entry file ${rel} is ignored, so it is never pushed` : `${rel} ${where}`,
        !present ? `create ${rel}, or set your main file as "startup": {"entryFile": "..."} in hostsync.json and run \`hostsync push\` (it sets it on the deployment)`
        : ignored ? `remove the pattern that ignores ${rel} from .syncignore or "ignore" in hostsync.json`
        : `run \`hostsync push\` to send it`);
    }
    const runtime = d.startup?.runtime || d.runtime;
    const wants = kind.node ? 'node' : kind.python ? 'python' : null;
    const matches = wants === null || (wants === 'node' ? NODE_RUNTIMES.has(runtime) : runtime === 'python');
    add('runtime', matches,
      wants === null ? `runtime ${runtime} (no package.json or requirements.txt to compare)` : `runtime ${runtime}, project is ${wants === 'node' ? 'Node (package.json)' : 'Python (requirements.txt)'}`,
      `change the deployment's runtime to ${wants === 'node' ? 'nodejs' : 'python'} (deployments.updateStartup; a change of type deletes every file, so push again after)`);

    // 5. RAM against the document's guidance (only where npm install runs), by the rule the emulator applies.
    if (kind.install !== null) {
      const ram = d.resources.ramMB;
      const needs = kind.install.needMB;
      add('ram', ram >= needs, `${ram} MB RAM; the API document asks ${needs} MB or more for ${kind.install.what}`,
        `${memoryFix(needs)}; below it npm install is killed with exit 137 ("Out of memory: true")`);
    } else {
      add('ram', true, `${d.resources.ramMB} MB RAM (no npm install to size for)`);
    }
  }

  // 6. Disk against the limit.
  const res = await attempt<ResourcesResult>(() => s.client.deployments.resources());
  if (res.value) {
    const { usedBytes, limitBytes } = res.value.disk;
    const share = limitBytes > 0 ? usedBytes / limitBytes : 0;
    add('disk', share <= DOCTOR_DISK_MAX_SHARE, `${mb(usedBytes)} of ${mb(limitBytes)} used (${Math.round(share * 100)}%)`,
      'free space (delete build output or logs on the deployment), or resize its storage');
  } else if (res.error) {
    add('disk', false, `deployments.resources failed: ${why(res.error)}`, scopeFix(res.error, 'deployments:read'));
  }

  // 7. Variables the code reads but nobody set, and placeholders.
  if (audit.value) {
    const a = audit.value;
    const bad = [...a.missing.map((k) => `${k} is read by ${a.used.find((u) => u.key === k)?.files[0] ?? 'the code'} but not set`), ...a.placeholders.map((k) => `${k} still holds a placeholder`)];
    add('env', bad.length === 0, bad.length === 0 ? `${a.used.length} variable${a.used.length === 1 ? '' : 's'} read, all set` : bad.join('; '),
      `add ${[...a.missing, ...a.placeholders].join(', ')} to ${s.config.envFile} and run \`hostsync env push --restart\``);
  } else if (audit.error) {
    add('env', false, `env.audit failed: ${why(audit.error)}`, scopeFix(audit.error, 'env:read'));
  }

  // 8. Ignore sanity: secrets stay home, dependencies are installed there, not uploaded.
  const envSynced = !s.matcher.ignores('.env', false);
  const modulesSynced = kind.node && !s.matcher.ignores('node_modules', true);
  const problems = [envSynced ? '.env would be pushed' : '', modulesSynced ? 'node_modules would be pushed' : ''].filter(Boolean);
  add('ignore', problems.length === 0, problems.length === 0 ? '.env and node_modules are never pushed' : problems.join('; '),
    `add ${[envSynced ? '.env' : '', modulesSynced ? 'node_modules/' : ''].filter(Boolean).join(' and ')} to .syncignore (and remove any "!" pattern that re-includes it)`);

  // 9. Drift and conflicts (the dry run of push above).
  if (index.value) {
    const { conflicts, drift } = index.value;
    add('drift', conflicts.length === 0 && drift.length === 0,
      conflicts.length + drift.length === 0 ? 'no conflicts, no remote drift' : `${conflicts.length} conflict(s), ${drift.length} file(s) changed on the deployment since the last push`,
      'run `hostsync status` to see them; resolve conflicts, or `hostsync push --force` to overwrite them with the local files');
  } else if (index.error) {
    add('drift', false, `could not compare: ${why(index.error)}`, scopeFix(index.error, 'files:read'));
  }

  // 10. Rate budget and 11. clock, from the last answer's headers.
  const seen = s.client.lastAnswer();
  if (seen.rateRemaining !== null) {
    add('rate', seen.rateRemaining >= DOCTOR_RATE_MIN_REMAINING, `${seen.rateRemaining} requests left in the current window`,
      'another client is spending this key\'s budget (120 per minute): wait a minute, or stop the other hostsync (watch) using the key');
  }
  if (seen.serverDateMs !== null && seen.receivedAtMs !== null) {
    const skew = seen.receivedAtMs - seen.serverDateMs;
    add('clock', Math.abs(skew) <= DOCTOR_CLOCK_MAX_SKEW_MS, `this machine's clock is ${Math.abs(Math.round(skew / 1000))} s ${skew >= 0 ? 'ahead of' : 'behind'} the service's`,
      'sync the clock (e.g. `timedatectl set-ntp true`): signed upload URLs and Retry-After dates depend on it');
  }
  return checks;
}

/**
 * `--shutdown`: one restart (deployments.apply, restart: true), its stop timed through the
 * new process's uptime (sync/apply/restart-guard.ts): an app killed at the end of the service's
 * grace did not exit on its stop signal. The restart counts toward "restartsPerDay".
 */
async function shutdownCheck(s: Session): Promise<DoctorCheck> {
  const guard = await guardRestarts(s, { timeStops: 'always' });
  const fix = shutdownFix(guard.rules.library);
  const applied = await attempt(() => s.client.deployments.apply({ restart: true, ...(s.config.applyWaitSeconds !== undefined ? { waitSeconds: s.config.applyWaitSeconds } : {}) }));
  if (applied.error) return { id: 'shutdown', ok: false, detail: `could not restart: ${why(applied.error)}`, fix: scopeFix(applied.error, 'deployments:write') };
  await s.store.setApplyPending(false).catch(() => undefined);
  const note = guard.take().at(-1);
  if (note?.refused) return { id: 'shutdown', ok: false, detail: note.refused, fix: 'wait for the count to fall, or restart once with `hostsync restart --force` and time it by hand' };
  const stop = note?.stop ?? null;
  if (!applied.value.restarted || stop === null) {
    return { id: 'shutdown', ok: false, detail: `could not time the stop: the app is ${applied.value.state} after the restart`, fix: 'make the app start (`hostsync logs`), then run `hostsync doctor --shutdown` again' };
  }
  return { id: 'shutdown', ok: !stop.killed, detail: stop.killed ? stop.message.replace(/ Fix: .*$/, '') : stop.message, fix };
}

export async function doctor(opts: DoctorOptions = {}): Promise<DoctorResult> {
  return (await runDoctor(opts)).result;
}
