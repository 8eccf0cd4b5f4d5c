/**
 * What a client has spent: every attempt that went on the wire, by operation.
 * `push --json` and the benchmarks read it, so it counts what the server saw:
 * a retried call counts once per attempt. Transfers to signed node URLs
 * (files.upload, files.download) are counted by operation too, but also apart in
 * `unmetered`, since they do not spend the API's rate budget.
 */

export interface ClientStats {
  /** Every HTTP request sent, API and node transfers alike. */
  total: number;
  byOperation: Record<string, number>;
  /** 429 answers met. */
  rateLimited: number;
  /** Wall time the queue spent paused by 429s (Retry-After). */
  waitedMs: number;
  /** Repeats of a call after a 429, 5xx or dropped connection. */
  retries: number;
  /** Wall time requests waited on our own pacing (what avoided 429s). */
  pacedMs: number;
  /** Of `total`, requests outside the API budget (signed-URL uploads and downloads). */
  unmetered: number;
  /** Calls that failed as outcome-unknown. */
  outcomeUnknown: number;
}

export class StatsCounter {
  private total = 0;
  private unmetered = 0;
  private byOperation = new Map<string, number>();
  private rateLimited = 0;
  private retries = 0;
  private outcomeUnknown = 0;

  sent(operation: string, metered: boolean): void {
    this.total++;
    if (!metered) this.unmetered++;
    this.byOperation.set(operation, (this.byOperation.get(operation) ?? 0) + 1);
  }

  limited(): void {
    this.rateLimited++;
  }

  retried(): void {
    this.retries++;
  }

  unknownOutcome(): void {
    this.outcomeUnknown++;
  }

  snapshot(time: { waitedMs: number; pacedMs: number }): ClientStats {
    return {
      total: this.total,
      // Code-unit order (the same as the locale's for operation names): localeCompare's first call loads ICU's collator, ~30 ms of every command.
      byOperation: Object.fromEntries([...this.byOperation].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))),
      rateLimited: this.rateLimited,
      waitedMs: time.waitedMs,
      retries: this.retries,
      pacedMs: time.pacedMs,
      unmetered: this.unmetered,
      outcomeUnknown: this.outcomeUnknown,
    };
  }

  reset(): void {
    this.total = 0;
    this.unmetered = 0;
    this.byOperation.clear();
    this.rateLimited = 0;
    this.retries = 0;
    this.outcomeUnknown = 0;
  }
}
