/**
 * Reading a deployment's console tail (the `logs` of apply, diagnose and
 * deployments.logs): which lines belong to the current start, which line is the first
 * error, which lines of a new tail were not seen before. Pure: lines in, lines out.
 */

/**
 * Lines the node writes when it starts the app. The emulator writes `[emulator]
 * starting: ...`; Pterodactyl Wings, under the service, writes `container@pterodactyl~
 * Server marked as starting...` (and older daemons `[Pterodactyl Daemon]: ...
 * starting`). A tail with none of them is taken whole.
 */
const START_MARKERS: readonly RegExp[] = [
  /^\[emulator\] starting: /,
  /Server marked as starting/i,
  /^\[Pterodactyl Daemon\].*\bstarting\b/i,
];

/**
 * The first line of a failure worth showing, in the wording runtimes use: JavaScript
 * (`Error:`, `TypeError: ...`, `Cannot find module`, unhandled rejections), Python
 * (`Traceback`, `...Error:`), and generic fatal/panic lines.
 */
const ERROR_LINE = /(^|\s)(\w*Error|Exception)\b(:|$)|^Traceback \(most recent call last\)|Cannot find module|ERR_[A-Z_]+|Unhandled(Promise)?Rejection|^panic:|\bFATAL\b|Segmentation fault|Killed|Out of memory/;

export function isStartMarker(line: string): boolean {
  return START_MARKERS.some((re) => re.test(line));
}

/** The lines from the last start of the app on (its start marker included); the whole tail when it shows no start. */
export function linesOfThisStart(lines: readonly string[]): string[] {
  for (let i = lines.length - 1; i >= 0; i--) if (isStartMarker(lines[i]!)) return lines.slice(i);
  return [...lines];
}

/**
 * A deployments.searchLogs pattern that finds both the start markers and the lines
 * matching `ready`, so one search tells whether a ready line came after the last start
 * (readyAfterLastStart), however far back the live console has already rotated.
 */
export function startOrReadyPattern(ready: string): string {
  return [...START_MARKERS.map((re) => re.source), `(?:${ready})`].join('|');
}

/**
 * The first line matching `ready` after the last start marker among `lines` (search
 * matches, oldest first), or null. With no marker among them, the start lies before
 * every line searched, so any ready line counts.
 */
export function readyAfterLastStart(lines: readonly string[], ready: RegExp): string | null {
  let from = 0;
  for (let i = lines.length - 1; i >= 0; i--) {
    if (isStartMarker(lines[i]!)) {
      from = i + 1;
      break;
    }
  }
  return lines.slice(from).find((l) => ready.test(l)) ?? null;
}

export function isErrorLine(line: string): boolean {
  return ERROR_LINE.test(line);
}

/**
 * What to show when the app did not come up: the last `count` lines of this start, and,
 * when the first error line of this start lies before them, that line first (a stack
 * trace's head is often pushed out by its frames). Lines from before this start are
 * left out.
 */
export function failureTail(lines: readonly string[], count: number): string[] {
  const current = linesOfThisStart(lines);
  const firstError = current.findIndex(isErrorLine);
  const tailFrom = Math.max(0, current.length - count);
  if (firstError < 0) return current.slice(tailFrom);
  // The error's head: the error line, and above it the place it names (see errorHead).
  const headFrom = errorHead(current, firstError);
  if (headFrom >= tailFrom) return current.slice(tailFrom);
  if (firstError >= tailFrom - 1) return current.slice(headFrom);
  const skipped = tailFrom - firstError - 1;
  return [...current.slice(headFrom, firstError + 1), ...(skipped > 0 ? [`... (${skipped} more line${skipped === 1 ? '' : 's'})`] : []), ...current.slice(tailFrom)];
}

/** `file.js:4` (node), `  File "app.py", line 4` is Python's and follows its Traceback line. */
const LOCATION_LINE = /\S:\d+(:\d+)?$/;
/** The marker under the failing code: carets, as node prints a SyntaxError or a throw's place. */
const CARET_LINE = /^\s*\^+\s*$/;
/** How far above the error line the place may start: location, code, caret, blank. */
const ERROR_HEAD_MAX = 4;

/**
 * Where the first error's head starts: node prints a SyntaxError (or an uncaught throw at
 * load) as `server.js:4`, the code line, a caret marker and a blank line above
 * `SyntaxError: ...`; the file and line are what the user needs (issue 46: push showed
 * the frames and dropped them). The error line itself when no such block precedes it.
 */
function errorHead(current: readonly string[], firstError: number): number {
  for (let i = firstError - 1; i >= Math.max(0, firstError - ERROR_HEAD_MAX); i--) {
    const line = current[i]!;
    if (isStartMarker(line)) break;
    if (LOCATION_LINE.test(line) && current.slice(i + 1, firstError).some((l) => CARET_LINE.test(l))) return i;
  }
  return firstError;
}

/**
 * The lines of `next` that follow what `seen` already showed, for tails read one after
 * the other from the same append-only console: the longest end of `seen` that
 * reappears in `next` (at its latest position: `next` may be a longer tail than `seen`)
 * anchors the new part. With no overlap (the reader fell behind by more than a whole
 * tail) every line of `next` is new. Runs of identical lines are ambiguous: a repeat of
 * the last line seen may be taken as already shown.
 */
export function newLines(seen: readonly string[], next: readonly string[]): string[] {
  for (let k = Math.min(seen.length, next.length); k > 0; k--) {
    for (let start = next.length - k; start >= 0; start--) {
      if (matchesAt(seen, seen.length - k, next, start, k)) return next.slice(start + k);
    }
  }
  return [...next];
}

function matchesAt(a: readonly string[], aFrom: number, b: readonly string[], bFrom: number, k: number): boolean {
  for (let i = 0; i < k; i++) if (a[aFrom + i] !== b[bFrom + i]) return false;
  return true;
}
