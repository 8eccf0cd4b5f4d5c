/**
 * The project's environment file (.env): parsed with dotenv (the parser every Node
 * project's .env is written for), and updated in place by `env pull`, keeping every line
 * it does not change (comments, order, other keys).
 */
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import type * as Dotenv from 'dotenv';
import { usageError } from '../errors.js';
import { writeFileAtomic } from './atomic-write.js';

// CommonJS packages are required, not imported: see README, "Start-up".
const { parse } = createRequire(import.meta.url)('dotenv') as typeof Dotenv;

/** The file's variables in file order; a missing file is an error naming it (exit 2). */
export async function readEnvFile(file: string): Promise<Map<string, string>> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') throw usageError(`${file} does not exist: create it, or pass --file PATH (or "envFile" in hostsync.json)`);
    throw usageError(`cannot read ${file} (${code ?? 'error'}): check its permissions`);
  }
  return new Map(Object.entries(parse(text)));
}

/**
 * A value as a .env line writes it so that dotenv reads it back unchanged: bare when it is
 * simple; else in the first of ' ` " it does not contain, newlines kept as they are (dotenv
 * reads quoted values across lines, and expands nothing inside ' or `). A carriage return
 * survives only as \r inside double quotes (dotenv turns CR LF into LF first). Null when
 * no quoting can hold the value (all three quotes, or a trailing backslash).
 */
export function envLine(key: string, value: string): string | null {
  if (/^[A-Za-z0-9_./:@+-]*$/.test(value)) return `${key}=${value}`;
  // A trailing backslash would escape the closing quote for dotenv's matcher.
  if (value.endsWith('\\')) return null;
  if (!value.includes('\r')) {
    for (const q of ["'", '`']) if (!value.includes(q)) return `${key}=${q}${value}${q}`;
  }
  // Inside double quotes dotenv expands \n and \r, and nothing else.
  if (!value.includes('"') && !/\\[nr]/.test(value)) return `${key}="${value.replace(/\r/g, '\\r')}"`;
  return null;
}

/**
 * Sets `values` in the file: a key already present has its (last) line replaced, a new key
 * is appended. Creates the file (mode 0600) when missing. Returns the keys whose line changed.
 */
export async function writeEnvValues(file: string, values: Map<string, string>): Promise<string[]> {
  const text = await readFile(file, 'utf8').catch((err: NodeJS.ErrnoException) => {
    if (err.code === 'ENOENT') return '';
    throw err;
  });
  const current = parse(text);
  const lines = text === '' ? [] : text.replace(/\n$/, '').split('\n');
  const changed: string[] = [];
  const unwritable: string[] = [];
  for (const [key, value] of values) {
    if (current[key] === value) continue;
    const line = envLine(key, value);
    if (line === null) {
      unwritable.push(key);
      continue;
    }
    changed.push(key);
    const at = lines.findLastIndex((l) => new RegExp(`^\\s*(?:export\\s+)?${key}\\s*=`).test(l));
    // A multi-line quoted value spans several lines: replacing its first line would leave the rest.
    if (at >= 0 && !/=\s*["'`][^"'`]*$/.test(lines[at]!)) lines[at] = line;
    else lines.push(line);
  }
  if (unwritable.length > 0) {
    throw usageError(`${unwritable.join(', ')}: the value holds every quote character (' \` ") or ends with a backslash, and a .env file cannot hold it unchanged: set it in the file yourself; nothing was written`);
  }
  if (changed.length > 0) await writeFileAtomic(file, `${lines.join('\n')}\n`);
  return changed;
}
