import { createRequire } from 'node:module';
import type * as Picocolors from 'picocolors';
import type * as Pino from 'pino';
import type { Logger } from 'pino';
import type { LogLevel } from '../config/config.js';
import { colorEnabled } from './colors.js';
import { chooseLogFormat, prettyDestination } from './log-format.js';

// CommonJS packages are required, not imported: see docs/decisions.md, "Start-up".
const require = createRequire(import.meta.url);
const { createColors } = require('picocolors') as typeof Picocolors;
const { pino } = require('pino') as typeof Pino;

/**
 * Diagnostics go to stderr through pino, so stdout stays clean for `--json`: one short
 * line per record on a terminal, pino's JSON lines when piped or asked for (see
 * log-format.ts). Redaction is belt and braces: the client never hands the key to the
 * logger, and any field that could carry it is censored anyway.
 */
export function createLogger(level: LogLevel, opts: { json?: boolean } = {}): Logger {
  const stderrIsTTY = process.stderr.isTTY === true;
  const format = chooseLogFormat({ json: opts.json ?? false, env: process.env, stderrIsTTY });
  const destination =
    format === 'pretty'
      ? prettyDestination((line) => process.stderr.write(line), createColors(colorEnabled(process.env, stderrIsTTY)))
      : pino.destination(2);
  return pino(
    {
      level,
      base: null,
      redact: {
        paths: ['apiKey', 'key', 'authorization', 'headers.authorization', 'req.headers.authorization', '*.apiKey', '*.authorization'],
        censor: '[redacted]',
      },
    },
    destination,
  );
}
