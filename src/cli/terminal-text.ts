/**
 * Text from outside (file names, a record's host and folder, the service's URLs, hints,
 * reasons and errors, the app's log lines) on its way to a terminal or a CI log. Raw, a
 * newline in a name starts a line of its own (`::warning::pwned` is a workflow command in
 * a GitHub Actions log), and ESC or BEL drive the terminal (its title, its colours, the
 * cursor). Every renderer in cli/ passes such strings through here; hostsync's own
 * colours are added after, so they are the only escape sequences that reach the screen.
 * JSON output needs none of this: JSON.stringify escapes control characters itself.
 */

/**
 * Characters that act instead of printing: C0, DEL, C1, the Unicode line and paragraph
 * separators, and the bidirectional overrides and isolates that make text read other
 * than it is stored ("Trojan Source").
 */
const UNPRINTABLE = /[\u0000-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;
const HAS_UNPRINTABLE = /[\u0000-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/;

const C_ESCAPES: Record<string, string> = { '\x07': '\\a', '\b': '\\b', '\t': '\\t', '\n': '\\n', '\v': '\\v', '\f': '\\f', '\r': '\\r' };

/** C-style: `\n`, `\t`..., else `\033` (octal, as git writes it) below 0x80 and `\u202e` above. */
function cEscape(ch: string): string {
  const known = C_ESCAPES[ch];
  if (known) return known;
  const code = ch.charCodeAt(0);
  return code < 0x80 ? `\\${code.toString(8).padStart(3, '0')}` : `\\u${code.toString(16).padStart(4, '0')}`;
}

/**
 * A name (a path, a host, a folder) as git shows an unusual path: unchanged when it holds
 * nothing unusual, else in double quotes with `"` and `\` escaped and every control
 * character C-escaped: `x\n::warning::pwned` prints as `"x\n::warning::pwned"`.
 */
export function quoteName(name: string): string {
  if (!HAS_UNPRINTABLE.test(name) && !name.includes('"') && !name.includes('\\')) return name;
  return `"${name.replace(/["\\]/g, (c) => `\\${c}`).replace(UNPRINTABLE, cEscape)}"`;
}

/**
 * Free text (a message, a warning, a hint, a URL): its control characters C-escaped in
 * place, without quotes, so it stays on its one line and moves no cursor. A warning that
 * names a path is whole text here: its path keeps no quotes, but cannot break the line.
 */
export function safeText(text: string): string {
  return HAS_UNPRINTABLE.test(text) ? text.replace(UNPRINTABLE, cEscape) : text;
}

/**
 * Escape sequences a program writes to colour or move things on a terminal: CSI
 * (`ESC [ ... letter`, colours and cursor), OSC (`ESC ] ... BEL` or `ESC \`, the title,
 * hyperlinks) and the two-character ones (`ESC c`, reset). Also their 8-bit forms.
 */
const TERMINAL_SEQUENCE = /(?:\u001b\[|\u009b)[\u0030-\u003f]*[\u0020-\u002f]*[\u0040-\u007e]|(?:\u001b\]|\u009d)[^\u0007\u001b\u009c]*(?:\u0007|\u001b\\|\u009c)?|\u001b[\u0020-\u002f]*[\u0030-\u007e]/g;

/**
 * One line of the app's own log (`logs`, the log tail of an unhealthy push or watch):
 * kept readable, so the escape sequences an app writes for colour or a spinner are
 * dropped rather than shown as `\033[32m`; any control character left over (a bare ESC
 * or BEL, a CR, a newline inside the line) is C-escaped as in `safeText`. A tab stays.
 */
export function safeLogLine(line: string): string {
  const printable = HAS_UNPRINTABLE.test(line) ? safeContentLine(line.replace(TERMINAL_SEQUENCE, '')) : line;
  return notWorkflowCommand(printable);
}

/**
 * A GitHub Actions runner takes a log line that starts with `::` or `##[` (after any leading
 * white space, which it trims) for a workflow command (`::warning::`, `::add-mask::`,
 * `::stop-commands::`): the app's log, a service's string, is not hostsync's to command the
 * runner with. A zero-width space before it (not white space to the runner's trim) keeps the
 * line as it reads and makes it plain output.
 */
export function notWorkflowCommand(line: string): string {
  return /^\s*(::|##\[)/.test(line) ? `\u200b${line}` : line;
}

/** A line of a file's content (a diff): every control character but the tab C-escaped, nothing dropped. */
export function safeContentLine(line: string): string {
  return HAS_UNPRINTABLE.test(line) ? line.replace(UNPRINTABLE, (c) => (c === '\t' ? c : cEscape(c))) : line;
}
