/**
 * What a failed watch cycle means for the daemon. Only a problem the user must fix in
 * the configuration (a rejected key, a missing scope), or a project that vanished, ends it; everything else is waited
 * out and retried, because a daemon left running all day must survive a lost network,
 * a restarting service or a file that vanished mid-read.
 */
import { describeError } from '../sync/describe-error.js';
import { EXIT, HostsyncError, type ExitCode } from '../errors.js';
import { ApiError, OutcomeUnknownError } from '../remote/errors.js';
import { ProjectVanishedError } from '../sync/push/vanished.js';

export type FailureKind =
  /** The service is unreachable or failing: wait, retry, catch up. */
  | 'transient'
  /** A safety guard refused (mass delete): reported; the next change or poll tries again. */
  | 'refused'
  /** The configuration is wrong (401, 403), or the project vanished (exit 3): the daemon stops. */
  | 'fatal'
  /** Anything else (a local I/O error, an unexpected 4xx): reported, retried with backoff. */
  | 'error';

export interface Failure {
  kind: FailureKind;
  /** One line, API key scrubbed. */
  message: string;
  exitCode: ExitCode;
}

export function classifyFailure(err: unknown, apiKey?: string): Failure {
  const { message, exitCode } = describeError(err, apiKey);
  // Retrying would only find it gone again; going on would be deleting it (vanished.ts).
  if (err instanceof ProjectVanishedError) return { kind: 'fatal', message, exitCode };
  if (err instanceof HostsyncError) {
    if (err.exitCode === EXIT.refused) return { kind: 'refused', message, exitCode };
    if (err.exitCode === EXIT.usage) return { kind: 'fatal', message, exitCode };
    return { kind: 'error', message, exitCode };
  }
  if (err instanceof OutcomeUnknownError) return { kind: 'transient', message, exitCode };
  if (err instanceof ApiError) {
    if (err.status === 401 || err.status === 403 || exitCode === EXIT.usage) return { kind: 'fatal', message, exitCode };
    if (err.status === 0 || err.status >= 500 || err.status === 429 || err.status === 408 || err.retryable) {
      return { kind: 'transient', message, exitCode };
    }
  }
  return { kind: 'error', message, exitCode };
}
