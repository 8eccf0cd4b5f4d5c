/**
 * Which paths may name a place inside the synced root (or the volume). Every path a
 * service answer carries is one the client may turn into a local file name or act on
 * remotely; a `..` segment, an absolute path or a NUL in one would write outside the
 * root (issue 28, item 1). The answer schemas (api/schemas.ts) refuse them, and the local
 * write edge (local/confine.ts) asserts the same before it writes.
 *
 * Backslash: a legal name character on the volume (Linux) and here on POSIX, but a
 * separator on Windows, where `..\x` climbs. So a segment is judged split on both `/` and
 * `\`: `a\b.txt` passes (harmless either way), `..\x`, `a\..\..\x` and `\\host\share`
 * do not, whatever platform reads them.
 */

/**
 * An absolute Windows drive path ("C:\\x", "c:/x", "C:"). A name like "a:b.txt" is a legal
 * file name on the volume (Linux): refusing it here would refuse the whole answer and stop
 * every command on that deployment. On Windows it is unrepresentable, and the platform
 * layer reports it per file before a pull writes (local/windows-names.ts); nothing joins
 * it onto a root in a way that leaves the root (path.join, never path.resolve).
 */
const DRIVE = /^[A-Za-z]:([/\\]|$)/;

/**
 * Why `rel`, a root-relative POSIX path ("a/b.txt"), does not stay inside its root; null
 * when it does. The root itself ('') is not a place to write a file.
 */
export function relPathProblem(rel: string): string | null {
  if (rel === '') return 'an empty path';
  if (rel.includes('\0')) return 'a NUL character';
  if (rel.startsWith('/') || rel.startsWith('\\')) return 'an absolute path';
  if (DRIVE.test(rel)) return 'a drive letter';
  for (const segment of rel.split(/[/\\]/)) {
    if (segment === '') return 'an empty segment';
    if (segment === '..') return 'a ".." segment';
    if (segment === '.') return 'a "." segment';
  }
  return null;
}

/**
 * relPathProblem for a path as the service writes it: the contract's paths are "relative
 * to the volume root" and some answers show them with one leading "/" (the volume root,
 * never the machine's), and a folder may carry one trailing "/". '' and '/' are the root.
 */
export function volumePathProblem(p: string): string | null {
  if (p === '' || p === '/') return null;
  let body = p.startsWith('/') ? p.slice(1) : p;
  if (body.endsWith('/')) body = body.slice(0, -1);
  return relPathProblem(body);
}

/**
 * The one path of an answer's list that is absolute in a way the answer's own form says is
 * not the volume root's, with why; null when there is none. The contract's paths are
 * "relative to the volume root", written with the one leading "/" (readMany's "absolute
 * paths in the volume", `/src/a.js`) or without it (the emulator's files.index, `src/a.js`).
 * Either form alone is read the same. A list whose paths come without the "/" and that
 * holds one with it (`/tmp/x/abs.txt` among `app.js` and `src/a.js`) does not name a place
 * in the volume by that one: it is a path of the machine's (issue 44, item 10). The "/"
 * alone (the root) is no such path.
 */
export function mixedRootProblem(paths: Iterable<string>): { path: string; why: string } | null {
  let slashed: string | null = null;
  let bare = false;
  for (const p of paths) {
    if (p.charCodeAt(0) === 0x2f) {
      if (p.length > 1) slashed ??= p;
    } else bare = true;
    if (bare && slashed !== null) return { path: slashed, why: 'an absolute path among volume-relative ones' };
  }
  return null;
}

/** Why `name`, one entry of a folder listing, is not a plain name in that folder; null when it is. */
export function entryNameProblem(name: string): string | null {
  if (name.includes('/')) return 'a "/" in a name';
  return relPathProblem(name);
}

/** A short, printable quote of a refused path (the one line that names it). */
export function quotePath(p: string): string {
  const cut = p.length > 80 ? `${p.slice(0, 79)}…` : p;
  return JSON.stringify(cut);
}
