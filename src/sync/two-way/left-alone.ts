/**
 * Named paths a command could not act on because the local scan passed over them or a
 * folder above them: a symlink here (hostsync never writes through one), a special or
 * unreadable file. `pull sub/f.txt` below a symlinked `sub` said "Up to date" (issue 44,
 * item 11); `resolve` said "already match": each names the path and why instead.
 */
import { lstatSync, readlinkSync } from 'node:fs';
import path from 'node:path';
import { within } from '../scope.js';

export interface LeftAlone {
  path: string;
  why: string;
}

/** The named paths at or below a path the scan skipped (`skipped`, folders ending in "/"), each with why, in one line; `verb` is what was not done ("settle", "pull"). */
export function leftAloneOf(root: string, named: readonly string[], skipped: readonly string[], verb: string): LeftAlone[] {
  const out: LeftAlone[] = [];
  for (const p of named) {
    const s = skipped.map((k) => k.replace(/\/$/, '')).find((k) => k !== '' && within(p, k));
    if (s === undefined) continue;
    let why = `${s} could not be read here`;
    try {
      const abs = path.join(root, s);
      if (lstatSync(abs).isSymbolicLink()) why = `${s} is a symlink here (-> ${readlinkSync(abs)}); hostsync never writes through links: replace it with a regular ${s === p ? 'file' : 'folder'} to ${verb} ${p}`;
      else if (!lstatSync(abs).isFile()) why = `${s} is not a regular file here`;
    } catch {
      // Gone meanwhile: the generic reason stands.
    }
    out.push({ path: p, why });
  }
  return out;
}
