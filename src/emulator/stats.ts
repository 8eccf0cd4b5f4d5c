/**
 * Request counters served at GET /__emulator/stats (DESIGN.md, Interfaces).
 * Every /api/v1 request counts, whatever its answer (401, 403, 429 included);
 * admin and node routes never do.
 */

export interface StatsSnapshot {
  requests: { total: number; byOperation: Record<string, number> };
  rateLimited: number;
}

export class Stats {
  private total = 0;
  private byOperation = new Map<string, number>();
  private rateLimited = 0;

  count(operation: string): void {
    this.total++;
    this.byOperation.set(operation, (this.byOperation.get(operation) ?? 0) + 1);
  }

  countRateLimited(): void {
    this.rateLimited++;
  }

  snapshot(): StatsSnapshot {
    return {
      requests: { total: this.total, byOperation: Object.fromEntries(this.byOperation) },
      rateLimited: this.rateLimited,
    };
  }

  reset(): void {
    this.total = 0;
    this.byOperation = new Map();
    this.rateLimited = 0;
  }
}
