import { EXIT } from '../errors.js';
import type { Outcome } from '../app/result.js';
import { safeText } from './terminal-text.js';

export interface EmitOptions<T> {
  /** `--quiet`: errors, and the final line alone. */
  quiet?: boolean;
  /** The one line `--quiet` prints; default: the last line of the human text. */
  summary?: (result: T) => string;
}

/**
 * Writes a command's one result: with --json the object alone on stdout (success or
 * failure alike); for a human, the rendered text on stdout, or, when the command failed
 * before it could do anything, the one error line on stderr. With --quiet a human gets
 * only the final line (and, when the command did not succeed, its error on stderr).
 * Returns the exit code.
 */
export function emitResult<T extends { ok: boolean }>(
  outcome: { result: Outcome<T>; thrown: boolean },
  json: boolean,
  human: (result: T) => string,
  opts: EmitOptions<T> = {},
): number {
  const { result, thrown } = outcome;
  if (json) process.stdout.write(`${JSON.stringify(result)}\n`);
  else if (thrown) process.stderr.write(`hostsync: ${safeText(String(result.error))}\n`);
  else if (opts.quiet) {
    if (!result.ok && result.error) process.stderr.write(`hostsync: ${safeText(result.error)}\n`);
    const line = opts.summary ? opts.summary(result) : (human(result).trimEnd().split('\n').pop() ?? '');
    process.stdout.write(`${line}\n`);
  } else process.stdout.write(`${human(result)}\n`);
  return result.exitCode ?? EXIT.ok;
}
