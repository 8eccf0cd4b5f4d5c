import { createRequire } from 'node:module';
import type * as Picocolors from 'picocolors';
import { isCI } from './ci.js';

// CommonJS packages are required, not imported: see docs/decisions.md, "Start-up".
const require = createRequire(import.meta.url);
const { createColors } = require('picocolors') as typeof Picocolors;

/**
 * Colour only where a person reads it: stdout is a terminal, not in CI, NO_COLOR is unset
 * and the terminal is not "dumb"; FORCE_COLOR forces it. (picocolors alone also colours whenever
 * CI is set, which would put escape codes into CI logs and `--json`-adjacent output.)
 */
export function colorEnabled(env: NodeJS.ProcessEnv = process.env, isTTY = process.stdout.isTTY === true): boolean {
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== '') return false;
  if (env.FORCE_COLOR !== undefined && env.FORCE_COLOR !== '0') return true;
  return isTTY && !isCI(env) && env.TERM !== 'dumb';
}

export const pc = createColors(colorEnabled());
