/**
 * Files whose name is harmless but whose content may be a secret. `.npmrc` must travel
 * (the server's `npm install` reads its registry settings), but not with a token in it.
 */

/** The basename this module judges by content. */
export const NPMRC = '.npmrc';

/**
 * An auth line npm reads (`_authToken`, `_auth`, `_password`, scoped to a registry or not)
 * whose value is written out. A value that is only an environment reference (`${NPM_TOKEN}`)
 * holds no secret: npm expands it where it runs.
 */
const AUTH_LINE = /^\s*(?:\/\/[^\s=]*:)?(?:_authToken|_auth|_password)\s*=\s*(.*?)\s*$/;
const ENV_ONLY = /^["']?\$\{[A-Za-z_][A-Za-z0-9_]*\}["']?$/;

export function npmrcHoldsCredential(text: string): boolean {
  return text.split(/\r?\n/).some((line) => {
    const m = AUTH_LINE.exec(line);
    return m !== null && m[1] !== '' && !ENV_ONLY.test(m[1]!);
  });
}
