/**
 * Names Windows cannot hold, checked before a pull writes them (Platform.windowsNames).
 * The deployment is Linux, where all of these are ordinary names: a pull reports each one
 * and leaves it on the deployment, never skips it silently nor writes it under another name.
 */
import { WINDOWS_MAX_PATH_CHARS } from './tunables.js';

// con, prn, aux, nul, com1-9, lpt1-9 (also with superscript digits), with any extension.
const RESERVED = /^(con|prn|aux|nul|com[1-9¹²³]|lpt[1-9¹²³])(\..*)?$/i;
// eslint-disable-next-line no-control-regex
const FORBIDDEN = /[<>:"|?*\\\x00-\x1f]/;

/** Why Windows cannot hold `rel` (POSIX, relative) under `root`, or null when it can. */
export function windowsNameProblem(rel: string, root = ''): string | null {
  for (const seg of rel.split('/')) {
    if (RESERVED.test(seg)) return `"${seg}" is a reserved name on Windows`;
    const bad = FORBIDDEN.exec(seg);
    if (bad) return `"${seg}" holds ${bad[0] < ' ' ? 'a control character' : `"${bad[0]}"`}, which Windows names cannot`;
    if (/[. ]$/.test(seg)) return `"${seg}" ends in a ${seg.endsWith('.') ? 'dot' : 'space'}, which Windows drops`;
  }
  const length = (root === '' ? 0 : root.length + 1) + rel.length;
  if (length > WINDOWS_MAX_PATH_CHARS) return `the path is ${length} characters, over Windows' ${WINDOWS_MAX_PATH_CHARS} (enable long paths in Windows, or pull into a shorter folder)`;
  return null;
}
