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
  const tail = current.slice(-count);
  const firstError = current.findIndex(isErrorLine);
  if (firstError < 0 || firstError >= current.length - tail.length) return tail;
  const skipped = current.length - tail.length - firstError - 1;
  return [current[firstError]!, ...(skipped > 0 ? [`... (${skipped} more line${skipped === 1 ? '' : 's'})`] : []), ...tail];
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
