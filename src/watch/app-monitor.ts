/**
 * Watch keeps watching the app between cycles (#29): fed the console follower's lines and
 * states, it reports once when the app goes offline after it came up (a bot that throws
 * seconds after its ready line), with the failure's first error line as push shows it.
 * A state that changes back within APP_MONITOR_CONFIRM_MS (a restart's passage through
 * stopped states) is not reported. Timers only; no I/O.
 */
import { isErrorLine, linesOfThisStart } from '../sync/console-lines.js';
import { APP_MONITOR_CONFIRM_MS, APP_MONITOR_LINES, APP_MONITOR_SHOWN_LINES as SHOWN } from './tunables.js';

export interface AppDown {
  type: 'app';
  state: string;
  /** The first error line of this start, or null when the console shows none. */
  error: string | null;
  /** The last lines of this start, for the reader to see what happened. */
  lines: string[];
}

const DOWN_STATES = new Set(['offline']);

export class AppMonitor {
  private lines: string[] = [];
  private state: string | null = null;
  private wasUp = false;
  private reported = false;
  private timer: NodeJS.Timeout | null = null;

  constructor(
    private readonly report: (e: AppDown) => void,
    private readonly confirmMs = APP_MONITOR_CONFIRM_MS,
  ) {}

  line(line: string): void {
    this.lines.push(line);
    if (this.lines.length > APP_MONITOR_LINES) this.lines.splice(0, this.lines.length - APP_MONITOR_LINES);
  }

  /** A cycle applied (or judged) the app: what it said is the news; watching starts over from its state. */
  cycle(state: string | null): void {
    this.cancel();
    this.reported = false;
    if (state !== null) {
      this.state = state;
      this.wasUp = state === 'running';
      // A crash at the cycle itself was reported by the cycle.
      if (DOWN_STATES.has(state)) this.reported = true;
    }
  }

  stateChanged(state: string): void {
    this.state = state;
    if (state === 'running') {
      this.wasUp = true;
      this.reported = false;
    }
    this.cancel();
    if (!DOWN_STATES.has(state) || !this.wasUp || this.reported) return;
    this.timer = setTimeout(() => {
      this.timer = null;
      if (this.state !== state) return;
      this.reported = true;
      this.wasUp = false;
      const current = linesOfThisStart(this.lines);
      this.report({ type: 'app', state, error: current.find(isErrorLine) ?? null, lines: current.slice(-SHOWN) });
    }, this.confirmMs);
    this.timer.unref?.();
  }

  stop(): void {
    this.cancel();
  }

  private cancel(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }
}
