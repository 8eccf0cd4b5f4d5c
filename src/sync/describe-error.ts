import { EXIT, HostsyncError, type ExitCode } from '../errors.js';
import { ApiError, DEPLOYMENT_NOT_FOUND, NOT_THE_API } from '../remote/errors.js';

/**
 * Turns anything thrown below the CLI into one line and an exit code. The API key is
 * scrubbed from the line as a last defence (no layer below should ever have put it there).
 */
export function describeError(err: unknown, apiKey = process.env.HOSTSYNC_API_KEY): { message: string; exitCode: ExitCode } {
  let message: string;
  let exitCode: ExitCode = EXIT.failed;
  if (err instanceof HostsyncError) {
    message = err.message;
    exitCode = err.exitCode;
  } else if (err instanceof ApiError) {
    message = err.message;
    // A web page in front of the API (NOT_THE_API, even as a 403) has its own code; a refused
    // key or a missing scope is a configuration problem the user fixes.
    if (err.code === NOT_THE_API) exitCode = EXIT.notApi;
    else if (err.status === 401 || err.status === 403) exitCode = EXIT.usage;
    else if (err.status === 404 && (err.operation.startsWith('deployments.get') || err.code === DEPLOYMENT_NOT_FOUND)) exitCode = EXIT.usage;
  } else if (err instanceof Error) {
    message = err.message;
  } else {
    message = String(err);
  }
  if (apiKey && apiKey.length >= 4) message = message.split(apiKey).join('[redacted]');
  return { message: message.split('\n')[0] ?? message, exitCode };
}
