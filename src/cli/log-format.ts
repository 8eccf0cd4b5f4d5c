/**
 * How diagnostics on stderr look. A person at a terminal reads one short line per record
 * (`12:03:04.120 DEBUG request op=files.upload status=200 ms=41`); a pipe, a log collector
 * or anyone who asks gets pino's JSON lines unchanged, so nothing downstream parses prose.
 */
import type { createColors } from 'picocolors';
import { usageError } from '../errors.js';
import { safeText } from './terminal-text.js';

type Colors = ReturnType<typeof createColors>;

export type LogFormat = 'json' | 'pretty';

const LEVELS: Record<number, string> = { 10: 'TRACE', 20: 'DEBUG', 30: 'INFO', 40: 'WARN', 50: 'ERROR', 60: 'FATAL' };

/**
 * HOSTSYNC_LOG_FORMAT (json | pretty) wins; else `--json` asks for JSON everywhere;
 * else pretty exactly when stderr is a terminal.
 */
export function chooseLogFormat(opts: { json: boolean; env: NodeJS.ProcessEnv; stderrIsTTY: boolean }): LogFormat {
  const asked = opts.env.HOSTSYNC_LOG_FORMAT;
  if (asked !== undefined && asked !== '') {
    if (asked === 'json' || asked === 'pretty') return asked;
    throw usageError(`HOSTSYNC_LOG_FORMAT is "${asked}": set it to json or pretty, or unset it`);
  }
  if (opts.json) return 'json';
  return opts.stderrIsTTY ? 'pretty' : 'json';
}

const value = (v: unknown): string => {
  if (typeof v === 'string') return safeText(/^[^\s"=]+$/.test(v) ? v : JSON.stringify(v));
  return typeof v === 'object' && v !== null ? JSON.stringify(v) : String(v);
};

const clock = (ms: number): string => {
  const d = new Date(ms);
  const two = (n: number): string => String(n).padStart(2, '0');
  return `${two(d.getHours())}:${two(d.getMinutes())}:${two(d.getSeconds())}.${String(d.getMilliseconds()).padStart(3, '0')}`;
};

/** One pino record (its JSON line, parsed) as one human line, without the newline. */
export function formatLogRecord(record: Record<string, unknown>, pc: Colors): string {
  const { level, time, msg, ...fields } = record;
  const name = typeof level === 'number' ? (LEVELS[level] ?? String(level)) : String(level ?? '');
  const painted = typeof level === 'number' && level >= 50 ? pc.red(name) : level === 40 ? pc.yellow(name) : pc.dim(name);
  const parts = [typeof time === 'number' ? pc.dim(clock(time)) : null, painted, typeof msg === 'string' ? safeText(msg) : null];
  const kv = Object.entries(fields)
    .filter(([, v]) => v !== undefined)
    .map(([k, v]) => `${pc.dim(`${k}=`)}${value(v)}`);
  return [...parts.filter((p): p is string => p !== null && p !== ''), ...kv].join(' ');
}

/** A pino destination that writes `formatLogRecord` lines; a line that is not JSON passes through. */
export function prettyDestination(write: (line: string) => void, pc: Colors): { write(chunk: string): void } {
  return {
    write(chunk: string) {
      for (const line of chunk.split('\n')) {
        if (line === '') continue;
        let record: unknown;
        try {
          record = JSON.parse(line);
        } catch {
          write(`${line}\n`);
          continue;
        }
        write(`${typeof record === 'object' && record !== null ? formatLogRecord(record as Record<string, unknown>, pc) : line}\n`);
      }
    },
  };
}
