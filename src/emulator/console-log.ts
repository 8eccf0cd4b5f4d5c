import { EMULATOR_LOG_MAX_LINE_CHARS, EMULATOR_LOG_MAX_LINES } from './tunables.js';

/**
 * CSI sequences (colours, cursor moves), OSC sequences (titles, hyperlinks) and the
 * remaining two-byte escapes. The service documents its console tail as "cleaned of
 * colour codes and progress noise"; this is the colour half.
 */
// eslint-disable-next-line no-control-regex
const ANSI = /\u001b\[[0-?]*[ -/]*[@-~]|\u001b\][^\u0007\u001b]*(?:\u0007|\u001b\\)|\u001b[@-Z\\-_]/g;

export function stripAnsi(text: string): string {
  return text.replace(ANSI, '');
}

/**
 * A console line as a terminal would finally show it: a bare carriage return rewinds
 * the line (progress bars, spinners), so only the text after the last one survives.
 * This is the "progress noise" half of the cleaning.
 */
function settleCarriageReturns(line: string): string {
  const cr = line.lastIndexOf('\r');
  return cr < 0 ? line : line.slice(cr + 1);
}

/**
 * The console of one deployment: stdout and stderr interleaved as whole lines, in
 * arrival order, in a ring buffer of `maxLines` (what searchLogs reads). The live
 * console (`tail`: logs, diagnose, apply, power) is its last `liveLines` only, so with a
 * small live buffer boot lines rotate out of every tail while a search still finds them.
 *
 * Invariants: every stored line is free of ANSI escapes, carriage returns and
 * newlines, and at most EMULATOR_LOG_MAX_LINE_CHARS long. A partial line (no newline
 * yet) is held per stream, so two streams writing halves of lines never splice into
 * each other; it is flushed when the stream ends.
 */
export class ConsoleLog {
  private readonly ring: string[] = [];
  /** Index in `ring` of the oldest line once the ring is full. */
  private head = 0;
  private readonly partial = new Map<string, string>();
  /** Monotonic time (performance.now) of the last byte received from any stream, or of the last reset. */
  lastActivity = performance.now();

  private readonly maxLines: number;

  constructor(maxLines = EMULATOR_LOG_MAX_LINES, private readonly liveLines = maxLines) {
    this.maxLines = Math.max(maxLines, liveLines);
  }

  /** Feeds a chunk of a stream's output. `stream` names the source (e.g. 'stdout'). */
  write(stream: string, chunk: string): void {
    this.lastActivity = performance.now();
    let text = (this.partial.get(stream) ?? '') + chunk;
    let nl: number;
    while ((nl = text.indexOf('\n')) >= 0) {
      this.pushLine(text.slice(0, nl));
      text = text.slice(nl + 1);
    }
    // A child printing without newlines must not grow memory without bound.
    while (text.length > EMULATOR_LOG_MAX_LINE_CHARS) {
      this.pushLine(text.slice(0, EMULATOR_LOG_MAX_LINE_CHARS));
      text = text.slice(EMULATOR_LOG_MAX_LINE_CHARS);
    }
    if (text.length > 0) this.partial.set(stream, text);
    else this.partial.delete(stream);
  }

  /** Emits whatever partial line a stream was holding (the stream closed). */
  end(stream: string): void {
    const rest = this.partial.get(stream);
    this.partial.delete(stream);
    if (rest !== undefined && rest.length > 0) this.pushLine(rest);
  }

  /** Adds a line of the emulator's own (start/exit notices), like Wings' daemon lines in the real console. */
  note(line: string): void {
    this.pushLine(line);
  }

  /** Marks "now" as the start of a quiet period, e.g. when a process is spawned. */
  touch(): void {
    this.lastActivity = performance.now();
  }

  /** The last `n` lines of the live console (at most `liveLines`), oldest first. */
  tail(n: number): string[] {
    return this.searchable(Math.min(n, this.liveLines));
  }

  /** The last `n` lines of the whole kept log (at most `maxLines`), oldest first: what searchLogs scans. */
  searchable(n: number): string[] {
    const count = Math.max(0, Math.min(Math.floor(n), this.ring.length));
    const all = this.ring.length < this.maxLines ? this.ring : [...this.ring.slice(this.head), ...this.ring.slice(0, this.head)];
    return all.slice(all.length - count);
  }

  get size(): number {
    return this.ring.length;
  }

  private pushLine(raw: string): void {
    let line = stripAnsi(settleCarriageReturns(raw.endsWith('\r') ? raw.slice(0, -1) : raw));
    if (line.length > EMULATOR_LOG_MAX_LINE_CHARS) line = line.slice(0, EMULATOR_LOG_MAX_LINE_CHARS);
    if (this.ring.length < this.maxLines) {
      this.ring.push(line);
    } else {
      this.ring[this.head] = line;
      this.head = (this.head + 1) % this.maxLines;
    }
  }
}
