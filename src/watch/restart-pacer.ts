/**
 * Watch's restarts of a worker, paced to what a login limit allows (issue 47, item 1):
 * at most one restart per `minSeconds` (Discord: one login per 5 s), the last save always
 * live once the interval passes, and no restart at all of a bot caught in a crash loop
 * until a new save.
 *
 * A layer around `client.deployments.apply`, outside the restart guard (sync/apply/restart-guard.ts,
 * which counts and limits every restart): a cycle's apply that would restart inside the
 * interval is sent with `restart: false` instead (the files are on the deployment at once;
 * hosting-api.md: "false forbids one"), and the restart is owed: one apply with
 * `restart: true` at the end of the interval, between cycles, however many saves came in
 * meanwhile. Ten saves a second apart make 2 or 3 restarts, not 10.
 *
 * Invariants:
 * - An owed restart never runs beside a cycle: it waits for the cycle in flight, and a cycle
 *   waits for it (idle()). It is dropped when a later cycle restarted anyway, and skipped
 *   while an apply is pending (a cycle whose files did not all land is not restarted into:
 *   its retry applies).
 * - Crash loop: after `crashLoop` restarts in a row that left the app offline (a crash at
 *   start), an owed restart is dropped (never made); a new save restarts once more (paced).
 * - A watch stopped with a restart owed marks the apply pending, so the next push or watch
 *   makes it.
 */
import type { ApplyRequest, ApplyResult } from '../api/types.js';
import type { HealthSettings } from '../config/config.js';
import type { HostingClient } from '../remote/client.js';
import type { StateStore } from '../state/store.js';
import { awaitHealth, type HealthReport } from '../sync/apply/apply.js';
import type { RestartGuard, SlowStop } from '../sync/apply/restart-guard.js';

export type RestartEvent =
  /** A save's restart is put off to the end of the interval (once per interval). */
  | { type: 'restart'; action: 'deferred'; inMs: number; minSeconds: number }
  /** The owed restart was made: the last save is live. */
  | { type: 'restart'; action: 'restarted'; state: string; healthy: boolean; reason: string; today: number | null; limit: number | null; logs: string[] }
  /** The bot crashed at start `crashes` times in a row: no restart until a new save. */
  | { type: 'restart'; action: 'held'; crashes: number; message: string }
  /** The day's limit is reached: the files synced, the app was not restarted (`hostsync restart --force` does it). */
  | { type: 'restart'; action: 'refused'; message: string }
  /** The count nearing its limit, or a stop that was a kill (with the fix). */
  | { type: 'restart'; action: 'warning'; message: string; stop?: SlowStop };

export interface RestartPacerOptions {
  client: HostingClient;
  guard: RestartGuard;
  store: Pick<StateStore, 'applyPending' | 'setApplyPending'>;
  health: HealthSettings;
  applyWaitSeconds: number | undefined;
  crashLoop: number;
  /** A sync cycle runs now, and a promise of its end. */
  cycling: () => boolean;
  cycleSettled: () => Promise<void>;
  emit: (e: RestartEvent) => void;
  now?: () => number;
}

export class RestartPacer {
  private lastRestartAt = -Infinity;
  private owed = false;
  private timer: NodeJS.Timeout | null = null;
  private crashes = 0;
  private running: Promise<void> | null = null;
  private closed = false;
  private readonly minMs: number;
  private readonly now: () => number;
  /** The guard's apply, beneath this layer. */
  private inner: ((req: ApplyRequest) => Promise<ApplyResult>) | null = null;
  /** The last count the guard reported, for the cycle line. */
  lastCount: { today: number; limit: number | null } | null = null;

  constructor(private readonly opts: RestartPacerOptions) {
    this.minMs = opts.guard.rules.minSeconds * 1000;
    this.now = opts.now ?? (() => performance.now());
  }

  /** Wraps the client's deployments.apply (already wrapped by the guard). */
  install(): this {
    const d = this.opts.client.deployments;
    const send = d.apply.bind(d);
    this.inner = send;
    d.apply = (req: ApplyRequest = {}) => this.apply(req, send);
    return this;
  }

  /** Resolves once no owed restart is being made (a cycle waits for it). */
  async idle(): Promise<void> {
    while (this.running) await this.running;
  }

  /** Stops pacing; an owed restart is left to the next push or watch (apply pending). */
  async close(): Promise<void> {
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    await this.idle();
    if (this.owed) await this.opts.store.setApplyPending(true).catch(() => undefined);
  }

  private async apply(req: ApplyRequest, send: (req: ApplyRequest) => Promise<ApplyResult>): Promise<ApplyResult> {
    if (req.restart === false) return this.sent(await send(req));
    const wait = this.lastRestartAt + this.minMs - this.now();
    if (wait > 0) {
      const first = !this.owed;
      this.owed = true;
      this.arm(wait);
      if (first) this.opts.emit({ type: 'restart', action: 'deferred', inMs: Math.round(wait), minSeconds: this.minMs / 1000 });
      return this.sent(await send({ ...req, restart: false }));
    }
    // A save's own restart makes any owed one moot: this one runs the newest files.
    this.disarm();
    return this.sent(await send(req));
  }

  /** After every apply: the restart's time, the crash streak, and the guard's notes as events. */
  private sent(answer: ApplyResult): ApplyResult {
    if (answer.restarted) {
      this.lastRestartAt = this.now();
      this.crashes = answer.state === 'offline' ? this.crashes + 1 : 0;
    }
    for (const n of this.opts.guard.take()) {
      if (n.today !== null) this.lastCount = { today: n.today, limit: n.limit };
      if (n.refused) {
        this.disarm();
        this.opts.emit({ type: 'restart', action: 'refused', message: n.refused });
      }
      if (n.warning) this.opts.emit({ type: 'restart', action: 'warning', message: n.warning });
      if (n.stop?.killed) this.opts.emit({ type: 'restart', action: 'warning', message: n.stop.message, stop: n.stop });
    }
    return answer;
  }

  private heldMessage(): string {
    return `the app crashed at start ${this.crashes} times in a row: watch does not restart it again until a new save (each restart of a bot is a login)`;
  }

  private arm(ms: number): void {
    if (this.timer || this.closed) return;
    this.timer = setTimeout(() => {
      this.timer = null;
      void this.fire();
    }, Math.max(0, ms));
  }

  private disarm(): void {
    this.owed = false;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }

  /** The owed restart, between cycles. */
  private async fire(): Promise<void> {
    while (this.opts.cycling()) await this.opts.cycleSettled();
    if (!this.owed || this.closed || this.running) return;
    // Checked and taken with no await between: a cycle starting now waits in idle().
    let done!: () => void;
    this.running = new Promise((resolve) => (done = resolve));
    try {
      if (await this.opts.store.applyPending()) return; // a cycle's files did not all land: its retry applies
      this.owed = false;
      if (this.crashes >= this.opts.crashLoop) {
        // A crash loop: the owed restart would be one more login for one more crash.
        this.opts.emit({ type: 'restart', action: 'held', crashes: this.crashes, message: this.heldMessage() });
        return;
      }
      // Beneath this layer: the owed restart is not paced again.
      const answer = this.sent(await this.inner!({ restart: true, ...(this.opts.applyWaitSeconds !== undefined ? { waitSeconds: this.opts.applyWaitSeconds } : {}) }));
      if (!answer.restarted) return;
      const health: HealthReport = await awaitHealth(this.opts.client, answer, this.opts.health, { started: true });
      this.opts.emit({
        type: 'restart', action: 'restarted', state: health.state, healthy: health.healthy, reason: health.reason,
        today: this.lastCount?.today ?? null, limit: this.lastCount?.limit ?? null, logs: health.logs,
      });
    } catch {
      // A failed restart stays owed to the next save (the service may be away): nothing is lost but a login.
    } finally {
      this.running = null;
      done();
    }
  }
}
