import type { PushReport } from '../sync/push.js';
import { EXIT, type ExitCode } from '../errors.js';

/**
 * The exit code a push ends with. A failure outranks a refusal (something we meant to
 * do did not happen), a refusal outranks an unhealthy app (the user must act on the
 * conflicts first), and an unhealthy app is still a push that landed.
 */
export function exitCodeFor(report: PushReport): ExitCode {
  if (report.failures.length > 0) return EXIT.failed;
  if (report.conflicts.length > 0) return EXIT.refused;
  if (report.healthy === false) return EXIT.unhealthy;
  return EXIT.ok;
}
