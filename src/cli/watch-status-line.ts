/**
 * The watch's one status line (issue 47, item 6): the app's state, the last sync, the
 * restarts today when known, and the request budget, kept at the bottom of a terminal while
 * the cycle lines scroll above it. renderStatusLine is pure; BottomLine does the terminal
 * work: before any other output it clears the line, writes, then draws it again. Without a
 * terminal (a pipe, CI, --json) nothing is drawn and output passes through untouched.
 */
import { pc } from './colors.js';
import { safeText } from './terminal-text.js';

export interface StatusLineState {
  /** The deployment's state as last seen (a cycle's apply, the console follower); null before any. */
  state: string | null;
  /** When the last cycle ended; null before the first. */
  lastSync: Date | null;
  /** Restarts today, when something counts them (the watch's restart ledger); null: unknown, not shown. */
  restartsToday: number | null;
  /** The daily limit the count is against, when known. */
  restartLimit: number | null;
  /** Requests left of the key's window, and the window's size; null before the first request. */
  budget: { remaining: number; limit: number } | null;
}

export const emptyStatusLine = (): StatusLineState => ({ state: null, lastSync: null, restartsToday: null, restartLimit: null, budget: null });

const clock = (d: Date): string => d.toTimeString().slice(0, 8);
const UP = new Set(['running']);

/** The line, cut to `width` columns (its visible text; colour codes do not count). */
export function renderStatusLine(s: StatusLineState, width: number): string {
  const parts: Array<{ text: string; paint: (t: string) => string }> = [];
  const state = s.state === null ? 'state unknown' : safeText(s.state);
  parts.push({ text: state, paint: s.state === null ? pc.dim : UP.has(s.state) ? pc.green : pc.red });
  parts.push({ text: s.lastSync ? `last sync ${clock(s.lastSync)}` : 'not synced yet', paint: (t) => t });
  if (s.restartsToday !== null) parts.push({ text: `restarts today ${s.restartsToday}${s.restartLimit !== null ? `/${s.restartLimit}` : ''}`, paint: (t) => t });
  if (s.budget) parts.push({ text: `budget ${s.budget.remaining}/${s.budget.limit}`, paint: s.budget.remaining < s.budget.limit / 10 ? pc.yellow : (t) => t });
  const sep = ' · ';
  let used = 0;
  const out: string[] = [];
  for (const p of parts) {
    const room = width - used - (out.length > 0 ? sep.length : 0);
    if (room <= 0) break;
    const text = p.text.length > room ? `${p.text.slice(0, Math.max(0, room - 1))}…` : p.text;
    out.push(p.paint(text));
    used += text.length + (out.length > 1 ? sep.length : 0);
  }
  return out.join(pc.dim(sep));
}

/** Clear the line the cursor is on and go to its start. */
const CLEAR = '\r\x1b[2K';

interface Stream {
  write(s: string): boolean;
  isTTY?: boolean;
  columns?: number;
}

export class BottomLine {
  private state: StatusLineState = emptyStatusLine();
  private drawn = false;

  /** `enabled`: stdout is a terminal and a human reads it (not --json). */
  constructor(
    private readonly out: Stream,
    private readonly err: Stream,
    private readonly enabled: boolean,
  ) {}

  private line(): string {
    return renderStatusLine(this.state, Math.max(20, (this.out.columns ?? 80) - 1));
  }

  private draw(): void {
    if (!this.enabled) return;
    this.out.write(`${CLEAR}${this.line()}`);
    this.drawn = true;
  }

  private lift(): void {
    if (this.enabled && this.drawn) this.out.write(CLEAR);
    this.drawn = false;
  }

  /** Output above the line (whole lines, newline-terminated). */
  write(text: string): void {
    this.lift();
    this.out.write(text);
    this.draw();
  }

  /** Output on stderr, which shares the terminal: the line is lifted first too. */
  writeErr(text: string): void {
    this.lift();
    this.err.write(text);
    this.draw();
  }

  update(change: Partial<StatusLineState>): void {
    this.state = { ...this.state, ...change };
    this.draw();
  }

  /** The line removed for good (the watch ends). */
  close(): void {
    this.lift();
  }
}
