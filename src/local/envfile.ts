/**
 * The project's environment file (.env): parsed with dotenv (the parser every Node
 * project's .env is written for), and updated in place by `env pull`, keeping every line
 * it does not change (comments, order, other keys).
 */
import { lstat, readFile, readlink, realpath } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import type * as Dotenv from 'dotenv';
import { usageError } from '../errors.js';
import { writeFileAtomic } from './atomic-write.js';
import { strictlyInside } from './confine.js';

// CommonJS packages are required, not imported: see docs/decisions.md, "Start-up".
const { parse } = createRequire(import.meta.url)('dotenv') as typeof Dotenv;

/**
 * dotenv's line rule (dotenv 18, lib `parse`): a match is a variable, anything else is
 * skipped without a word. Copied to find the skipped lines; a dotenv upgrade that changes
 * its rule shows as a failing envfile test, not as a wrong variable (the values still
 * come from dotenv itself).
 */
const DOTENV_LINE = /(?:^|^)\s*(?:export\s+)?([\w.-]+)(?:\s*=\s*?|:\s+?)(\s*'(?:\\'|[^'])*'|\s*"(?:\\"|[^"])*"|\s*`(?:\\`|[^`])*`|[^#\r\n]+)?\s*(?:#.*)?(?:$|$)/gm;

/** 1-based numbers of the lines dotenv skips that are neither blank nor a comment (a quoted value's later lines are part of its variable). */
export function skippedLines(text: string): number[] {
  const t = text.replace(/\r\n?/g, '\n');
  const covered = new Uint8Array(t.length + 1);
  for (const m of t.matchAll(DOTENV_LINE)) covered.fill(1, m.index, m.index + m[0].length);
  const out: number[] = [];
  let at = 0;
  t.split('\n').forEach((line, i) => {
    const trimmed = line.trim();
    const start = at + (line.length - line.trimStart().length);
    at += line.length + 1;
    if (trimmed === '' || trimmed.startsWith('#')) return;
    if (covered[start] !== 1) out.push(i + 1);
  });
  return out;
}

/** The warning for a file's skipped lines (one per file), or null when there are none. */
export function skippedLinesWarning(file: string, lines: readonly number[]): string | null {
  if (lines.length === 0) return null;
  const which = lines.length === 1 ? `line ${lines[0]} is` : `lines ${lines.slice(0, 10).join(', ')}${lines.length > 10 ? ` (and ${lines.length - 10} more)` : ''} are`;
  return `${file}: ${which} not KEY=VALUE, so dotenv (and hostsync) skip ${lines.length === 1 ? 'it' : 'them'}: fix or remove ${lines.length === 1 ? 'it' : 'them'}`;
}

/** The file's variables in file order, and the lines dotenv skipped; a missing file is an error naming it (exit 2). */
export async function readEnvFileChecked(file: string): Promise<{ values: Map<string, string>; skipped: number[] }> {
  const text = await readEnvText(file);
  return { values: new Map(Object.entries(parse(text))), skipped: skippedLines(text) };
}

/** The file's variables in file order; a missing file is an error naming it (exit 2). */
export async function readEnvFile(file: string): Promise<Map<string, string>> {
  return (await readEnvFileChecked(file)).values;
}

async function readEnvText(file: string): Promise<string> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') throw usageError(`${file} does not exist: create it, or pass --file PATH (or "envFile" in hostsync.json)`);
    throw usageError(`cannot read ${file} (${code ?? 'error'}): check its permissions`);
  }
  return text;
}

/**
 * Where `env pull` writes `file`: the file itself, or, for a symlink, the file it points
 * to (writing the link's path would replace the link with a regular file and leave its
 * target stale). A link whose target lies outside `root` is refused (exit 2): a project
 * must not make hostsync write elsewhere.
 */
export async function envWriteTarget(file: string, root: string): Promise<string> {
  const st = await lstat(file).catch(() => null);
  if (st === null || !st.isSymbolicLink()) return file;
  let target: string;
  try {
    target = await realpath(file);
  } catch {
    // Dangling: where the link points, created by the write (links of links must resolve now).
    target = path.resolve(path.dirname(file), await readlink(file));
    const parent = await realpath(path.dirname(target)).catch(() => null);
    if (parent === null || (await lstat(target).catch(() => null)) !== null) throw usageError(`${file} is a symbolic link hostsync cannot follow: point it at a file inside the project, or pass --file with the real file`);
    target = path.join(parent, path.basename(target));
  }
  const realRoot = await realpath(root);
  if (!strictlyInside(realRoot, target)) {
    throw usageError(`${file} is a symbolic link to ${target}, outside the project: nothing was written; pass --file ${target} to write that file`);
  }
  return target;
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
