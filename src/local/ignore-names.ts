/**
 * Which file names an ignore pattern list could possibly match, decided from the name
 * alone and far cheaper than asking the `ignore` package: at 100k files a cold scan spent
 * ~0.5 s of CPU there (25 regular expressions per file, and an answer cached per path).
 * A file no pattern can match is ignored exactly when its folder is (IgnoreMatcher asks
 * the package about the folder: one question per folder, not per file).
 *
 * Invariants:
 * - Sound, never exact: false only when no pattern, positive or negated, can match a file
 *   of that name at any depth. A pattern whose shape is not understood here (a wildcard
 *   other than one leading or trailing `*`, a class, an escape, a space, a leading `#`,
 *   any non-ASCII) makes the whole list "unknown" (null): every file is asked the slow way.
 * - Understood shapes, in gitignore syntax (what the `ignore` package compiles to a
 *   regular expression anchored at a path's end, see ignore.test.ts's differential test):
 *   NAME, *NAME, NAME*, *NAME* (no slash, or a trailing one: a folder-only pattern, which
 *   matches no file), and a path of literal segments (optionally after a leading `**` + "/")
 *   whose last segment is literal: it matches only files of exactly that name. Also
 *   NAME[!CHARS]* and NAME?* (the credential rules' `.env` patterns, ignore.ts), taken as
 *   the prefix NAME: looser than the pattern, so still sound.
 * - hostsync's own temp-name patterns (local/temp-names.ts, enforced, so in every list)
 *   are understood by name: they use `?`, read nowhere else here.
 * - Case-insensitive, as the matcher (the package's default): names compare by ASCII
 *   case folding, and a pattern must be ASCII, so no Unicode folding can make a
 *   name match a pattern this says it cannot.
 */

import { OWN_TEMP_PATTERNS, mayBeOwnTemp } from './temp-names.js';

/** What a file name must be like for some pattern of a list to match it (lower case). */
interface NameRules {
  exact: Set<string>;
  suffixes: string[];
  prefixes: string[];
  infixes: string[];
  /** The temp-name patterns are in the list (see the invariants). */
  ownTemps: boolean;
}

/** A segment made of these only: no wildcard, class, escape, space or non-ASCII. */
const LITERAL = /^[A-Za-z0-9._~#@%+,=-]+$/;

/** NAME[!CHARS]* or NAME?*: a literal NAME, then one character (not among CHARS), then anything. */
const CLASSED = /^([A-Za-z0-9._~@%+,=-]+)(?:\[![A-Za-z0-9._-]+\]|\?)\*$/;

/**
 * The check for `patterns` in gitignore syntax: `(name) => false` means no pattern can
 * match a file so named. Null when some pattern is not understood (see the invariants).
 */
export function fileNameCheck(patterns: readonly string[]): ((name: string) => boolean) | null {
  const rules: NameRules = { exact: new Set(), suffixes: [], prefixes: [], infixes: [], ownTemps: false };
  for (const pattern of patterns) if (!addPattern(rules, pattern)) return null;
  // A rule another one already covers is dropped (a name it lets through, the looser one
  // lets through too): the `.env` patterns of ignore.ts add a dozen prefixes and exact
  // names, all under `.env`, which would otherwise be tried name by name.
  const prefixes = [...new Set(rules.prefixes)].filter((p, _, all) => !all.some((q) => q !== p && p.startsWith(q)));
  const suffixes = [...new Set(rules.suffixes)].filter((x, _, all) => !all.some((q) => q !== x && x.endsWith(q)));
  const exact = new Set([...rules.exact].filter((e) => !prefixes.some((q) => e.startsWith(q)) && !suffixes.some((q) => e.endsWith(q))));
  const { infixes, ownTemps } = rules;
  // A name can match a suffix only by its last character, a prefix only by its first, an
  // exact name by either: most names are told apart by these two (all lower-case ASCII, see
  // foldedAt). An exact name is filed under its first character when a prefix already
  // claims it (the `.env` names beside `.env*`-like prefixes), else under its last: the
  // fewer characters claimed, the more names the first test settles.
  const lastChars = new Uint8Array(128);
  const firstChars = new Uint8Array(128);
  for (const lit of suffixes) lastChars[lit.charCodeAt(lit.length - 1)] = 1;
  for (const lit of prefixes) firstChars[lit.charCodeAt(0)] = 1;
  for (const lit of exact) {
    if (firstChars[lit.charCodeAt(0)] === 1) continue;
    lastChars[lit.charCodeAt(lit.length - 1)] = 1;
  }
  return (name) => {
    if (infixes.length === 0 && name.length > 0 && lastChars[foldAscii(name.charCodeAt(name.length - 1))] !== 1 && firstChars[foldAscii(name.charCodeAt(0))] !== 1) {
      return ownTemps && mayBeOwnTemp(name);
    }
    if (exact.size > 0 && exact.has(asciiLower(name))) return true;
    for (const s of suffixes) if (foldedAt(name, s, name.length - s.length)) return true;
    for (const p of prefixes) if (foldedAt(name, p, 0)) return true;
    for (const m of infixes) if (foldedIn(name, m)) return true;
    return ownTemps && mayBeOwnTemp(name);
  };
}

/**
 * The same for folder names: a pattern without a trailing slash matches files and folders
 * alike, one with it folders alone, so a folder's rules are every pattern's with that slash
 * dropped (`node_modules/` is the name `node_modules`, `src/gen/` the path `src/gen`). A
 * cold walk asks about every folder it meets (4,096 at bench/scale's 100k files, ~29
 * regular expressions each); a folder no pattern can match is ignored exactly when its
 * parent is, which the matcher asks once per parent.
 */
export function folderNameCheck(patterns: readonly string[]): ((name: string) => boolean) | null {
  return fileNameCheck(patterns.map((p) => (p.length > 1 && p.endsWith('/') ? p.slice(0, -1) : p)));
}

/** Adds what `pattern` needs of a file name; false when its shape is not understood. */
function addPattern(rules: NameRules, pattern: string): boolean {
  // A negated pattern matches the same names (and then re-includes them).
  const body = pattern.startsWith('!') ? pattern.slice(1) : pattern;
  if (OWN_TEMP_PATTERNS.includes(body)) return (rules.ownTemps = true);
  if (body === '' || body.startsWith('#') || body.startsWith('!')) return false;
  const slash = body.indexOf('/');
  if (slash === -1 || slash === body.length - 1) {
    if (slash !== -1) return LITERAL.test(body.slice(0, -1)) || wildName(body.slice(0, -1)) !== null; // folder-only: no file
    const classed = CLASSED.exec(body);
    if (classed !== null) {
      rules.prefixes.push(asciiLower(classed[1]!));
      return true;
    }
    const wild = wildName(body);
    if (wild === null) return false;
    const [lead, lit, trail] = wild;
    if (lead && trail) rules.infixes.push(lit);
    else if (lead) rules.suffixes.push(lit);
    else if (trail) rules.prefixes.push(lit);
    else rules.exact.add(lit);
    return true;
  }
  // A path: literal segments, after an optional leading "**/" or "/", none empty.
  const segments = body.replace(/^\*\*\//, '').replace(/^\//, '').split('/');
  if (!segments.every((s) => LITERAL.test(s))) return false;
  rules.exact.add(asciiLower(segments[segments.length - 1]!));
  return true;
}

/** NAME, *NAME, NAME* or *NAME* with a literal NAME: [leading *, lower-case NAME, trailing *]; else null. */
function wildName(s: string): [boolean, string, boolean] | null {
  const lead = s.startsWith('*');
  const trail = s.length > 1 && s.endsWith('*');
  const lit = s.slice(lead ? 1 : 0, trail ? -1 : undefined);
  return LITERAL.test(lit) ? [lead, asciiLower(lit), trail] : null;
}

/** ASCII letters lowered, everything else as it is (what the regular expressions' `i` flag folds for ASCII). */
function asciiLower(s: string): string {
  return /[A-Z]/.test(s) ? s.replace(/[A-Z]+/g, (m) => m.toLowerCase()) : s;
}

/** Whether `name` holds the lower-case ASCII `lit` at `at`, ASCII letters folded. */
function foldedAt(name: string, lit: string, at: number): boolean {
  if (at < 0 || at + lit.length > name.length) return false;
  for (let i = 0; i < lit.length; i++) {
    if (foldAscii(name.charCodeAt(at + i)) !== lit.charCodeAt(i)) return false;
  }
  return true;
}

/** An ASCII capital's small letter; any other code unit as it is. */
function foldAscii(c: number): number {
  return c >= 0x41 && c <= 0x5a ? c | 0x20 : c;
}

function foldedIn(name: string, lit: string): boolean {
  for (let at = 0; at + lit.length <= name.length; at++) if (foldedAt(name, lit, at)) return true;
  return false;
}
