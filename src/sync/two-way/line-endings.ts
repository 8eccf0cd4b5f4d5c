/**
 * Line endings are content: hostsync sends bytes as they are (docs/decisions.md, "Line
 * endings"). A file git checked out with CRLF on Windows therefore differs from the LF
 * copy on the deployment, and this says so in words rather than as a diff of every line.
 * Only text already read because the file differs is looked at: nothing is read for it.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { xxh64Bytes } from '../../local/hash.js';
import type { Entry } from '../../model/types.js';
import { DIFF_TEXT_MAX_BYTES, LINE_ENDINGS_CHECK_MAX_FILES } from '../tunables.js';

type Eol = 'CRLF' | 'LF' | 'mixed';

function eolOf(text: string): Eol | null {
  const lf = (text.match(/\n/g) ?? []).length;
  if (lf === 0) return null;
  const crlf = (text.match(/\r\n/g) ?? []).length;
  return crlf === 0 ? 'LF' : crlf === lf ? 'CRLF' : 'mixed';
}

/** The note for a local and a remote text that differ only in their line endings; null otherwise (equal texts included). */
export function lineEndingsNote(local: string, remote: string): string | null {
  if (local === remote) return null;
  if (local.replace(/\r\n/g, '\n') !== remote.replace(/\r\n/g, '\n')) return null;
  const here = eolOf(local);
  const there = eolOf(remote);
  if (here === null || there === null) return null;
  return `differs only in line endings (${here} here, ${there} on the deployment): see docs/platforms.md#line-endings`;
}

/** A local file that differs from the deployment's copy, with what the deployment holds. */
export interface Differing {
  local: Entry;
  remote: Entry | null | undefined;
}

/**
 * `status`'s notes for files that differ only because the local copy has CRLF where the
 * deployment's has LF (git's autocrlf on Windows): each candidate is read once more, its
 * CRLFs turned to LF, and hashed against the deployment's hash. No request is made. At
 * most LINE_ENDINGS_CHECK_MAX_FILES text files of at most DIFF_TEXT_MAX_BYTES each.
 */
export async function crlfOnlyNotes(root: string, differing: readonly Differing[]): Promise<string[]> {
  const notes: string[] = [];
  const candidates = differing.filter(
    (d) => d.remote && d.remote.hash !== null && d.local.text === true && d.local.size > d.remote.size && d.local.size <= DIFF_TEXT_MAX_BYTES,
  );
  for (const d of candidates.slice(0, LINE_ENDINGS_CHECK_MAX_FILES)) {
    const data = await readFile(path.join(root, ...(d.local.local ?? d.local.path).split('/'))).catch(() => null);
    if (data === null || data.length - d.remote!.size <= 0) continue;
    const text = data.toString('utf8');
    if (!text.includes('\r\n')) continue;
    const lf = Buffer.from(text.replace(/\r\n/g, '\n'), 'utf8');
    if (lf.length !== d.remote!.size || (await xxh64Bytes(lf)) !== d.remote!.hash) continue;
    notes.push(`${d.local.path} ${lineEndingsNote(text, lf.toString('utf8')) ?? 'differs only in line endings'}`);
  }
  return notes;
}
