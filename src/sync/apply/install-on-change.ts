/**
 * `"install": "on-change"` (issue 47, item 4; config/install.ts): the deployment's start
 * command only starts the app, so a push or watch cycle whose change touches a manifest
 * (package.json, a lockfile, requirements.txt, pyproject.toml) installs before the restart,
 * with one deployments.shell call. A code-only change pays no install at all.
 *
 * A failed install is not restarted into: the app keeps running the code it loaded, the
 * report is unhealthy (exit 4) with the install's last lines, and a marker in the state
 * folder makes the next push or cycle install again before its apply, whatever it changed.
 */
import { access, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Session } from '../session.js';
import type { HealthReport } from './apply.js';
import { isManifest, shellWord } from '../../config/install.js';
import { INSTALL_FAILURE_LINES, INSTALL_TIMEOUT_SECONDS } from '../tunables.js';

/** What an install before an apply did. */
export interface InstallRun {
  /** The shell line run on the deployment. */
  command: string;
  ok: boolean;
  /** The shell's exit code; null when the call itself failed (a key without deployments:shell, ...). */
  exitCode: number | null;
  /** The last lines of its output (or why the call failed), for a failure's report. */
  lines: string[];
  durationMs: number;
  /** The app ran beside the install (the shell's target "app"); null when unknown. */
  appRunning: boolean | null;
}

const PENDING = 'install-pending';
const exists = (file: string): Promise<boolean> => access(file).then(() => true, () => false);

/** The install a project's manifests call for, as one shell line; null when it has none. */
export async function installCommand(root: string): Promise<string | null> {
  const has = (name: string): Promise<boolean> => exists(path.join(root, name));
  const steps: string[] = [];
  if (await has('package.json')) {
    if (await has('pnpm-lock.yaml')) steps.push('pnpm install --frozen-lockfile');
    else if (await has('yarn.lock')) steps.push('yarn install --frozen-lockfile');
    else if ((await has('bun.lock')) || (await has('bun.lockb'))) steps.push('bun install');
    // install, not ci: ci deletes node_modules first, and a small change would cost a whole install.
    else steps.push('npm install --no-audit --no-fund');
  }
  // --user: into /home/container/.local, where the runtime's python finds it (the default start installs there too).
  if (await has('requirements.txt')) steps.push(`pip install --user -r ${shellWord('requirements.txt')}`);
  else if (await has('pyproject.toml')) steps.push('pip install --user .');
  return steps.length > 0 ? steps.join(' && ') : null;
}

/**
 * Runs the install when this change touched a manifest (or an earlier install failed);
 * null when nothing was to install (or "install" is not "on-change").
 */
export async function installBeforeApply(session: Session, changed: readonly string[]): Promise<InstallRun | null> {
  if (session.config.install !== 'on-change') return null;
  const marker = path.join(session.stateDir, PENDING);
  if (!changed.some(isManifest) && !(await exists(marker))) return null;
  const command = await installCommand(session.config.root);
  if (command === null) {
    await rm(marker, { force: true });
    return null;
  }
  const started = Date.now();
  // Written first: a push killed during the install still installs next time.
  await writeFile(marker, `${command}\n`);
  let run: InstallRun;
  try {
    const r = await session.client.deployments.shell({ command, timeout: INSTALL_TIMEOUT_SECONDS });
    const ok = r.exitCode === 0 && !r.timedOut;
    const lines = r.output.split(/\r?\n/).filter((l) => l.trim() !== '').slice(-INSTALL_FAILURE_LINES);
    run = { command, ok, exitCode: r.exitCode, lines: r.timedOut ? [...lines, `(cut after ${INSTALL_TIMEOUT_SECONDS} s)`] : lines, durationMs: Date.now() - started, appRunning: r.target === 'app' };
  } catch (err) {
    run = { command, ok: false, exitCode: null, lines: [(err as Error).message], durationMs: Date.now() - started, appRunning: null };
  }
  if (run.ok) await rm(marker, { force: true });
  return run;
}

/** The verdict of a push whose install failed: it was not restarted into (exit 4, the install's lines). */
export function installFailureHealth(run: InstallRun): HealthReport {
  const how = run.exitCode === null ? 'could not run' : `exited with code ${run.exitCode}`;
  return {
    healthy: false,
    kind: null,
    decided: 'config',
    reason: `the install (${run.command}) ${how}; the app was not restarted and keeps its old code: fix the manifest and push again`,
    readyLine: null,
    state: run.appRunning === true ? 'running' : run.appRunning === false ? 'offline' : 'unknown',
    requests: 1,
    waitedMs: run.durationMs,
    logs: run.lines,
  };
}
