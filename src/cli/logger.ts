import { pino, type Logger } from 'pino';
import type { LogLevel } from '../config/config.js';

/**
 * Diagnostics go to stderr through pino, so stdout stays clean for `--json`.
 * Redaction is belt and braces: the client never hands the key to the logger, and
 * any field that could carry it is censored anyway.
 */
export function createLogger(level: LogLevel): Logger {
  return pino(
    {
      level,
      base: null,
      redact: {
        paths: ['apiKey', 'key', 'authorization', 'headers.authorization', 'req.headers.authorization', '*.apiKey', '*.authorization'],
        censor: '[redacted]',
      },
    },
    pino.destination(2),
  );
}
