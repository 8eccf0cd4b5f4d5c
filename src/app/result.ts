/**
 * The one output model every command follows: a command builds ONE typed result, and
 * the CLI renders that same object as human text or as JSON; the library returns it.
 *
 * Invariant: a result has the same keys whatever happened. A result with `ok: false`
 * has them all, plus `error` (one line, key scrubbed) and `exitCode`. A command that
 * failed before it could do anything reports the empty shape (zero counts, empty
 * lists, nulls) with the error.
 *
 * To add a command: define `XResult` (with `ok`), an `emptyXResult()` for the shape,
 * build the result from what the command did, and wrap the run in `runCommand`.
 */
import { describeError } from '../sync/describe-error.js';
import type { ClientStats } from '../remote/client.js';
import type { ExitCode } from '../errors.js';

/** Present on every result whose `ok` is false. */
export interface FailureFields {
  /** One line naming the problem and the fix. Never contains the API key. */
  error: string;
  exitCode: ExitCode;
}

/** A command's result: its shape, and on failure `error` and `exitCode` too (exec's own exitCode is any number). */
export type Outcome<T extends { ok: boolean }> = T & { error?: string; exitCode?: number };

/** Requests a command sent, as every result reports them. */
export interface RequestsSummary {
  total: number;
  byOperation: Record<string, number>;
  /** Answers that were 429 (each was waited out and retried). */
  rateLimited: number;
}

export const requestsOf = (stats: ClientStats | null | undefined): RequestsSummary =>
  stats ? { total: stats.total, byOperation: { ...stats.byOperation }, rateLimited: stats.rateLimited } : { total: 0, byOperation: {}, rateLimited: 0 };

/** `shape` marked failed with `error` and `exitCode`, from a thrown value or a given line. */
export function failure<T extends { ok: boolean }>(
  shape: T,
  err: unknown,
  apiKey?: string,
): T & FailureFields {
  const { message, exitCode } = describeError(err, apiKey);
  return { ...shape, ok: false, error: message, exitCode };
}

/** Where a human error about an unhealthy app sends the reader (JSON field names mean nothing on a terminal: issue 46, item 13). */
export const SEE_LOGS = '`hostsync logs` shows the app\'s console';

/** `shape` marked failed with a known message and exit code (nothing was thrown). */
export function failedWith<T extends { ok: boolean }>(shape: T, error: string, exitCode: ExitCode): T & FailureFields {
  return { ...shape, ok: false, error, exitCode };
}

/**
 * Runs a command body and always comes back with a result: what the body returned, or
 * the empty shape marked with the error it threw. `thrown` tells the CLI that nothing
 * beyond the error line is worth showing a human.
 */
export async function runCommand<T extends { ok: boolean }>(
  empty: () => T,
  body: () => Promise<Outcome<T>>,
  apiKey?: () => string | undefined,
): Promise<{ result: Outcome<T>; thrown: boolean }> {
  try {
    return { result: await body(), thrown: false };
  } catch (err) {
    return { result: failure(empty(), err, apiKey?.()), thrown: true };
  }
}
