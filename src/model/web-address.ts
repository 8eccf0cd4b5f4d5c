/**
 * The app's public address, as the service gave it, made fit to hand to a browser
 * opener (xdg-open, open, rundll32): the opener takes whatever it is given, so
 * `file:///etc/passwd`, `javascript:...` or an option such as `--help` would be acted on.
 * Only http: and https: pass, parsed and serialised again by WHATWG URL, so spaces,
 * quotes and non-ASCII come out percent-encoded and the result always begins with the
 * scheme (never with "-"). An address holding a control character is refused rather
 * than cleaned: the parser would silently drop a tab or newline, and what remained
 * would not be the address the service meant.
 */
export function webAddress(raw: string): string | null {
  if (/[\u0000-\u001f\u007f-\u009f]/.test(raw)) return null;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return null;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return null;
  return url.href;
}
