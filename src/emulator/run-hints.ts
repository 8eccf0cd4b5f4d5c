/**
 * The one-line hint the service gives with a deployment's state (power, diagnose, logs):
 * what is happening and what to do, from what the runner knows. Pure.
 */
import type { DeploymentState, HttpProbe } from '../api/types.js';
import type { InstallOutcome, InstallStep } from './install.js';
import type { AppProcess } from './app-process.js';

/** What the runner knows of its deployment when a hint is asked for. */
export interface RunFacts {
  runtime: string;
  /** False for a runtime the emulator does not run (no startCommand). */
  emulated: boolean;
  port: number | null;
  /** The install running now (its command line), or null. */
  installing: string | null;
  bootGraceMs: number;
  everStarted: boolean;
  stoppedByUser: boolean;
  startFailure: string | null;
  installFailure: { step: InstallStep; outcome: InstallOutcome } | null;
  /** How the app's last process ended, or null (none, still running, or the static server). */
  exit: AppProcess['exit'] | null;
  listens: () => boolean;
  memoryLimitMB: number;
}

export const notEmulated = (runtime: string): string => `runtime ${runtime} is not emulated; give the deployment a startCommand to run it here`;

/** The service's one-line advice for the state at hand; "" when the app is up and answering. */
export function hintFor(state: DeploymentState, probe: HttpProbe | null, f: RunFacts): string {
  const port = f.port;
  if (!f.emulated) return notEmulated(f.runtime);
  switch (state) {
    case 'installing':
      return f.installing === null ? 'The deployment is being prepared; retry shortly.' : `Dependencies are being installed (${f.installing}); the app starts once they are.`;
    case 'stopping':
      return 'The deployment is stopping.';
    case 'starting': {
      const grace = f.bootGraceMs / 1000;
      return `The process has just started; it is running once it listens on port ${port} (SERVER_PORT, on 0.0.0.0) or stays up for ${grace} s.`;
    }
    case 'offline': {
      if (!f.everStarted) return 'The deployment has not been started; start it with power start or apply.';
      if (f.stoppedByUser) return 'The deployment was stopped; start it with power start or apply.';
      if (f.startFailure !== null) return `The app was not started: ${f.startFailure}.`;
      if (f.installFailure !== null) return installHint(f.installFailure.step, f.installFailure.outcome, f.memoryLimitMB);
      const exit = f.exit;
      if (exit === null) return 'The deployment is not running; start it with power start or apply.';
      if (exit.error !== '') return `The process could not be started (${exit.error}); check the startup command and entry file.`;
      if (exit.signal !== null) return `The process was killed by ${exit.signal}; the last log lines show why.`;
      return `The process exited with code ${exit.code ?? 'unknown'}; the last log lines show why.`;
    }
    case 'running':
      if (probe === null || probe.ok) return '';
      if (probe.status === 0 && !f.listens()) {
        return `The process runs but does not listen on port ${port}: right for a bot or worker; a web app must listen on SERVER_PORT and 0.0.0.0.`;
      }
      if (probe.status === 0) return `The app accepts connections on port ${port} but gave no HTTP answer to GET /.`;
      return `The app answered GET / with HTTP ${probe.status}; the last log lines may show why.`;
    case 'unknown':
      return 'The node could not be reached; retry shortly.';
  }
}

function installHint(step: InstallStep, outcome: InstallOutcome, memoryLimitMB: number): string {
  if (outcome.outOfMemory) {
    return `${step.display} was killed for want of memory (exit code ${outcome.exitCode}, Out of memory: true): the deployment has ${memoryLimitMB} MB and ${step.needFor} needs ${step.needMB} MB or more; resize it (deployments.resize) and start it again.`;
  }
  return `${step.display} exited with code ${outcome.exitCode}, so the app was not started; the last log lines show why.`;
}
