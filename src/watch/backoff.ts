/**
 * The wait before retrying a failed watch cycle: doubling from `minMs`, capped at `maxMs`,
 * back to `minMs` after a success. Deterministic (no jitter): one daemon per key retries
 * alone, and the user is told the exact wait.
 */
export class Backoff {
  private failures = 0;

  constructor(
    private readonly minMs: number,
    private readonly maxMs: number,
  ) {}

  /** The wait after one more failure. */
  next(): number {
    const ms = Math.min(this.maxMs, this.minMs * 2 ** Math.min(this.failures, 30));
    this.failures++;
    return ms;
  }

  reset(): void {
    this.failures = 0;
  }

  /** Failures in a row since the last success. */
  get attempts(): number {
    return this.failures;
  }
}
