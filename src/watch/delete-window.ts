/**
 * Watch's mass-delete guard across cycles: deletions made within WATCH_DELETE_WINDOW_MS
 * count with a cycle's own, so a folder removed save by save trips the guard as one removal
 * would. When they trip it the deletions are held (left on the deployment, reported once)
 * and the rest syncs; `confirm` lets them through on the next cycle.
 */
import type { PushReport } from '../sync/push/push-report.js';
import { WATCH_DELETE_WINDOW_MS } from './tunables.js';

export class DeleteWindow {
  private deletions: { at: number; count: number }[] = [];
  /** Deletions the guard holds back, and whether the user let them through. */
  private held: string[] = [];
  private confirmed = false;

  /** The guard's options for the cycle about to run (`now`: the daemon's clock, ms). */
  guard(now: number): { holdMassDelete: { recentDeletes: number }; allowMassDelete: boolean } {
    // The window stops sliding while deletions are held: waiting must not release them.
    if (this.held.length === 0) this.deletions = this.deletions.filter((d) => now - d.at < WATCH_DELETE_WINDOW_MS);
    return { holdMassDelete: { recentDeletes: this.deletions.reduce((n, d) => n + d.count, 0) }, allowMassDelete: this.confirmed };
  }

  /** Takes in a cycle's report (`confirmed`: it ran with the deletions let through); the paths held when that set is news, else null. */
  after(report: Pick<PushReport, 'counts' | 'heldDeletes'>, confirmed: boolean, now: number): string[] | null {
    if (confirmed) {
      this.confirmed = false;
      this.deletions = [];
    } else if (report.counts.deleted > 0) {
      this.deletions.push({ at: now, count: report.counts.deleted });
    }
    const news = report.heldDeletes.join('\0') !== this.held.join('\0');
    this.held = report.heldDeletes;
    return news && this.held.length > 0 ? this.held : null;
  }

  /** Lets the held deletions through on the next cycle: the paths to sync again, or null when none are held. */
  confirm(): string[] | null {
    if (this.held.length === 0) return null;
    this.confirmed = true;
    return this.held;
  }
}
