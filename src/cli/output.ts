import { EXIT } from '../errors.js';
import type { Outcome } from '../app/result.js';

/**
 * Writes a command's one result: with --json the object alone on stdout (success or
 * failure alike); for a human, the rendered text on stdout, or, when the command failed
 * before it could do anything, the one error line on stderr. Returns the exit code.
 */
export function emitResult<T extends { ok: boolean }>(
  outcome: { result: Outcome<T>; thrown: boolean },
  json: boolean,
  human: (result: T) => string,
): number {
  const { result, thrown } = outcome;
  if (json) process.stdout.write(`${JSON.stringify(result)}\n`);
  else if (thrown) process.stderr.write(`hostsync: ${result.error}\n`);
  else process.stdout.write(`${human(result)}\n`);
  return result.exitCode ?? EXIT.ok;
}
