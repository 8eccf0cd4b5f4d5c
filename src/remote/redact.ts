/**
 * Keeps secrets out of every text hostsync produces about remote calls.
 *
 * Invariant: any string that may echo something we sent (a server message, a
 * low-level error) goes through Redactor.text before it is logged or thrown.
 * Logs never carry request headers at all; the pino paths below are a second
 * line of defence for loggers the caller passes in.
 */

import type { Logger } from 'pino';

export const REDACTED = '[REDACTED]';

/** pino `redact` paths covering the places an Authorization header or key could land. */
export const LOG_REDACT_PATHS = [
  'authorization',
  'Authorization',
  'headers.authorization',
  'headers.Authorization',
  'req.headers.authorization',
  '*.headers.authorization',
  'apiKey',
  '*.apiKey',
  'key',
  'token',
];

export class Redactor {
  private readonly secrets: string[];

  constructor(secrets: Array<string | undefined>) {
    // Longest first, so a secret containing another is removed whole.
    this.secrets = secrets.filter((s): s is string => typeof s === 'string' && s.length >= 4)
      .sort((a, b) => b.length - a.length);
  }

  text(s: string): string {
    let out = s;
    for (const secret of this.secrets) {
      if (out.includes(secret)) out = out.split(secret).join(REDACTED);
    }
    return out;
  }
}

/** A child of the caller's logger that censors key-bearing fields whatever a log call passes. */
export function redactingLogger(logger: Logger): Logger {
  return logger.child({ component: 'remote' }, { redact: { paths: LOG_REDACT_PATHS, censor: REDACTED } });
}
