import { createRequire } from 'node:module';
import type * as Commander from 'commander';
import { describeError as describeCoreError } from '../sync/describe-error.js';
import { EXIT, type ExitCode } from '../errors.js';

/** describeError, plus the parser's own errors (bad flags, --help), which only the CLI sees. */
export function describeError(err: unknown, apiKey = process.env.HOSTSYNC_API_KEY): { message: string; exitCode: ExitCode } {
  // Required (docs/decisions.md, "Start-up") when an error is described, not when this
  // module loads: the status short path never runs commander (cli/main.ts says why).
  const { CommanderError } = createRequire(import.meta.url)('commander') as typeof Commander;
  if (err instanceof CommanderError) {
    return { message: err.message.replace(/^error: /, '').split('\n')[0] ?? '', exitCode: err.exitCode === 0 ? EXIT.ok : EXIT.usage };
  }
  return describeCoreError(err, apiKey);
}
